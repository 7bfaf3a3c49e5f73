import Testing

@testable import TraitKit

// A handler in one graph's pass that moves nodes into another graph and runs that graph's pass
// can leave the second graph clean with changes pending at the moved nodes: the first pass's
// walk keeps what reached them, as it does for any node it goes past. Those changes are stale,
// since the move marked the moved nodes for the next pass and that pass delivered. A subtree
// pass of the second graph then finds them, and the graph goes from clean to dirty: R5 says
// that calls `onNeedsUpdate`, or the host never runs the pass that the next change needs.

/// A host that runs a graph's pass only when `onNeedsUpdate` asked for one.
private final class RequestingHost {
  let graph: TraitGraph
  private(set) var requests = 0
  private var served = 0

  init(_ graph: TraitGraph) {
    self.graph = graph
    graph.onNeedsUpdate = { [unowned self] in requests += 1 }
  }

  /// Runs the pass if a request came since the last one it ran or ignored.
  func runIfRequested() {
    guard requests > served else { return }
    served = requests
    graph.updateTraitsIfNeeded()
  }

  /// Forgets the requests so far, as a host does once its pass ran.
  func markServed() {
    served = requests
  }
}

/// The nodes, among `nodes`, that have a registration for the size class which last heard of a
/// value other than the node's current one.
private final class SizeClassWatches {
  private var heard: [ObjectIdentifier: UserInterfaceSizeClass] = [:]
  private let nodes: [GTNode]

  init(_ nodes: [GTNode]) {
    self.nodes = nodes
    for node in nodes {
      heard[ObjectIdentifier(node)] = node.traitCollection.horizontalSizeClass
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned self] (node: GTNode, _: TraitCollection) in
        heard[ObjectIdentifier(node)] = node.traitCollection.horizontalSizeClass
      }
    }
  }

  var stale: [String] {
    nodes.filter { heard[ObjectIdentifier($0)] != $0.traitCollection.horizontalSizeClass }
      .map(\.name)
  }
}

@Suite("Changes left pending in another graph")
struct CrossGraphPendingTests {
  @Test(
    "a subtree pass that finds changes another graph's pass left pending asks for a pass (R5)"
  )
  func subtreePassFindsChangesLeftByAnotherGraphsWalk() {
    let first = TraitGraph()
    let second = TraitGraph()
    let (parent, mover, sibling, last, host) = (
      GTNode("parent"), GTNode("mover"), GTNode("sibling"), GTNode("last"), GTNode("host")
    )
    first.root.addTraitChild(parent)
    parent.gtAdd(mover, sibling, last)
    second.root.addTraitChild(host)
    first.updateTraitsIfNeeded()
    second.updateTraitsIfNeeded()
    let requests = RequestingHost(second)
    let watches = SizeClassWatches([mover, sibling, last, host])
    // The first child's handler moves its parent into the second graph and runs that graph's
    // pass; the first graph's walk then goes on to the siblings, now in the second graph.
    mover.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned second, unowned host, unowned parent] (_: GTNode, _: TraitCollection) in
      guard parent.traitParent !== host else { return }
      host.addTraitChild(parent)
      second.updateTraitsIfNeeded()
    }

    first.root.traitOverrides.horizontalSizeClass = .compact
    first.updateTraitsIfNeeded()
    #expect(parent.traitParent === host)
    #expect(requests.requests == 1)
    requests.markServed()
    #expect(watches.stale.isEmpty)

    sibling.updateTraitsIfNeeded()
    host.traitOverrides.horizontalSizeClass = .regular
    #expect(requests.requests == 2)
    requests.runIfRequested()
    #expect(watches.stale.isEmpty, "stale: \(watches.stale)")
  }

  @Test("a node whose handler moves it into another graph: a subtree pass there asks for a pass")
  func handlerMovesItsNodeIntoAnotherGraph() {
    let first = TraitGraph()
    let second = TraitGraph()
    let (node, child, host) = (GTNode("node"), GTNode("child"), GTNode("host"))
    first.root.addTraitChild(node)
    node.addTraitChild(child)
    second.root.addTraitChild(host)
    first.updateTraitsIfNeeded()
    second.updateTraitsIfNeeded()
    let requests = RequestingHost(second)
    // The node's first registration moves it into the second graph and runs that graph's pass;
    // the first graph's delivery to the node's later registrations stops there.
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned second, unowned host] (node: GTNode, _: TraitCollection) in
      guard node.traitParent !== host else { return }
      host.addTraitChild(node)
      second.updateTraitsIfNeeded()
    }
    let watches = SizeClassWatches([node, child, host])

    first.root.traitOverrides.horizontalSizeClass = .compact
    first.updateTraitsIfNeeded()
    #expect(node.traitParent === host)
    requests.markServed()
    #expect(watches.stale.isEmpty)

    let before = requests.requests
    child.updateTraitsIfNeeded()
    second.root.traitOverrides.horizontalSizeClass = .regular
    #expect(requests.requests == before + 1)
    requests.runIfRequested()
    #expect(watches.stale.isEmpty, "stale: \(watches.stale)")
  }
}
