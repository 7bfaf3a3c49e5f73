import Testing
import TraitKit

/// A 10-ary tree four levels deep (11 111 nodes) in which only one depth-3 node and its ten
/// leaves observe the horizontal size class.
private struct ObservedCorner {
  let tree: GTUniformTree
  /// The depth-3 node whose subtree observes.
  let corner: TraitNode
  /// The corner and its leaves, in pre-order.
  let observers: [TraitNode]
  let counter = GTCounter()

  init() {
    tree = GTUniformTree(arity: 10, depth: 4)
    corner = tree.levels[3][537]
    observers = tree.subtree(of: corner)
    for node in observers {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [counter] (_: TraitNode, _: TraitCollection) in
        counter.value += 1
      }
    }
    tree.graph.updateTraitsIfNeeded()
  }

  var graph: TraitGraph { tree.graph }
  /// The nodes from the root down to the corner's parent.
  var pathLength: Int { 3 }
}

@Suite("Cost model")
struct CostModelTests {
  @Test("the fixture has the size the cost assertions assume")
  func fixtureSize() {
    let fixture = ObservedCorner()
    #expect(fixture.tree.nodeCount == 11_111)
    #expect(fixture.graph.statistics.liveNodes == 11_111)
    #expect(fixture.graph.statistics.liveRegistrations == 11)
    #expect(fixture.observers.count == 11)
    #expect(fixture.counter.value == 0)
  }

  @Test("a root change visits the path to the observers and their subtree, not the whole tree")
  func rootChangeCostFollowsObservers() {
    let fixture = ObservedCorner()

    fixture.graph.root.traitOverrides.horizontalSizeClass = .compact
    fixture.graph.updateTraitsIfNeeded()

    let pass = fixture.graph.statistics.lastPass
    #expect(fixture.counter.value == 11)
    #expect(pass.callbacksDelivered == 11)
    #expect(pass.rounds == 1)
    #expect(pass.nodesVisited >= 11)
    #expect(pass.nodesVisited <= fixture.pathLength + fixture.observers.count)
  }

  @Test("a change inside the observed subtree visits only its path and that subtree")
  func innerChangeCostFollowsObservers() {
    let fixture = ObservedCorner()

    fixture.corner.traitOverrides.horizontalSizeClass = .regular
    fixture.graph.updateTraitsIfNeeded()

    let pass = fixture.graph.statistics.lastPass
    #expect(fixture.counter.value == 11)
    #expect(pass.nodesVisited <= fixture.pathLength + fixture.observers.count)
  }

  @Test("writing a value the root already has visits no node and runs no round")
  func equalWriteCostsNothing() {
    let fixture = ObservedCorner()
    fixture.graph.root.traitOverrides.horizontalSizeClass = .compact
    fixture.graph.updateTraitsIfNeeded()
    fixture.counter.value = 0

    fixture.graph.root.traitOverrides.horizontalSizeClass = .compact
    fixture.graph.updateTraitsIfNeeded()

    #expect(fixture.graph.statistics.lastPass.nodesVisited == 0)
    #expect(fixture.graph.statistics.lastPass.rounds == 0)
    #expect(fixture.counter.value == 0)
  }

  @Test("a root change of a trait nobody observes visits at most the root")
  func unobservedTraitCostsAtMostOneNode() {
    let fixture = ObservedCorner()

    fixture.graph.root.traitOverrides.verticalSizeClass = .compact
    fixture.graph.root.traitOverrides.userInterfaceStyle = .dark
    fixture.graph.updateTraitsIfNeeded()

    #expect(fixture.graph.statistics.lastPass.nodesVisited <= 1)
    #expect(fixture.graph.statistics.lastPass.callbacksDelivered == 0)
    #expect(fixture.counter.value == 0)
  }

  @Test("a change of an observed trait in a branch without observers visits at most its path")
  func observedTraitInUnobservedBranch() throws {
    let fixture = ObservedCorner()
    let farLeaf = try #require(fixture.tree.levels[4].first)

    farLeaf.traitOverrides.horizontalSizeClass = .regular
    fixture.graph.updateTraitsIfNeeded()

    #expect(fixture.graph.statistics.lastPass.nodesVisited <= 5)
    #expect(fixture.counter.value == 0)
  }

  @Test("unobserved children of a wide node are not visited")
  func wideNodeSkipsUnobservedChildren() {
    let graph = TraitGraph()
    var children: [TraitNode] = []
    for _ in 0..<10_000 {
      let child = TraitNode()
      graph.root.addTraitChild(child)
      children.append(child)
    }
    var calls = 0
    children[6_000].registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: TraitNode, _: TraitCollection) in
      calls += 1
    }
    graph.updateTraitsIfNeeded()

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(calls == 1)
    #expect(graph.statistics.lastPass.nodesVisited <= 2)
  }

  @Test("a nearer override shields its subtree: a root change reaches only the unshielded branch")
  func nearerOverridesShield() {
    let tree = GTUniformTree(arity: 10, depth: 4)
    let firstLevel = tree.levels[1]
    for branch in firstLevel.dropLast() {
      branch.traitOverrides.horizontalSizeClass = .regular
    }
    let counter = GTCounter()
    for leaf in tree.levels[4] {
      leaf.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [counter] (_: TraitNode, _: TraitCollection) in
        counter.value += 1
      }
    }
    tree.graph.updateTraitsIfNeeded()
    #expect(tree.graph.statistics.liveRegistrations == 10_000)
    let unshieldedBranchSize = tree.subtree(of: firstLevel[9]).count
    #expect(unshieldedBranchSize == 1_111)

    tree.graph.root.traitOverrides.horizontalSizeClass = .compact
    tree.graph.updateTraitsIfNeeded()

    #expect(counter.value == 1_000)
    #expect(tree.graph.statistics.lastPass.callbacksDelivered == 1_000)
    #expect(tree.levels[4][0].traitCollection.horizontalSizeClass == .regular)
    #expect(tree.levels[4][9_999].traitCollection.horizontalSizeClass == .compact)
    // The root, the ten first-level nodes, and the unshielded branch below its top.
    #expect(tree.graph.statistics.lastPass.nodesVisited <= 1 + 10 + unshieldedBranchSize - 1)

  }

  @Test("a root change reaches no observer that a nearer override shields")
  func shieldedObserversOnly() {
    let tree = GTUniformTree(arity: 10, depth: 3)
    let counter = GTCounter()
    for branch in tree.levels[1] {
      branch.traitOverrides.horizontalSizeClass = .regular
    }
    for leaf in tree.levels[3] {
      leaf.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [counter] (_: TraitNode, _: TraitCollection) in
        counter.value += 1
      }
    }
    tree.graph.updateTraitsIfNeeded()

    tree.graph.root.traitOverrides.horizontalSizeClass = .compact
    tree.graph.updateTraitsIfNeeded()

    #expect(counter.value == 0)
    #expect(tree.graph.statistics.lastPass.callbacksDelivered == 0)
  }
}
