import Testing
import TraitKit

// Every read through a collection that a tracked closure obtains from a node's `traitCollection`
// is recorded, whichever collection of the node it is: the node may change during the run, and
// a pass inside the run may move on what the slot compares with.

@Suite("Collections a tracked run obtains")
struct TrackedRunCollectionsTests {
  @Test("a collection obtained again after its node changed during the run records its reads")
  func collectionAfterChangeInRun() {
    let graph = TraitGraph()
    let view = TraitNode()
    graph.root.addTraitChild(view)
    var invalidations = 0
    let layout = {
      _ = view.traitCollection.userInterfaceStyle
      view.traitOverrides.verticalSizeClass = .regular
      _ = view.traitCollection.horizontalSizeClass
    }
    view.withTraitTracking(slot: .layout, invalidation: { _ in invalidations += 1 }, layout)
    graph.updateTraitsIfNeeded()
    invalidations = 0

    view.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 1)
  }

  @Test(
    "a collection obtained between two changes of its node records reads made after the second",
    arguments: [false, true]
  )
  func collectionBetweenTwoChanges(changesComeFromTheParent: Bool) {
    let graph = TraitGraph()
    let parent = TraitNode()
    let view = TraitNode()
    graph.root.addTraitChild(parent)
    parent.addTraitChild(view)
    // A node with no overrides of its own shares its parent's collection.
    let changed = changesComeFromTheParent ? parent : view
    var invalidations = 0
    let layout = {
      _ = view.traitCollection.userInterfaceStyle
      changed.traitOverrides.verticalSizeClass = .regular
      let between = view.traitCollection
      changed.traitOverrides.layoutDirection = .rightToLeft
      _ = view.traitCollection.userInterfaceStyle
      _ = between.horizontalSizeClass
    }
    view.withTraitTracking(slot: .layout, invalidation: { _ in invalidations += 1 }, layout)
    graph.updateTraitsIfNeeded()
    invalidations = 0

    view.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 1)
  }

  @Test("the run's first collection records reads made after a pass inside the run")
  func firstCollectionAfterPassInRun() {
    let graph = TraitGraph()
    let view = TraitNode()
    graph.root.addTraitChild(view)
    var invalidations = 0
    let layout = {
      let first = view.traitCollection
      _ = first.verticalSizeClass
      view.traitOverrides.verticalSizeClass = .regular
      // As a layout that brings traits up to date first does.
      graph.updateTraitsIfNeeded()
      _ = first.horizontalSizeClass
    }
    view.withTraitTracking(slot: .layout, invalidation: { _ in invalidations += 1 }, layout)
    graph.updateTraitsIfNeeded()
    invalidations = 0

    view.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 1)
  }
}
