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
    // The root and the unshadowed branch.
    let reached = 1 + shape.subtree(of: levelOne.last!).count
    let expected = setup.isNoOp ? 0 : setup.writes * reached
    func workload(
      _ contender: Contender,
      _ pair: (run: () -> Int, visited: () -> Int)
    )
      -> Workload
    {
      Workload(
        contender,
        unit: "write",
        units: setup.writes,
        operations: setup.writes,
        expectedCallbacks: expected,
        nodesVisited: pair.visited,
        run: pair.run
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
    /// The level-1 nodes that override trait 0.
    let shadowed: [Int]
    /// Whether every write writes the root's current value (0).
    let isNoOp: Bool
    let writes: Int

    /// The value of write `index`: alternating 1, 0 (ending at 0, where it started), or always 0.
    func value(_ index: Int) -> Int {
      isNoOp ? 0 : (index & 1) ^ 1
    }
  }

  /// A floor tree with the shadowing overrides and every node observing trait 0.
  private func floorTree(_ setup: Setup, _ callback: @escaping () -> Void) -> FloorTree {
    let tree = FloorTree(setup.shape)
    for node in setup.shadowed {
      tree.setOverride(node, trait: 0, value: Self.shadowValue)
    }
    for node in 0..<setup.shape.count { tree.observe(node, mask: 1, callback) }
    return tree
  }

  private func floorRun(_ setup: Setup) -> (run: () -> Int, visited: () -> Int) {
    let counter = CallbackCounter()
    let tree = floorTree(setup) { counter.count += 1 }
    let run = {
      for write in 0..<setup.writes { tree.write(0, trait: 0, value: setup.value(write)) }
      return counter.take()
    }
    return (run, { floorVisits(tree, of: run) })
  }

  private func traitKitRun(_ setup: Setup) -> (run: () -> Int, visited: () -> Int) {
    let counter = CallbackCounter()
    let tree = TraitKitTree(setup.shape)
    let graph = tree.graph
    let root = graph.root
    for node in setup.shadowed {
      tree.nodes[node].traitOverrides[BenchTrait0.self] = Self.shadowValue
    }
    if setup.isNoOp { root.traitOverrides[BenchTrait0.self] = 0 }
    graph.updateTraitsIfNeeded()
    for node in tree.nodes {
      node.registerForTraitChanges([BenchTrait0.self]) { (_: TraitNode, _: TraitCollection) in
        counter.count += 1
      }
    }
    let probe = VisitProbe()
    let run = {
      for write in 0..<setup.writes {
        root.traitOverrides[BenchTrait0.self] = setup.value(write)
        graph.updateTraitsIfNeeded()
        probe.record(graph)
      }
      return counter.take()
    }
    return (run, { probe.visits(of: run) })
  }

  private func legacyRun(_ setup: Setup) -> (run: () -> Int, visited: () -> Int) {
    let counts = ObserverCounts()
    let tree = LegacyTraitKitTree(
      setup.shape,
      slot: { _ in counts.slot(0) },
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
      return counts.take()
    }
    return (run, { probe.visits(of: run) })
  }

  /// Observation: the floor's walk writes `t0` into every node it reaches.
  ///
  /// An equal-value write goes to the root node's `t0` directly, so that Observation's own
  /// equality check (the `@Observable` setter skips equal `Equatable` values) is what is measured.
  private func observationRun(_ setup: Setup) -> (run: () -> Int, visited: () -> Int) {
    let counts = ObserverCounts()
    let fired = ObservationFiredList()
    let tree = floorTree(setup) {}
    let nodes = (0..<setup.shape.count).map { _ in ObservationNode() }
    for node in setup.shadowed { nodes[node].t0 = Self.shadowValue }
    let observers = nodes.map {
      ObservationObserver(node: $0, traits: [0], slot: counts.slot(0), fired: fired)
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
      return counts.take()
    }
    return (run, { floorVisits(tree, of: run) })
  }

  /// NotificationCenter: the floor's walk posts at every node it reaches.
  ///
  /// NotificationCenter has no notion of an equal value, so an equal-value write stops at the
  /// floor's comparison.
  private func notificationRun(_ setup: Setup) -> (run: () -> Int, visited: () -> Int) {
    let counter = SendableCounter()
    let tree = floorTree(setup) {}
    let peer = NotificationPeer(count: setup.shape.count)
    for node in 0..<setup.shape.count {
      peer.observe(node, trait: 0) { _ in counter.count += 1 }
    }
    let visit: (Int) -> Void = { index in peer.post(index, trait: 0) }
    let run = {
      for write in 0..<setup.writes {
        tree.write(0, trait: 0, value: setup.value(write), visit: visit)
      }
      return counter.take()
    }
    return (run, { floorVisits(tree, of: run) })
  }
}
