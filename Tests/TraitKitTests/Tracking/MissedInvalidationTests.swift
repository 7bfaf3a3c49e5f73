import Testing

@testable import TraitKit

// A slot's invalidation may move its node into another graph and run that graph's pass, whose
// visit of the node runs another slot's invalidation, which moves the node back, under an
// override, before the slots after it are compared. The node's remaining slots must still hear
// of what changed for them (R11), in the pass of the graph the node is back in (R10). Found by
// the in-run tracking differential test (seed 0x5eed0608, sequence 23964): the inner visit took
// the change that the node's first move left pending, and dropped it when the node left; the
// move back marked only the moved subtree's root, from which the override shielded the node,
// and the outer visit had compared that slot already.

@Suite("Missed invalidations")
struct MissedInvalidationTests {
  @Test(
    "a slot compared before its node went away and came back under an override hears of the change"
  )
  func slotComparedBeforeTheNodeLeftAndCameBackHearsOfTheChange() {
    let world = LoggingNode.World()
    let first = world.graph("A")
    let second = world.graph("B")
    // In B, a carrier holds a shield, which overrides every trait the node's slots read, so
    // that no change above the shield reaches the node.
    let carrier = TraitNode()
    let shield = TraitNode()
    shield.traitOverrides.horizontalSizeClass = .compact
    shield.traitOverrides.verticalSizeClass = .compact
    shield.traitOverrides.userInterfaceStyle = .dark
    second.root.addTraitChild(carrier)
    carrier.addTraitChild(shield)
    let node = LoggingNode(world)
    first.root.addTraitChild(node)
    // Compared in this order: "back", "reader", "away".
    node.track("back") { _ = $0.traitCollection.horizontalSizeClass }
    node.track("reader") { _ = $0.traitCollection.verticalSizeClass }
    node.track("away") { _ = $0.traitCollection.userInterfaceStyle }
    // "away" moves the node under the shield, into B, and runs B's pass; there, "back", which
    // read the horizontal size class, moves the carrier into A, with the shield and the node,
    // before "reader" is compared. A's visit compared "reader" before the node left, and the
    // move back marks the carrier, whose changes the shield keeps from the node.
    // Each runs once.
    node.onInvalidation["away"] = { [unowned world, unowned second, unowned shield] node in
      node.onInvalidation["away"] = nil
      shield.addTraitChild(node)
      world.pass(second)
    }
    node.onInvalidation["back"] = { [unowned first, unowned carrier] node in
      node.onInvalidation["back"] = nil
      first.root.addTraitChild(carrier)
    }

    first.root.traitOverrides.userInterfaceStyle = .dark
    world.pass(first)
    // "reader" read the vertical size class unspecified in A; the node is back in A, where the
    // shield makes it compact: A's pass invalidates it.
    #expect(
      world.take() == ["away in A during A", "back in B during B", "reader in A during A"]
    )
    world.pass(first)
    world.pass(second)
    #expect(world.take().isEmpty)
    #expect(node.traitCollection.verticalSizeClass == .compact)
  }
}
