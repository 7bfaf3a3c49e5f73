import Testing

@testable import TraitKit

// A tracked method may re-enter itself (a layout pass that lays out again), and a tracked
// closure may remove its own slot. Before the engine handled these, the first hung and dropped
// reads, and the second left watchers behind for good.

@Suite("Automatic tracking: runs that nest or remove themselves")
struct NestedTrackingTests {
  @Test("a run of a slot nested in a run of the same slot records what either read")
  func sameSlotNestedInItself() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    var invalidations = 0
    let invalidation: (TraitNode) -> Void = { _ in invalidations += 1 }
    var kept = TraitCollection()
    node.withTraitTracking(slot: .display, invalidation: { _ in }, { kept = node.traitCollection })

    node.withTraitTracking(slot: .layout, invalidation: invalidation) {
      node.withTraitTracking(slot: .layout, invalidation: invalidation) {
        _ = kept.horizontalSizeClass
        _ = node.traitCollection.userInterfaceStyle
      }
      _ = node.traitCollection[VTCountTrait.self]
    }

    graph.root.traitOverrides[VTCountTrait.self] = 1
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 1)
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 2)
  }

  @Test("a run that removes its own slot leaves no watcher on the nodes it reads")
  func runThatRemovesItsSlot() {
    let graph = TraitGraph()
    let node = TraitNode()
    let watched = TraitNode()
    graph.root.addTraitChild(node)
    graph.root.addTraitChild(watched)
    var invalidations = 0
    for _ in 0..<3 {
      node.withTraitTracking(
        slot: .layout,
        invalidation: { _ in invalidations += 1 },
        {
          node.removeTraitTracking(slot: .layout)
          _ = watched.traitCollection[VTCountTrait.self]
        }
      )
    }

    watched.traitOverrides[VTCountTrait.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(invalidations == 0)
    #expect((watched._tracking?.watchers.count ?? 0) == 0)
  }
}
