import Foundation
import TraitKit

/// S4: T10k with every node observing trait 0 and 9 of the 10 level-1 nodes overriding it;
/// `mode=0` root writes of new values must reach only the unshadowed tenth, `mode=1` writes of
/// the value the root already has must cost one comparison and call nobody.
struct S4Shadowing: Scenario {
  let id = "S4"
  let name = "Propagation.shadowing"
  let summary =
    "T10k, all nodes observe trait 0, 9 of 10 level-1 nodes override it; mode=0: root writes "
    + "reach the unshadowed tenth; mode=1: equal-value root writes, no callbacks; ns per write"

  /// The value the shadowing level-1 nodes override trait 0 with.
  private static let shadowValue = 7

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    let nodes = benchTree(preset).count
    return [0, 1].map { [("mode", $0), ("nodes", nodes)] }
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let shape = benchTree(preset)
    let levelOne = shape.children[0]
    let setup = Setup(
      shape: shape,
      shadowed: Array(levelOne.dropLast()),
      isNoOp: point["mode"] == 1,
      writes: point["mode"] == 1
        ? preset.pick(smoke: 10_000, quick: 100_000, full: 400_000)
        : preset.pick(smoke: 20, quick: 24, full: 40)
    )
    func workload(
      _ contender: Contender,
      _ make: (Setup, ObserverCounts) -> (run: () -> Void, visited: () -> Int)
    ) -> Workload {
      let counts = setup.counts()
      let parts = make(setup, counts)
      return Workload(
        contender,
        unit: "write",
        units: setup.writes,
        operations: setup.writes,
        counts: counts,
        nodesVisited: parts.visited,
        run: parts.run
      )
    }
    return [
      workload(.floor, floorRun),
      workload(.traitkit, traitKitRun),
      workload(.traitkitLegacy, legacyRun),
      workload(.observation, observationRun),
      workload(.notificationCenter, notificationRun),
    ]
  }

  private struct Setup {
    let shape: TreeShape
    /// The level-1 nodes that override trait 0.
    let shadowed: [Int]
    /// Whether every write writes the root's current value (0).
    let isNoOp: Bool
    let writes: Int

    /// The value of write `index`: alternating 1, 0 (ending at 0, where it started), or always 0.
    func value(_ index: Int) -> Int {
      isNoOp ? 0 : (index & 1) ^ 1
    }

    /// Each node's own count for a sample: every write of a new value calls the root and the
    /// unshadowed branch, and nobody else; an equal-value write calls nobody.
    func counts() -> ObserverCounts {
      var expected = [Int](repeating: 0, count: shape.count)
      if !isNoOp {
        let unshadowed = shape.children[0].last!
        for node in [0] + shape.subtree(of: unshadowed) { expected[node] = writes }
      }
      return ObserverCounts(expected: expected)
    }
  }

  /// A floor tree with the shadowing overrides and every node observing trait 0 with
  /// `callback(node)`.
  private func floorTree(
    _ setup: Setup,
    _ callback: (Int) -> () -> Void = { _ in {} }
  ) -> FloorTree {
    let tree = FloorTree(setup.shape)
    for node in setup.shadowed {
      tree.setOverride(node, trait: 0, value: Self.shadowValue)
    }
    for node in 0..<setup.shape.count { tree.observe(node, mask: 1, callback(node)) }
    return tree
  }

  private func floorRun(
    _ setup: Setup,
    _ counts: ObserverCounts
  ) -> (run: () -> Void, visited: () -> Int) {
    let tree = floorTree(setup) { node in
      let slot = counts.slot(node)
      return { slot.hit() }
    }
    let run = {
      for write in 0..<setup.writes { tree.write(0, trait: 0, value: setup.value(write)) }
    }
    return (run, { floorVisits(tree, of: run) })
  }

  private func traitKitRun(
    _ setup: Setup,
    _ counts: ObserverCounts
  ) -> (run: () -> Void, visited: () -> Int) {
    let tree = TraitKitTree(setup.shape)
    let graph = tree.graph
    let root = graph.root
    for node in setup.shadowed {
      tree.nodes[node].traitOverrides[BenchTrait0.self] = Self.shadowValue
    }
    if setup.isNoOp { root.traitOverrides[BenchTrait0.self] = 0 }
    graph.updateTraitsIfNeeded()
    for (index, node) in tree.nodes.enumerated() {
      let slot = counts.slot(index)
      node.registerForTraitChanges([BenchTrait0.self]) { (_: TraitNode, _: TraitCollection) in
        slot.hit()
      }
    }
    let probe = VisitProbe()
    let run = {
      for write in 0..<setup.writes {
        root.traitOverrides[BenchTrait0.self] = setup.value(write)
        graph.updateTraitsIfNeeded()
        probe.record(graph)
      }
    }
    return (run, { probe.visits(of: run) })
  }

  private func legacyRun(
    _ setup: Setup,
    _ counts: ObserverCounts
  ) -> (run: () -> Void, visited: () -> Int) {
    let tree = LegacyTraitKitTree(
      setup.shape,
      slot: counts.slot,
      interestingTraits: { _ in [BenchTrait0.self] }
    )
    let graph = tree.graph
    let top = tree.nodes[0]
    for node in setup.shadowed {
      tree.nodes[node].traitOverrides[BenchTrait0.self] = Self.shadowValue
    }
    if setup.isNoOp { top.traitOverrides[BenchTrait0.self] = 0 }
    graph.updateTraitsIfNeeded()
    _ = counts.take()
    let probe = VisitProbe()
    let run = {
      for write in 0..<setup.writes {
        top.traitOverrides[BenchTrait0.self] = setup.value(write)
        graph.updateTraitsIfNeeded()
        probe.record(graph)
      }
    }
    return (run, { probe.visits(of: run) })
  }

  /// Observation: the floor's walk writes `t0` into every node it reaches.
  ///
  /// An equal-value write goes to the root node's `t0` directly, so that Observation's own
  /// equality check (the `@Observable` setter skips equal `Equatable` values) is what is measured.
  private func observationRun(
    _ setup: Setup,
    _ counts: ObserverCounts
  ) -> (run: () -> Void, visited: () -> Int) {
    let fired = ObservationFiredList()
    let tree = floorTree(setup)
    let nodes = (0..<setup.shape.count).map { _ in ObservationNode() }
    for node in setup.shadowed { nodes[node].t0 = Self.shadowValue }
    let observers = nodes.enumerated().map { index, node in
      ObservationObserver(node: node, traits: [0], slot: counts.slot(index), fired: fired)
    }
    for observer in observers { observer.install() }
    let current = CurrentWrite()
    let visit: (Int) -> Void = { index in nodes[index].t0 = current.value }
    let root = nodes[0]
    let run = { [observers] in
      for write in 0..<setup.writes {
        if setup.isNoOp {
          root.t0 = setup.value(write)
        } else {
          current.set(0, setup.value(write))
          tree.write(0, trait: 0, value: current.value, visit: visit)
        }
        fired.reinstall()
      }
      withExtendedLifetime(observers) {}
    }
    return (run, { floorVisits(tree, of: run) })
  }

  /// NotificationCenter: the floor's walk posts at every node it reaches.
  ///
  /// NotificationCenter has no notion of an equal value, so an equal-value write stops at the
  /// floor's comparison.
  private func notificationRun(
    _ setup: Setup,
    _ counts: ObserverCounts
  ) -> (run: () -> Void, visited: () -> Int) {
    let tree = floorTree(setup)
    let peer = NotificationPeer(count: setup.shape.count)
    for node in 0..<setup.shape.count {
      let slot = counts.slot(node)
      peer.observe(node, trait: 0) { _ in slot.hit() }
    }
    let visit: (Int) -> Void = { index in peer.post(index, trait: 0) }
    let run = {
      for write in 0..<setup.writes {
        tree.write(0, trait: 0, value: setup.value(write), visit: visit)
      }
    }
    return (run, { floorVisits(tree, of: run) })
  }
}
