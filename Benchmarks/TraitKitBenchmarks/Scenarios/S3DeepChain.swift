import Foundation
import TraitKit

/// S3: a chain of D nodes below the root with one observer of trait 0 at the leaf; each root
/// write must walk the whole chain, iteratively (D=8192 must not grow the stack).
struct S3DeepChain: Scenario {
  let id = "S3"
  let name = "Propagation.deepChain"
  let summary =
    "chain of D nodes, one observer of trait 0 at the leaf, alternating root writes; ns per "
    + "write (divide by D for ns per level)"

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    let depths = preset == .smoke ? [64, 1_024] : [64, 1_024, 8_192]
    return depths.map { [("D", $0)] }
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let depth = point["D"]
    // About the same number of levels walked per sample at every depth.
    let levels = preset.pick(smoke: 32_768, quick: 100_000, full: 256_000)
    let writes = max(2, levels / depth / 2 * 2)
    let shape = TreeShape.chain(depth)
    func workload(
      _ contender: Contender,
      _ pair: (run: () -> Int, visited: () -> Int)
    )
      -> Workload
    {
      Workload(
        contender,
        unit: "write",
        units: writes,
        operations: writes,
        expectedCallbacks: writes,
        nodesVisited: pair.visited,
        run: pair.run
      )
    }
    return [
      workload(.floor, floorRun(shape, writes)),
      workload(.traitkit, traitKitRun(shape, writes)),
      workload(.traitkitLegacy, legacyRun(shape, writes)),
      workload(.observation, observationRun(shape, writes)),
      workload(.notificationCenter, notificationRun(shape, writes)),
    ]
  }

  private func floorRun(_ shape: TreeShape, _ writes: Int) -> (run: () -> Int, visited: () -> Int) {
    let counter = CallbackCounter()
    let tree = FloorTree(shape)
    tree.observe(shape.count - 1, mask: 1) { counter.count += 1 }
    let run = {
      for write in 0..<writes { tree.write(0, trait: 0, value: (write & 1) ^ 1) }
      return counter.take()
    }
    return (run, { floorVisits(tree, of: run) })
  }

  private func traitKitRun(
    _ shape: TreeShape,
    _ writes: Int
  ) -> (
    run: () -> Int, visited: () -> Int
  ) {
    let counter = CallbackCounter()
    let tree = TraitKitTree(shape)
    tree.nodes[shape.count - 1].registerForTraitChanges([BenchTrait0.self]) {
      (_: TraitNode, _: TraitCollection) in counter.count += 1
    }
    let graph = tree.graph
    let root = graph.root
    let probe = VisitProbe()
    let run = {
      for write in 0..<writes {
        root.traitOverrides[BenchTrait0.self] = (write & 1) ^ 1
        graph.updateTraitsIfNeeded()
        probe.record(graph)
      }
      return counter.take()
    }
    return (run, { probe.visits(of: run) })
  }

  private func legacyRun(
    _ shape: TreeShape,
    _ writes: Int
  ) -> (
    run: () -> Int, visited: () -> Int
  ) {
    let counts = ObserverCounts()
    let leaf = shape.count - 1
    let tree = LegacyTraitKitTree(
      shape,
      slot: { _ in counts.slot(0) },
      interestingTraits: { $0 == leaf ? [BenchTrait0.self] : nil }
    )
    let graph = tree.graph
    let top = tree.nodes[0]
    let probe = VisitProbe()
    let run = {
      for write in 0..<writes {
        top.traitOverrides[BenchTrait0.self] = (write & 1) ^ 1
        graph.updateTraitsIfNeeded()
        probe.record(graph)
      }
      return counts.take()
    }
    return (run, { probe.visits(of: run) })
  }

  private func observationRun(
    _ shape: TreeShape,
    _ writes: Int
  ) -> (
    run: () -> Int, visited: () -> Int
  ) {
    let counts = ObserverCounts()
    let fired = ObservationFiredList()
    let tree = FloorTree(shape)
    let leaf = shape.count - 1
    tree.observe(leaf, mask: 1) {}
    let leafNode = ObservationNode()
    let observer = ObservationObserver(
      node: leafNode,
      traits: [0],
      slot: counts.slot(0),
      fired: fired
    )
    observer.install()
    let current = CurrentWrite()
    let visit: (Int) -> Void = { index in
      if index == leaf { leafNode.t0 = current.value }
    }
    let run = {
      for write in 0..<writes {
        current.set(0, (write & 1) ^ 1)
        tree.write(0, trait: 0, value: current.value, visit: visit)
        fired.reinstall()
      }
      withExtendedLifetime(observer) {}
      return counts.take()
    }
    return (run, { floorVisits(tree, of: run) })
  }

  private func notificationRun(
    _ shape: TreeShape,
    _ writes: Int
  ) -> (
    run: () -> Int, visited: () -> Int
  ) {
    let counter = SendableCounter()
    let tree = FloorTree(shape)
    let leaf = shape.count - 1
    tree.observe(leaf, mask: 1) {}
    let peer = NotificationPeer(count: 1)
    peer.observe(0, trait: 0) { _ in counter.count += 1 }
    let visit: (Int) -> Void = { index in
      if index == leaf { peer.post(0, trait: 0) }
    }
    let run = {
      for write in 0..<writes { tree.write(0, trait: 0, value: (write & 1) ^ 1, visit: visit) }
      return counter.take()
    }
    return (run, { floorVisits(tree, of: run) })
  }
}
