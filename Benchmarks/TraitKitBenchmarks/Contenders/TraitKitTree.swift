import TraitKit

/// A TraitKit graph with the nodes of a `TreeShape`; node 0 is the graph's root.
final class TraitKitTree {
  let graph: TraitGraph
  let nodes: [TraitNode]

  init(_ shape: TreeShape, makeNode: () -> TraitNode = { TraitNode() }) {
    graph = TraitGraph()
    var nodes = [graph.root]
    nodes.reserveCapacity(shape.count)
    for index in 1..<shape.count {
      let node = makeNode()
      nodes[shape.parent[index]].addTraitChild(node)
      nodes.append(node)
    }
    self.nodes = nodes
  }

  /// Sets trait `trait` to `value` at `node` and runs the update pass.
  func write(_ node: Int, trait: Int, value: Int) {
    BenchTraits.write[trait](&nodes[node].traitOverrides, value)
    graph.updateTraitsIfNeeded()
  }
}
