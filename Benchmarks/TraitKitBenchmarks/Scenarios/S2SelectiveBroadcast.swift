import Foundation
import TraitKit

/// S2: every node of T10k observes r random traits of 32; root writes of random traits must
/// reach only the observers of the written trait (the legacy adapter calls every node).
struct S2SelectiveBroadcast: Scenario {
  let id = "S2"
  let name = "Propagation.selectiveBroadcast"
  let summary =
    "T10k, each node observes r random traits of 32; root writes of a random trait; ns per "
    + "write (traitkit-legacy calls every node on every write)"

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    let nodes = benchTree(preset).count
    return [1, 4].map { [("r", $0), ("nodes", nodes)] }
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let setup = Setup(
      shape: benchTree(preset),
      traitsPerNode: point["r"],
      writes: preset.pick(smoke: 20, quick: 24, full: 32)
    )
    func workload(
      _ contender: Contender,
      _ parts: (counts: ObserverCounts, run: () -> Void, visited: () -> Int)
    ) -> Workload {
      Workload(
        contender,
        unit: "write",
        units: setup.writes.count,
        operations: setup.writes.count,
        counts: parts.counts,
        nodesVisited: parts.visited,
        run: parts.run
      )
    }
    return [
      workload(.floor, floorRun(setup)),
      workload(.traitkit, traitKitRun(setup)),
      workload(.traitkitLegacy, legacyRun(setup)),
      workload(.observation, observationRun(setup)),
      workload(.notificationCenter, notificationRun(setup)),
    ]
  }

  /// The choices every contender shares: each node's observed traits and the write sequence.
  private struct Setup {
    let shape: TreeShape
    /// Bit k set when node i observes trait k.
    let masks: [UInt32]
    let writes: [(trait: Int, value: Int)]
    /// How many of the writes write trait k.
    let writesOf: [Int]

    init(shape: TreeShape, traitsPerNode: Int, writes: Int) {
      self.shape = shape
      var generator = SeededGenerator(seed: 0x5_2000 + UInt64(traitsPerNode))
      let masks = (0..<shape.count).map { _ in
        var traits = Array(0..<BenchTraits.count)
        traits.shuffle(using: &generator)
        return traits.prefix(traitsPerNode).reduce(UInt32(0)) { $0 | 1 << UInt32($1) }
      }
      self.masks = masks
      let writes = toggleWrites(count: writes, traitCount: BenchTraits.count, using: &generator)
      self.writes = writes
      writesOf = (0..<BenchTraits.count).map { trait in writes.count { $0.trait == trait } }
    }

    /// Each node's own count for a sample: once per write of a trait it observes.
    func fineCounts() -> ObserverCounts {
      ObserverCounts(
        expected: masks.map { mask in traitIndices(mask).reduce(0) { $0 + writesOf[$1] } }
      )
    }
  }

  private func floorRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let counts = setup.fineCounts()
    let tree = FloorTree(setup.shape)
    for node in 0..<setup.shape.count {
      let slot = counts.slot(node)
      tree.observe(node, mask: setup.masks[node]) { slot.hit() }
    }
    let writes = setup.writes
    let run = {
      for write in writes { tree.write(0, trait: write.trait, value: write.value) }
    }
    return (counts, run, { floorVisits(tree, of: run) })
  }

  private func traitKitRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let counts = setup.fineCounts()
    let tree = TraitKitTree(setup.shape)
    for (index, (node, mask)) in zip(tree.nodes, setup.masks).enumerated() {
      let slot = counts.slot(index)
      node.registerForTraitChanges(traitIndices(mask).map { BenchTraits.all[$0] }) {
        (_: TraitNode, _: TraitCollection) in slot.hit()
      }
    }
    let graph = tree.graph
    let root = graph.root
    let writes = setup.writes
    let probe = VisitProbe()
    let run = {
      for write in writes {
        BenchTraits.write[write.trait](&root.traitOverrides, write.value)
        graph.updateTraitsIfNeeded()
        probe.record(graph)
      }
    }
    return (counts, run, { probe.visits(of: run) })
  }

  /// Every node is called on every write: once per write for each.
  private func legacyRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let counts = ObserverCounts(
      expected: [Int](repeating: setup.writes.count, count: setup.shape.count)
    )
    let tree = LegacyTraitKitTree(setup.shape, slot: counts.slot) {
      traitIndices(setup.masks[$0]).map { BenchTraits.all[$0] }
    }
    let graph = tree.graph
    let top = tree.nodes[0]
    let writes = setup.writes
    let probe = VisitProbe()
    let run = {
      for write in writes {
        BenchTraits.write[write.trait](&top.traitOverrides, write.value)
        graph.updateTraitsIfNeeded()
        probe.record(graph)
      }
    }
    return (counts, run, { probe.visits(of: run) })
  }

  private func observationRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let counts = setup.fineCounts()
    let fired = ObservationFiredList()
    let tree = FloorTree(setup.shape)
    let masks = setup.masks
    let nodes = (0..<setup.shape.count).map { _ in ObservationNode() }
    var observers: [ObservationObserver] = []
    for (index, node) in nodes.enumerated() {
      tree.observe(index, mask: masks[index]) {}
      observers.append(
        ObservationObserver(
          node: node,
          traits: traitIndices(masks[index]),
          slot: counts.slot(index),
          fired: fired
        )
      )
    }
    for observer in observers { observer.install() }
    let current = CurrentWrite()
    let visit: (Int) -> Void = { index in
      if masks[index] & current.bit != 0 { nodes[index][trait: current.trait] = current.value }
    }
    let writes = setup.writes
    let run = { [observers] in
      for write in writes {
        current.set(write.trait, write.value)
        tree.write(0, trait: write.trait, value: write.value, visit: visit)
        fired.reinstall()
      }
      withExtendedLifetime(observers) {}
    }
    return (counts, run, { floorVisits(tree, of: run) })
  }

  /// One block observer per observed trait of each node: once per write of its trait.
  private func notificationRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let masks = setup.masks
    let observed = masks.indices.flatMap { node in traitIndices(masks[node]).map { (node, $0) } }
    let counts = ObserverCounts(expected: observed.map { setup.writesOf[$0.1] })
    let tree = FloorTree(setup.shape)
    let peer = NotificationPeer(count: setup.shape.count)
    for node in 0..<setup.shape.count { tree.observe(node, mask: masks[node]) {} }
    for (index, (node, trait)) in observed.enumerated() {
      let slot = counts.slot(index)
      peer.observe(node, trait: trait) { _ in slot.hit() }
    }
    let current = CurrentWrite()
    let visit: (Int) -> Void = { index in
      if masks[index] & current.bit != 0 { peer.post(index, trait: current.trait) }
    }
    let writes = setup.writes
    let run = {
      for write in writes {
        current.set(write.trait, write.value)
        tree.write(0, trait: write.trait, value: write.value, visit: visit)
      }
    }
    return (counts, run, { floorVisits(tree, of: run) })
  }
}
