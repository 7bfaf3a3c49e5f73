import Foundation
import TraitKit

/// S5: every other node of T10k registers one closure on the 4-trait set {BenchTrait0…3}; a
/// batch changes 8 traits at the root (4 of them in the set) and then runs one update pass,
/// which must call each observer exactly once.
struct S5BatchedSemanticSet: Scenario {
  let id = "S5"
  let name = "Registration.semanticSetBatch"
  let summary =
    "T10k, every other node registers one closure on a 4-trait set; batches of 8 root writes "
    + "(4 in the set) + one pass; exactly 1 callback per observer per batch; ns per batch "
    + "(notificationcenter: one observer per trait, one post per changed trait, so 4 calls "
    + "per observer per batch)"

  /// The traits of the semantic set, and of a batch.
  private static let setTraits = 0..<4
  private static let batchTraits = 0..<8

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    [[("nodes", benchTree(preset).count), ("set", Self.setTraits.count)]]
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let setup = Setup(
      shape: benchTree(preset),
      batches: preset.pick(smoke: 4, quick: 6, full: 8)
    )
    func workload(
      _ contender: Contender,
      _ parts: (counts: ObserverCounts, run: () -> Void, visited: () -> Int)
    ) -> Workload {
      Workload(
        contender,
        unit: "batch",
        units: setup.batches,
        operations: setup.batches,
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

  private struct Setup {
    let shape: TreeShape
    let batches: Int
    /// The observing nodes: every other node, the root included; node n counts its callbacks in
    /// slot n / 2.
    let observers: [Int]
    let isObserver: [Bool]
    /// The two alternating batches: all batch traits to 1, then all back to 0.
    let batchValues: [[(trait: Int, value: Int)]]

    init(shape: TreeShape, batches: Int) {
      self.shape = shape
      self.batches = batches
      observers = Array(stride(from: 0, to: shape.count, by: 2))
      isObserver = (0..<shape.count).map { $0 % 2 == 0 }
      batchValues = [1, 0].map { value in
        S5BatchedSemanticSet.batchTraits.map { (trait: $0, value: value) }
      }
    }

    /// A count per observing node: exactly one callback per batch.
    func counts(perObserver observers: Int = 1) -> ObserverCounts {
      ObserverCounts(
        expected: [Int](repeating: batches, count: self.observers.count * observers)
      )
    }

    /// The mask of the semantic set.
    var setMask: UInt32 {
      S5BatchedSemanticSet.setTraits.reduce(0) { $0 | 1 << UInt32($1) }
    }
  }

  private func floorRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let counts = setup.counts()
    let tree = FloorTree(setup.shape)
    for node in setup.observers {
      let slot = counts.slot(node / 2)
      tree.observe(node, mask: setup.setMask) { slot.hit() }
    }
    let batchValues = setup.batchValues
    let run = {
      for batch in 0..<setup.batches { tree.writeBatch(0, traits: batchValues[batch & 1]) }
    }
    return (counts, run, { floorVisits(tree, of: run) })
  }

  private func traitKitRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let counts = setup.counts()
    let tree = TraitKitTree(setup.shape)
    let set = Self.setTraits.map { BenchTraits.all[$0] }
    for node in setup.observers {
      let slot = counts.slot(node / 2)
      tree.nodes[node].registerForTraitChanges(set) { (_: TraitNode, _: TraitCollection) in
        slot.hit()
      }
    }
    let graph = tree.graph
    let root = graph.root
    let batchValues = setup.batchValues
    let probe = VisitProbe()
    let run = {
      for batch in 0..<setup.batches {
        for write in batchValues[batch & 1] {
          BenchTraits.write[write.trait](&root.traitOverrides, write.value)
        }
        graph.updateTraitsIfNeeded()
        probe.record(graph)
      }
    }
    return (counts, run, { probe.visits(of: run) })
  }

  private func legacyRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let counts = setup.counts()
    let set = Self.setTraits.map { BenchTraits.all[$0] }
    let tree = LegacyTraitKitTree(
      setup.shape,
      slot: { counts.slot($0 / 2) },
      interestingTraits: { setup.isObserver[$0] ? set : nil }
    )
    let graph = tree.graph
    let top = tree.nodes[0]
    let batchValues = setup.batchValues
    let probe = VisitProbe()
    let run = {
      for batch in 0..<setup.batches {
        for write in batchValues[batch & 1] {
          BenchTraits.write[write.trait](&top.traitOverrides, write.value)
        }
        graph.updateTraitsIfNeeded()
        probe.record(graph)
      }
    }
    return (counts, run, { probe.visits(of: run) })
  }

  /// Observation: each observer tracks the 4 properties of the set and fires once per
  /// installation; the floor's batch walk writes the changed properties into every node it reaches.
  private func observationRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let counts = setup.counts()
    let fired = ObservationFiredList()
    let tree = FloorTree(setup.shape)
    let nodes = (0..<setup.shape.count).map { _ in ObservationNode() }
    let observers = setup.observers.map { node in
      tree.observe(node, mask: setup.setMask) {}
      return ObservationObserver(
        node: nodes[node],
        traits: Array(Self.setTraits),
        slot: counts.slot(node / 2),
        fired: fired
      )
    }
    for observer in observers { observer.install() }
    let batchValues = setup.batchValues
    let run = { [observers] in
      for batch in 0..<setup.batches {
        let writes = batchValues[batch & 1]
        tree.writeBatch(0, traits: writes) { index, changed in
          let node = nodes[index]
          for write in writes where changed & 1 << UInt32(write.trait) != 0 {
            node[trait: write.trait] = write.value
          }
        }
        fired.reinstall()
      }
      withExtendedLifetime(observers) {}
    }
    return (counts, run, { floorVisits(tree, of: run) })
  }

  /// NotificationCenter: one block observer per trait of the set (a center cannot observe a
  /// set with one observer); the floor's batch walk posts every changed trait at each
  /// observing node it reaches, so each observer is called once per trait of the set.
  private func notificationRun(
    _ setup: Setup
  ) -> (counts: ObserverCounts, run: () -> Void, visited: () -> Int) {
    let counts = setup.counts(perObserver: Self.setTraits.count)
    let tree = FloorTree(setup.shape)
    let peer = NotificationPeer(count: setup.shape.count)
    for node in setup.observers {
      tree.observe(node, mask: setup.setMask) {}
      for trait in Self.setTraits {
        let slot = counts.slot(node / 2 * Self.setTraits.count + trait)
        peer.observe(node, trait: trait) { _ in slot.hit() }
      }
    }
    let isObserver = setup.isObserver
    let batchValues = setup.batchValues
    let run = {
      for batch in 0..<setup.batches {
        let writes = batchValues[batch & 1]
        tree.writeBatch(0, traits: writes) { index, changed in
          guard isObserver[index] else { return }
          for write in writes where changed & 1 << UInt32(write.trait) != 0 {
            peer.post(index, trait: write.trait)
          }
        }
      }
    }
    return (counts, run, { floorVisits(tree, of: run) })
  }
}
