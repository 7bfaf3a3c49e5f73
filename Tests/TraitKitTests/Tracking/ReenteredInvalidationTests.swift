import Testing
import TraitKit

// A slot's invalidation may move its node into another graph and run that graph's pass, whose
// visit of the node compares the node's slots again (a nested call for the same node), and then
// move the node back. The first visit's slots after it must still be compared with the node's
// collection once it is back, in the round that found the change, before the node's
// registrations (R5: invalidations first; R11). Found by a review of the loop over the recorded
// reads of a node (`_NodeTracking.invalidate`): the nested call dropped there the reads of a
// slot removed since, ahead of the outer call's position, so that the next slot's reads moved
// onto a position the outer call had passed, and were compared only in a follow-up round, after
// the node's registrations had heard of the change.

@Suite("Invalidations that re-enter their node")
struct ReenteredInvalidationTests {
  @Test("a slot after an invalidation that moves its node away and back hears first, once")
  func slotAfterAnInvalidationThatMovesItsNodeAwayAndBack() {
    let world = LoggingNode.World()
    let first = world.graph("A")
    // B holds the values the node had before A's change: its pass finds nothing to tell "second"
    // and "third".
    let second = world.graph("B")
    let node = LoggingNode(world)
    first.root.addTraitChild(node)
    // Compared in this order: "first", "second", "third".
    node.trackHorizontal("first")
    node.trackHorizontal("second")
    node.trackHorizontal("third")
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned world] (node: LoggingNode, previous: TraitCollection) in
      world.log.append(
        "registration: \(previous.horizontalSizeClass) → \(node.traitCollection.horizontalSizeClass)"
      )
    }
    // "first" removes itself, so that its reads of the node die, moves the node into B and runs
    // B's pass, which drops those reads as it compares the node's other slots, and moves the node
    // back into A. Once.
    node.onInvalidation["first"] = { [unowned world, unowned first, unowned second] node in
      node.onInvalidation["first"] = nil
      node.removeTraitTracking(slot: TraitTrackingSlot("first"))
      second.root.addTraitChild(node)
      world.pass(second)
      first.root.addTraitChild(node)
    }

    first.root.traitOverrides.horizontalSizeClass = .compact
    world.pass(first)
    #expect(
      world.take() == [
        "first in A during A",
        "second in A during A",
        "third in A during A",
        "registration: unspecified → compact",
      ]
    )
    #expect(first.statistics.lastPass.invalidationsDelivered == 3)

    // Nothing is left for another pass; the slots' baselines are A's collection.
    world.pass(first)
    world.pass(second)
    #expect(world.take().isEmpty)
    first.root.traitOverrides.horizontalSizeClass = .regular
    world.pass(first)
    #expect(
      world.take() == [
        "second in A during A", "third in A during A", "registration: compact → regular",
      ]
    )
  }
}
