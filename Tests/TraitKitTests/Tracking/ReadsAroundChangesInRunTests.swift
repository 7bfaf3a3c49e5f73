import Testing
import TraitKit

// A tracked run that changes traits and then reads its node again reads a newer collection than
// its first read did: each trait counts with the value the run read, whichever collection it came
// from (R11: a recorded trait that changes runs the invalidation; one that keeps its value does
// not).

@Suite("Reads around changes a tracked run makes")
struct ReadsAroundChangesInRunTests {
  @Test("a value read after the run's own write, changed back later, invalidates the slot")
  func valueReadAfterOwnWriteChangedBack() {
    let tree = TTTree()
    var laidOutFor: UserInterfaceSizeClass?
    tree.a.track(.layout) {
      _ = tree.a.traitCollection.userInterfaceStyle
      tree.a.traitOverrides.verticalSizeClass = .regular
      laidOutFor = tree.a.traitCollection.verticalSizeClass
    }
    #expect(laidOutFor == .regular)

    tree.a.traitOverrides.remove(TraitVerticalSizeClass.self)
    tree.graph.updateTraitsIfNeeded()
    #expect(tree.a.traitCollection.verticalSizeClass == .unspecified)
    #expect(tree.a.invalidations(of: .layout) == 1)
  }

  @Test("a value read after the run wrote an ancestor's override, changed back later, invalidates")
  func valueReadAfterAncestorWriteChangedBack() {
    let tree = TTTree()
    var laidOutFor: UserInterfaceSizeClass?
    tree.a.track(.layout) {
      _ = tree.a.traitCollection.userInterfaceStyle
      tree.graph.root.traitOverrides.horizontalSizeClass = .compact
      laidOutFor = tree.a.traitCollection.horizontalSizeClass
    }
    #expect(laidOutFor == .compact)

    tree.graph.root.traitOverrides.horizontalSizeClass = .unspecified
    tree.graph.updateTraitsIfNeeded()
    #expect(tree.a.invalidations(of: .layout) == 1)
  }

  @Test(
    "a value read after the run's write that keeps it is no change, when others observe it too",
    arguments: [false, true]
  )
  func valueReadAfterWriteKept(writeIsOnAncestor: Bool) {
    let tree = TTTree()
    var registrationCalls = 0
    for node in [tree.a, tree.b] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: TraitNode, _: TraitCollection) in registrationCalls += 1
      }
    }
    tree.a.track(.layout) {
      _ = tree.a.traitCollection.userInterfaceStyle
      (writeIsOnAncestor ? tree.graph.root : tree.a).traitOverrides.horizontalSizeClass = .compact
      _ = tree.a.traitCollection.horizontalSizeClass
    }
    tree.graph.updateTraitsIfNeeded()
    #expect(registrationCalls == (writeIsOnAncestor ? 2 : 1))
    #expect(tree.a.invalidations(of: .layout) == 0)
  }

  @Test("a run that read a trait before and after changing it is invalidated, even if changed back")
  func traitReadBeforeAndAfterItsChange() {
    let tree = TTTree()
    var read: [UserInterfaceSizeClass] = []
    tree.a.track(.layout) {
      read.append(tree.a.traitCollection.verticalSizeClass)
      tree.a.traitOverrides.verticalSizeClass = .regular
      read.append(tree.a.traitCollection.verticalSizeClass)
    }
    #expect(read == [.unspecified, .regular])

    // The run used both values: whatever the node holds differs from one of them, even the
    // value it began with.
    tree.a.traitOverrides.remove(TraitVerticalSizeClass.self)
    tree.graph.updateTraitsIfNeeded()
    #expect(tree.a.invalidations(of: .layout) == 1)
  }

  @Test(
    "reads through the run's first collection after a write count with that collection's values"
  )
  func readsThroughFirstCollectionAfterWrite() {
    let tree = TTTree()
    tree.a.track(.layout) {
      let first = tree.a.traitCollection
      _ = first.userInterfaceStyle
      tree.a.traitOverrides.verticalSizeClass = .regular
      _ = tree.a.traitCollection.horizontalSizeClass
      // The first collection still holds `.unspecified`, the value this read uses.
      #expect(first.verticalSizeClass == .unspecified)
    }
    // The node now holds `.regular`: a change of what the run read.
    tree.graph.updateTraitsIfNeeded()
    #expect(tree.a.invalidations(of: .layout) == 1)
  }

  @Test("a run that read its first collection after the newer one is invalidated")
  func oldCollectionReadAfterNewerOne() {
    let tree = TTTree()
    var read: [UserInterfaceSizeClass] = []
    tree.a.track(.layout) {
      let first = tree.a.traitCollection
      tree.a.traitOverrides.verticalSizeClass = .regular
      read.append(tree.a.traitCollection.verticalSizeClass)
      read.append(first.verticalSizeClass)
    }
    #expect(read == [.regular, .unspecified])
    // The run used `.unspecified`, which the node no longer holds.
    #expect(tree.invalidationsOfNextPass() == 1)
  }

  @Test("a collection that a run's reads replaced goes when the run ends")
  func replacedCollectionGoesAtRunEnd() {
    let tree = TTTree()
    var deinits = 0
    tree.a.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload { deinits += 1 }
    tree.graph.updateTraitsIfNeeded()
    tree.a.track(.layout) {
      _ = tree.a.traitCollection[GTThemeTrait.self]
      tree.a.traitOverrides[GTDeinitPayloadTrait.self] = nil
      _ = tree.a.traitCollection[GTDeinitPayloadTrait.self]
      #expect(deinits == 0)
    }
    #expect(deinits == 1)
  }

  @Test("a value's deinitializer that changes the node as a replaced collection goes is safe")
  func deinitializerChangingNodeAsReplacedCollectionGoes() {
    let tree = TTTree()
    let view = tree.a
    view.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload { [unowned view] in
      view.traitOverrides[GTThemeTrait.self] = 7
      _ = view.traitCollection
    }
    tree.graph.updateTraitsIfNeeded()
    view.track(.layout) {
      _ = view.traitCollection[GTThemeTrait.self]
      view.traitOverrides[GTDeinitPayloadTrait.self] = nil
      _ = view.traitCollection[GTDeinitPayloadTrait.self]
    }
    view.traitOverrides[GTFlagTrait.self] = true
    var read: [Bool] = []
    view.track(.layout) { read.append(view.traitCollection[GTFlagTrait.self]) }
    #expect(read == [true])
    #expect(view.traitCollection[GTThemeTrait.self] == 7)
    // The last run read the flag only.
    #expect(tree.invalidationsOfNextPass() == 0)
    view.traitOverrides[GTFlagTrait.self] = false
    #expect(tree.invalidationsOfNextPass() == 1)
  }

  @Test("a pass that the end of a run asks for may remove the run's slot")
  func passAskedForByRunEndRemovesSlot() {
    let tree = TTTree()
    tree.graph.onNeedsUpdate = { [unowned graph = tree.graph] in graph.updateTraitsIfNeeded() }
    var invalidations = 0
    let removeSlot: (TraitNode) -> Void = { node in
      invalidations += 1
      node.removeTraitTracking(slot: .layout)
    }
    tree.a.withTraitTracking(slot: .layout, invalidation: removeSlot) {
      let first = tree.a.traitCollection
      tree.a.traitOverrides[GTThemeTrait.self] = 3
      _ = first[GTThemeTrait.self]
    }
    #expect(invalidations == 1)
    tree.a.traitOverrides[GTThemeTrait.self] = 4
    tree.graph.updateTraitsIfNeeded()
    #expect(invalidations == 1)
  }

  @Test("a run that read mixed values of a node it then let go of ends safely")
  func mixedReadsOfNodeGoneDuringRun() {
    let tree = TTTree()
    tree.a.track(.layout) {
      var child: TTView? = TTView()
      tree.b.addTraitChild(child!)
      let first = child!.traitCollection
      _ = first[GTThemeTrait.self]
      child!.traitOverrides[GTThemeTrait.self] = 3
      _ = child!.traitCollection[GTThemeTrait.self]
      child!.removeFromTraitParent()
      child = nil
    }
    // The node the run read is gone: nothing is left to invalidate.
    #expect(tree.invalidationsOfNextPass() == 0)
  }

  @Test(
    "a dependency that a run's end drops may let go of a value whose deinitializer removes the slot",
    arguments: [false, true]
  )
  func droppedDependencyValueRemovesSlot(runChangesTree: Bool) {
    let tree = TTTree()
    let view = tree.a
    var other: TTView? = TTView()
    tree.b.addTraitChild(other!)
    var deinits = 0
    other!.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload { [unowned view] in
      deinits += 1
      view.removeTraitTracking(slot: .layout)
    }
    tree.graph.updateTraitsIfNeeded()
    view.track(.layout) { _ = other!.traitCollection[GTDeinitPayloadTrait.self] }
    other!.removeFromTraitParent()
    other = nil
    tree.graph.updateTraitsIfNeeded()
    #expect(deinits == 0)
    // This run reads `view` only: the dependency on the gone node, the last holder of its
    // collection, is dropped as the run ends.
    view.track(.layout) {
      _ = view.traitCollection.horizontalSizeClass
      if runChangesTree { view.traitOverrides[GTThemeTrait.self] = 1 }
    }
    #expect(deinits == 1)
    // The deinitializer removed the slot: a change of what the run read invalidates nothing.
    tree.graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
  }
}
