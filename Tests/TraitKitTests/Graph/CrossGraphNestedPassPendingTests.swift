import Testing

@testable import TraitKit

// A round takes the changes pending at a node when it reaches it, and carries them to the node's
// observers and down its subtree. When user code that the round runs moves an ancestor of that
// node into another graph and runs that graph's pass, the move marks every trait pending at the
// moved node, but an override between it and the node shields the node from that mark: the
// other graph's pass then does not hear of the change the first round had taken, and the first
// round may no longer deliver it, since the node left its graph (R10). The change must stay
// pending in the other graph, which asks for a pass (R5), so that a pass delivers it. Found by
// the in-run tracking differential test (seed 0x5eed0605, sequence 9683).

/// Two graphs, A and B, that log their requests for a pass, and a log of invalidations and
/// handler calls, each with the pass it ran in.
private final class World {
  var graphs: [(name: String, graph: TraitGraph)] = []
  var passes: [String] = []
  var log: [String] = []
  var requests: [String] = []

  func graph(_ name: String) -> TraitGraph {
    let graph = TraitGraph()
    graphs.append((name, graph))
    graph.onNeedsUpdate = { [unowned self] in requests.append(name) }
    return graph
  }

  /// Runs `graph`'s pass, noting it as running.
  func pass(_ graph: TraitGraph) {
    passes.append(graphs.first { $0.graph === graph }?.name ?? "?")
    defer { passes.removeLast() }
    graph.updateTraitsIfNeeded()
  }

  func note(_ event: String) {
    log.append("\(event) during \(passes.last ?? "none")")
  }

  /// The log and the requests so far, emptied.
  func take() -> (log: [String], requests: [String]) {
    defer { (log, requests) = ([], []) }
    return (log, requests)
  }
}

/// Two graphs: A, empty, and B, whose root → `mover` → `shield` → `node`.
///
/// `shield` overrides the horizontal size class, and so does `node`, with another value. Both
/// graphs are clean.
///
/// A class, which the tests' handlers capture unowned: a handler that held the tree would hold
/// the node that holds the handler, a cycle that would leak the tree.
private final class Tree {
  let world: World
  let first: TraitGraph
  let second: TraitGraph
  let mover = TraitNode()
  let shield = TraitNode()
  let node = TraitNode()

  init() {
    let world = World()
    self.world = world
    first = world.graph("A")
    second = world.graph("B")
    second.root.addTraitChild(mover)
    mover.addTraitChild(shield)
    shield.addTraitChild(node)
    shield.traitOverrides.horizontalSizeClass = .regular
    node.traitOverrides.horizontalSizeClass = .compact
    world.pass(first)
    world.pass(second)
    _ = world.take()
  }

  /// Moves `mover` under A's root, once, and runs A's pass there.
  func moveIntoFirstAndRunItsPass() {
    guard mover.traitParent !== first.root else { return }
    first.root.addTraitChild(mover)
    world.pass(first)
  }
}

@Suite("Changes a round took from nodes that a nested pass's move took to another graph")
struct CrossGraphNestedPassPendingTests {
  @Test("an invalidation whose nested pass moves the node's ancestor: its other slot hears (R5)")
  func invalidationMovesAnAncestorIntoAnotherGraph() {
    let tree = Tree()
    let world = tree.world
    // Two slots read the node's size class; the first one's invalidation moves the node's
    // grandparent into A and runs A's pass, as a host's layout might.
    tree.node.withTraitTracking(
      slot: TraitTrackingSlot("first"),
      invalidation: { [unowned world, unowned tree] _ in
        world.note("first")
        tree.moveIntoFirstAndRunItsPass()
      },
      { _ = tree.node.traitCollection.horizontalSizeClass }
    )
    tree.node.withTraitTracking(
      slot: TraitTrackingSlot("second"),
      invalidation: { [unowned world] _ in world.note("second") },
      { _ = tree.node.traitCollection.horizontalSizeClass }
    )

    // The node now inherits regular from the shield. B's pass takes the change from the node;
    // in A, the move's mark at the mover does not reach the node through the shield.
    tree.node.traitOverrides.remove(TraitHorizontalSizeClass.self)
    world.pass(tree.second)
    #expect(tree.mover.traitParent === tree.first.root)
    let (log, requests) = world.take()
    #expect(log == ["first during B", "second during A"])
    #expect(requests == ["B", "A"])

    // Nothing is left for another pass.
    world.pass(tree.first)
    world.pass(tree.second)
    #expect(world.take() == ([], []))
  }

  @Test("a handler whose nested pass moves the node's ancestor: its other registration hears (R5)")
  func handlerMovesAnAncestorIntoAnotherGraph() {
    let tree = Tree()
    let world = tree.world
    tree.node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned world, unowned tree] (_: TraitNode, _: TraitCollection) in
      world.note("first")
      tree.moveIntoFirstAndRunItsPass()
    }
    tree.node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned world] (node: TraitNode, previous: TraitCollection) in
      world.note(
        "second: \(previous.horizontalSizeClass) → \(node.traitCollection.horizontalSizeClass)"
      )
    }

    tree.node.traitOverrides.remove(TraitHorizontalSizeClass.self)
    world.pass(tree.second)
    #expect(tree.mover.traitParent === tree.first.root)
    let (log, requests) = world.take()
    #expect(log == ["first during B", "second: compact → regular during A"])
    #expect(requests == ["B", "A"])

    world.pass(tree.first)
    world.pass(tree.second)
    #expect(world.take() == ([], []))
  }

  @Test("a handler whose nested pass moves the node's ancestor: a later sibling hears (R5)")
  func handlerMovesAnAncestorAheadOfASibling() {
    // The shield's own override changes: the round takes that change from the shield and
    // carries it to its children, the node and then a sibling after it.
    let tree = Tree()
    let world = tree.world
    let sibling = TraitNode()
    tree.shield.addTraitChild(sibling)
    tree.node.traitOverrides.remove(TraitHorizontalSizeClass.self)
    tree.node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned world, unowned tree] (_: TraitNode, _: TraitCollection) in
      world.note("node")
      tree.moveIntoFirstAndRunItsPass()
    }
    sibling.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned world] (node: TraitNode, previous: TraitCollection) in
      world.note(
        "sibling: \(previous.horizontalSizeClass) → \(node.traitCollection.horizontalSizeClass)"
      )
    }
    world.pass(tree.second)
    _ = world.take()

    tree.shield.traitOverrides.horizontalSizeClass = .compact
    world.pass(tree.second)
    #expect(tree.mover.traitParent === tree.first.root)
    let (log, requests) = world.take()
    #expect(log == ["node during B", "sibling: regular → compact during A"])
    #expect(requests == ["B", "A"])

    world.pass(tree.first)
    world.pass(tree.second)
    #expect(world.take() == ([], []))
  }
}
