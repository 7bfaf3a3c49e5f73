import Testing

@testable import TraitKit

// An invalidation is user code that runs in the pass, and may change the node's traits, detach
// it, or move it into another graph and run that graph's pass. The node's other slots then
// follow the node as registrations do: those after it compare with the node's collection as it
// is now, and none hears of anything from a pass of a graph the node has left (R10, R11). Found
// by a review probe: the pass went on with every slot of the node, comparing with the
// collection it had before the first invalidation.

@Suite("Invalidations that change the tree")
struct InvalidationChangesTreeTests {
  @Test("an invalidation that detaches its node leaves the node's other slots until it is back")
  func invalidationDetachesItsNode() {
    let world = LoggingNode.World()
    let graph = world.graph("A")
    let node = LoggingNode(world)
    graph.root.addTraitChild(node)
    node.trackHorizontal("first")
    node.trackHorizontal("second")
    node.onInvalidation["first"] = { $0.removeFromTraitParent() }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    world.pass(graph)
    #expect(world.take() == ["first in A during A"])

    graph.root.addTraitChild(node)
    world.pass(graph)
    #expect(world.take() == ["second in A during A"])
    node.onInvalidation = [:]
  }

  @Test("an invalidation that moves its node into another graph leaves its other slots to it")
  func invalidationMovesItsNodeToAnotherGraph() {
    let world = LoggingNode.World()
    let first = world.graph("A")
    let second = world.graph(
      "B",
      base: TraitCollection(TraitHorizontalSizeClass.self, value: .regular)
    )
    let node = LoggingNode(world)
    first.root.addTraitChild(node)
    node.trackHorizontal("first")
    node.trackHorizontal("second")
    node.onInvalidation["first"] = { [unowned second] node in
      guard node.traitParent !== second.root else { return }
      second.root.addTraitChild(node)
    }

    first.root.traitOverrides.horizontalSizeClass = .compact
    world.pass(first)
    #expect(world.take() == ["first in A during A"])
    world.pass(second)
    #expect(world.take() == ["first in B during B", "second in B during B"])
    node.onInvalidation = [:]
  }

  @Test(
    "an invalidation that moves its node and runs the other graph's pass: each slot hears once"
  )
  func invalidationMovesItsNodeAndRunsTheOtherPass() {
    let world = LoggingNode.World()
    let first = world.graph("A")
    let second = world.graph(
      "B",
      base: TraitCollection(TraitHorizontalSizeClass.self, value: .regular)
    )
    let node = LoggingNode(world)
    first.root.addTraitChild(node)
    node.trackHorizontal("first")
    node.trackHorizontal("second")
    node.trackVertical("vertical")
    node.onInvalidation["first"] = { [unowned world, unowned second] node in
      guard node.traitParent !== second.root else { return }
      second.root.addTraitChild(node)
      world.pass(second)
    }

    first.root.traitOverrides.horizontalSizeClass = .compact
    world.pass(first)
    // The second slot hears of regular in B's pass, and of nothing in A's once the node left.
    #expect(
      world.take() == ["first in A during A", "first in B during B", "second in B during B"]
    )
    world.pass(second)
    #expect(world.take().isEmpty)

    // Its baseline is B's collection: a change it did not read leaves it alone.
    second.root.traitOverrides.verticalSizeClass = .compact
    world.pass(second)
    #expect(world.take() == ["vertical in B during B"])
    node.onInvalidation = [:]
  }

  @Test("an invalidation that changes its node's traits spares a later slot that read them since")
  func invalidationChangesTraitsAndRetracksALaterSlot() {
    let world = LoggingNode.World()
    let graph = world.graph("A")
    let node = LoggingNode(world)
    graph.root.addTraitChild(node)
    node.trackHorizontal("first")
    node.trackVertical("second")
    node.onInvalidation["first"] = { node in
      node.traitOverrides.verticalSizeClass = .compact
      // The layout runs again at once, reading the new value.
      node.trackVertical("second")
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    world.pass(graph)
    #expect(world.take() == ["first in A during A"])
    node.onInvalidation = [:]
  }

  @Test("an invalidation that changes its node's traits invalidates a later slot that read them")
  func invalidationChangesTraitsReadByALaterSlot() {
    let world = LoggingNode.World()
    let graph = world.graph("A")
    let node = LoggingNode(world)
    graph.root.addTraitChild(node)
    node.trackHorizontal("first")
    node.trackVertical("second")
    node.onInvalidation["first"] = { $0.traitOverrides.verticalSizeClass = .compact }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    world.pass(graph)
    #expect(world.take() == ["first in A during A", "second in A during A"])
    world.pass(graph)
    #expect(world.take().isEmpty)
    node.onInvalidation = [:]
  }
}
