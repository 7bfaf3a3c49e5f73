import Testing
import TraitKit

// A pass of another graph that runs inside a pass (an invalidation moves a node there and runs
// that graph's pass, as the host in `InvalidationChangesTreeTests` does) may invalidate a slot
// that the outer pass invalidated already: the nested pass is another pass. The outer pass must
// then still invalidate that slot at most once (R11: "at most once per pass — once more if the
// slot runs again during that pass"). Found by the tightened oracle of
// `TrackingInRunChangesDifferentialTests`: a slot's record kept only the last pass that
// invalidated it (`_TrackingRecord.invalidatedInPass`), so after the nested pass the outer one
// invalidated the slot again when it visited another node the slot read.

@Suite("Invalidations in nested passes")
struct NestedPassInvalidationTests {
  @Test(
    "a slot invalidated in a pass and in a pass nested in it is not invalidated again in the first"
  )
  func slotInvalidatedInANestedPassIsNotInvalidatedAgainInTheOuterPass() {
    let passes = LoggingNode.World()
    let first = passes.graph("A")
    let second = passes.graph(
      "B",
      base: TraitCollection(TraitHorizontalSizeClass.self, value: .regular)
    )
    // The slot lives on `owner` and reads the size class of `owner`, `moved` and `last`, visited
    // in that order.
    let (owner, moved, last) = (TraitNode(), TraitNode(), TraitNode())
    for node in [owner, moved, last] { first.root.addTraitChild(node) }
    var onInvalidation: (() -> Void)?
    let invalidation: (TraitNode) -> Void = { [unowned passes] _ in
      passes.log.append("invalidated during \(passes.passes.last ?? "none")")
      onInvalidation?()
    }
    owner.withTraitTracking(slot: .layout, invalidation: invalidation) {
      for node in [owner, moved, last] { _ = node.traitCollection.horizontalSizeClass }
    }
    // The first invalidation moves `moved` into B and runs B's pass, which finds its size class
    // changed again (regular there).
    onInvalidation = { [unowned passes, unowned second] in
      onInvalidation = nil
      second.root.addTraitChild(moved)
      passes.pass(second)
    }

    first.root.traitOverrides.horizontalSizeClass = .compact
    passes.pass(first)
    // A's pass invalidates the slot once, at `owner`; B's nested pass once, at `moved`; A's pass,
    // which then visits `last`, whose change the slot has heard of in this pass, not again.
    #expect(passes.take() == ["invalidated during A", "invalidated during B"])

    // Once it runs again, the next change invalidates it again, once.
    owner.withTraitTracking(slot: .layout, invalidation: invalidation) {
      for node in [owner, last] { _ = node.traitCollection.horizontalSizeClass }
    }
    first.root.traitOverrides.horizontalSizeClass = .regular
    passes.pass(first)
    #expect(passes.take() == ["invalidated during A"])
  }
}
