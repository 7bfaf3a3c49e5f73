import Testing
import TraitKit

// User code runs in the middle of a pass: handlers, invalidations, `onNeedsUpdate`, and the
// deinitializers of what they let go. Whatever it does to the tree, the pass keeps what it walks
// alive and tells every registration exactly what changed. Each test here crashed, read freed
// memory under AddressSanitizer, or miscounted before the engine handled its case.

/// A second `Int` trait, so that a test can change one trait and watch another.
private typealias STheme = VTCountTrait
private typealias SOther = VTOtherCountTrait

/// Holds a graph that a test lets go of from inside the engine.
private final class SGraphHolder {
  var graph: TraitGraph?
}

/// Adds `node` to `graph` when it goes.
private final class SMover {
  let node: TraitNode
  let graph: TraitGraph

  init(_ node: TraitNode, to graph: TraitGraph) {
    self.node = node
    self.graph = graph
  }

  deinit { graph.root.addTraitChild(node) }
}

/// A node that runs `onDeinit` when it goes.
private final class SDyingNode: TraitNode {
  var onDeinit: () -> Void = {}

  deinit { onDeinit() }
}

@Suite("Update pass: user code that runs during a pass")
struct PassReentrancyTests {
  @Test("a handler that detaches its node inside performAsCurrent runs to its end")
  func detachInsidePerformAsCurrent() {
    let graph = TraitGraph()
    weak var weakCaptured: GTCaptured?
    var capturedAtEnd = false
    do {
      let node = GTNode("node")
      graph.root.addTraitChild(node)
      let captured = GTCaptured()
      weakCaptured = captured
      node.registerForTraitChanges([STheme.self]) { (node: GTNode, _: TraitCollection) in
        TraitCollection().performAsCurrent { node.removeFromTraitParent() }
        capturedAtEnd = weakCaptured != nil
        _ = captured
      }
    }

    graph.root.traitOverrides[STheme.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(capturedAtEnd)
    #expect(weakCaptured == nil)
  }

  @Test(
    "a node detached during a pass goes once, though its deinitializer runs a pass of the graph",
    arguments: [false, true]
  )
  func buriedNodeRunsPassAsItGoes(subtreePass: Bool) {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let other = GTNode("other")
    graph.root.addTraitChild(parent)
    graph.root.addTraitChild(other)
    var otherCalls = 0
    other.registerForTraitChanges([STheme.self]) { (_: GTNode, _: TraitCollection) in
      otherCalls += 1
    }
    var deinits = 0
    var doomed: SDyingNode? = SDyingNode()
    parent.addTraitChild(doomed.unsafelyUnwrapped)
    // The pass keeps the node it detaches until it ends; then the node goes, and its
    // deinitializer changes another node and runs a pass.
    doomed.unsafelyUnwrapped.onDeinit = { [unowned graph, unowned other] in
      deinits += 1
      other.traitOverrides[STheme.self] = deinits
      if subtreePass { other.updateTraitsIfNeeded() } else { graph.updateTraitsIfNeeded() }
    }
    parent.registerForTraitChanges([STheme.self]) { (_: GTNode, _: TraitCollection) in
      doomed?.removeFromTraitParent()
      doomed = nil
    }

    parent.traitOverrides[STheme.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(deinits == 1)
    #expect(otherCalls == 1)
    #expect(other.traitCollection[STheme.self] == 1)
  }

  @Test("onNeedsUpdate may let go of the graph it reports")
  func onNeedsUpdateDropsTheGraph() {
    let holder = SGraphHolder()
    let node = TraitNode()
    weak var weakGraph: TraitGraph?
    do {
      let graph = TraitGraph()
      weakGraph = graph
      graph.root.addTraitChild(node)
      node.registerForTraitChanges([STheme.self]) { (_: TraitNode, _: TraitCollection) in }
      graph.updateTraitsIfNeeded()
      graph.onNeedsUpdate = { [unowned holder] in holder.graph = nil }
      holder.graph = graph
    }

    node.traitOverrides[STheme.self] = 1

    #expect(weakGraph == nil)
    #expect(node.traitCollection[STheme.self] == 1)
  }

  @Test("a baseline that a nested pass of another graph replaces is handed over intact")
  func nestedPassesOfAnotherGraphDuringADelivery() {
    let graph = TraitGraph()
    let holder = SGraphHolder()
    holder.graph = TraitGraph()
    let parent = TraitNode()
    graph.root.addTraitChild(parent)
    let node = TraitNode()
    parent.addTraitChild(node)
    var moved = false
    node.registerForTraitChanges([STheme.self]) {
      [unowned parent] (node: TraitNode, _: TraitCollection) in
      guard !moved, let other = holder.graph else { return }
      moved = true
      other.root.addTraitChild(node)
      other.root.traitOverrides[STheme.self] = 10
      other.updateTraitsIfNeeded()
      other.root.traitOverrides[STheme.self] = 11
      other.updateTraitsIfNeeded()
      parent.addTraitChild(node)
      holder.graph = nil
    }
    var seen: [[Int]] = []
    node.registerForTraitChanges([STheme.self]) { (node: TraitNode, previous: TraitCollection) in
      seen.append([previous[STheme.self], node.traitCollection[STheme.self]])
    }
    graph.updateTraitsIfNeeded()

    graph.root.traitOverrides[STheme.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(seen == [[0, 10], [10, 11], [11, 1]])
  }

  @Test("a legacy callback whose baseline its own callback lets go is judged against it")
  func legacyBaselineFreedDuringTheCallback() {
    // The first base collection ends up held only by the baseline the two registrations share.
    let graph = TraitGraph(baseTraits: TraitCollection { $0[SOther.self] = 5 })
    let node = TraitNode()
    graph.root.addTraitChild(node)
    let sharing = node.registerForTraitChanges([SOther.self]) {
      (_: TraitNode, _: TraitCollection) in
    }
    var legacyCalls = 0
    _ = node._registerForAllTraitChanges(interestingTraits: [STheme.self]) { node, _ in
      legacyCalls += 1
      node.removeFromTraitParent()
      TraitCollection().performAsCurrent { node.unregisterForTraitChanges(sharing) }
    }
    graph.updateTraitsIfNeeded()

    graph.baseTraits = TraitCollection {
      $0[SOther.self] = 5
      $0[STheme.self] = 2
    }
    graph.updateTraitsIfNeeded()

    #expect(legacyCalls == 1)
    #expect(graph.statistics.lastPass.legacyCallbacksDelivered == 1)
    #expect(graph.statistics.lastPass.wastedLegacyCallbacks == 0)
  }

  @Test("an invalidation that pins its node's trait back tells the registrations nothing")
  func invalidationThatUndoesAChange() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    node.withTraitTracking(
      slot: .layout,
      invalidation: { $0.traitOverrides[STheme.self] = 0 },
      { _ = node.traitCollection[STheme.self] }
    )
    var calls = 0
    node.registerForTraitChanges([STheme.self]) { (_: TraitNode, _: TraitCollection) in
      calls += 1
    }

    graph.root.traitOverrides[STheme.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(node.traitCollection[STheme.self] == 0)
    #expect(calls == 0)
  }

  @Test("unregistering counts the registration in the graph it was in, whatever its release does")
  func releaseThatMovesTheNode() {
    let first = TraitGraph()
    let second = TraitGraph()
    let node = TraitNode()
    first.root.addTraitChild(node)
    var token: TraitChangeRegistration?
    do {
      let mover = SMover(node, to: second)
      token = node.registerForTraitChanges([STheme.self]) { (_: TraitNode, _: TraitCollection) in
        _ = mover
      }
    }

    node.unregisterForTraitChanges(token)

    #expect(node.traitParent === second.root)
    #expect(first.statistics.liveRegistrations == 0)
    #expect(second.statistics.liveRegistrations == 0)
  }

  @Test("a change made as the pass lets go of a detached node is delivered by the next pass")
  func changeMadeByADeinitializerAtThePassEnd() {
    let graph = TraitGraph()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }
    let watched = TraitNode()
    graph.root.addTraitChild(watched)
    var heard: [Int] = []
    watched.registerForTraitChanges([SOther.self]) { (node: TraitNode, _: TraitCollection) in
      heard.append(node.traitCollection[SOther.self])
    }
    do {
      let dying = SDyingNode()
      dying.onDeinit = { [unowned watched] in watched.traitOverrides[SOther.self] = 7 }
      graph.root.addTraitChild(dying)
      dying.registerForTraitChanges([STheme.self]) { (node: TraitNode, _: TraitCollection) in
        node.removeFromTraitParent()
      }
    }
    graph.root.traitOverrides[STheme.self] = 1
    #expect(requests == 1)

    graph.updateTraitsIfNeeded()
    #expect(requests == 2)
    #expect(heard.isEmpty)

    graph.updateTraitsIfNeeded()
    #expect(heard == [7])
  }
}
