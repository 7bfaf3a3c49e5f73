import Foundation
import Observation
import TraitKit

/// S10: memory footprint, from glibc `mallinfo2` heap bytes in use.
///
/// T10k with no overrides and no observers (bytes per node); then overrides of one random trait
/// on a random 10% of the nodes (bytes per override); then R registrations of random traits on
/// random nodes (bytes per registration). The `bytes` column holds the figure per unit; the
/// timed part is the construction (and undoing) of the measured state.
///
/// The floor is `FloorMemoryNode`: an object per node holding its parent (unowned), its
/// children, a reference to a resolved table of 32 `Int`s shared with its parent until it
/// overrides something, its overrides and its observers (both empty, so without storage, until
/// used), and a 32-bit summary of the traits observed below it. Like TraitKit's, each floor
/// registration can be cancelled by its token in O(1): its entry holds its id, and a table of
/// positions, 4 bytes a registration and counted in its bytes, its index (as in S6's floor).
struct S10Memory: Scenario {
  let id = "S10"
  let name = "Memory.footprint"
  let summary =
    "bytes column = heap bytes per unit (mallinfo2). nodes=: T10k, no overrides/observers; "
    + "overrides=: one override on 10% of nodes, every collection resolved; registrations=: "
    + "R random registrations. Timed: build+drop / set+remove / register+cancel. Floor: "
    + "object node with parent, children, shared resolved table, overrides, observers "
    + "(cancellable by token), summary"

  private enum Phase: Int {
    case node, override, registration
  }

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    let nodes = benchTree(preset).count
    return [
      [("nodes", nodes)],
      [("overrides", nodes / 10)],
      [("registrations", preset.pick(smoke: 5_000, quick: 20_000, full: 100_000))],
    ]
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let setup = Setup(
      shape: benchTree(preset),
      registrations: preset.pick(smoke: 5_000, quick: 20_000, full: 100_000),
      timedRegistrations: preset.pick(smoke: 5_000, quick: 10_000, full: 20_000)
    )
    let phase: Phase
    /// How many units the memory figure covers, and how many a timed sample performs.
    let (measured, timed): (Int, Int)
    switch point[0].0 {
    case "nodes":
      phase = .node
      (measured, timed) = (setup.shape.count, setup.shape.count)
    case "overrides":
      phase = .override
      (measured, timed) = (setup.overrides.count, setup.overrides.count)
    default:
      phase = .registration
      (measured, timed) = (setup.plan.count, setup.timedRegistrations)
    }
    let unit = ["node", "override", "registration"][phase.rawValue]
    func workload(
      _ contender: Contender,
      bytes: Int,
      verify: (() -> (callbacks: Int, wrong: String?))? = nil,
      _ run: @escaping () -> Int
    ) -> Workload {
      Workload(
        contender,
        unit: unit,
        units: timed,
        operations: timed,
        expectedCallbacks: 0,
        bytesPerUnit: Double(bytes) / Double(measured),
        verify: verify,
        run: run
      )
    }
    var workloads: [Workload]
    if phase == .override {
      let floor = floorOverrideRun(setup)
      let traitKit = traitKitOverrideRun(setup)
      workloads = [
        workload(.floor, bytes: floorBytes(setup, phase), verify: floor.verify, floor.run),
        workload(
          .traitkit,
          bytes: traitKitBytes(setup, phase),
          verify: traitKit.verify,
          traitKit.run
        ),
      ]
    } else {
      workloads = [
        workload(.floor, bytes: floorBytes(setup, phase), floorRun(setup, phase)),
        workload(.traitkit, bytes: traitKitBytes(setup, phase), traitKitRun(setup, phase)),
      ]
    }
    switch phase {
    case .node:
      workloads.append(
        workload(.observation, bytes: observationBytes(setup, phase), observationRun(setup, phase))
      )
    case .override:
      break
    case .registration:
      workloads.append(
        workload(.observation, bytes: observationBytes(setup, phase), observationRun(setup, phase))
      )
      workloads.append(
        workload(.notificationCenter, bytes: notificationBytes(setup), notificationRun(setup))
      )
    }
    return workloads
  }

  /// The choices every contender shares.
  private struct Setup {
    let shape: TreeShape
    /// One override (node, trait, value) on each of 10% of the nodes, chosen at random.
    let overrides: [(node: Int, trait: Int, value: Int)]
    let plan: RegistrationPlan
    /// The registrations a timed sample makes and cancels: the first of `plan`.
    let timedRegistrations: Int

    init(shape: TreeShape, registrations: Int, timedRegistrations: Int) {
      self.shape = shape
      var generator = SeededGenerator(seed: 0x5_A000)
      overrides = Array(0..<shape.count).shuffled(using: &generator).prefix(shape.count / 10)
        .map { node in
          (
            node,
            Int.random(in: 0..<BenchTraits.count, using: &generator),
            Int.random(in: 1...1_000, using: &generator)
          )
        }
      plan = RegistrationPlan(count: registrations, nodeCount: shape.count, seed: 0x5_A001)
      self.timedRegistrations = min(timedRegistrations, registrations)
    }

    /// The (node, trait) pairs a timed sample registers.
    var timedPairs: Zip2Sequence<ArraySlice<Int>, ArraySlice<Int>> {
      zip(plan.nodes.prefix(timedRegistrations), plan.traits.prefix(timedRegistrations))
    }
  }

  /// Measures twice and returns the second figure: the first round initializes whatever the
  /// runtime allocates once (metadata, lazy globals), which is no cost of the measured state.
  private func secondRound(_ measure: () -> Int) -> Int {
    _ = measure()
    return measure()
  }

  // MARK: - Floor

  private func buildFloor(_ shape: TreeShape, into nodes: inout [FloorMemoryNode]) {
    let root = FloorMemoryNode(resolved: FloorMemoryNode.defaults)
    nodes.append(root)
    for index in 1..<shape.count {
      let node = FloorMemoryNode(resolved: root.resolved)
      nodes[shape.parent[index]].add(node)
      nodes.append(node)
    }
  }

  private func floorBytes(_ setup: Setup, _ phase: Phase) -> Int {
    let counter = CallbackCounter()
    return secondRound {
      var nodes: [FloorMemoryNode] = []
      nodes.reserveCapacity(setup.shape.count)
      let built = Allocations.retainedBytes { buildFloor(setup.shape, into: &nodes) }
      if phase == .node { return built.bytes }
      let overridden = Allocations.retainedBytes {
        for override in setup.overrides {
          nodes[override.node].setOverride(override.trait, value: override.value)
        }
      }
      if phase == .override { return overridden.bytes }
      let registered = Allocations.retainedBytes {
        let positions = FloorPositions(count: setup.plan.count)
        for (id, (node, trait)) in zip(setup.plan.nodes, setup.plan.traits).enumerated() {
          nodes[node].observe(mask: 1 << UInt32(trait), id: id, positions: positions) {
            counter.count += 1
          }
        }
        return positions
      }
      defer { withExtendedLifetime(registered.result) {} }
      return registered.bytes
    }
  }

  private func floorRun(_ setup: Setup, _ phase: Phase) -> () -> Int {
    let counter = CallbackCounter()
    let shape = setup.shape
    switch phase {
    case .node:
      return {
        var nodes: [FloorMemoryNode] = []
        nodes.reserveCapacity(shape.count)
        buildFloor(shape, into: &nodes)
        return nodes.count - shape.count
      }
    case .override:
      return floorOverrideRun(setup).run
    case .registration:
      var nodes: [FloorMemoryNode] = []
      buildFloor(shape, into: &nodes)
      let pairs = setup.timedPairs
      let owners = setup.plan.nodes
      let timed = setup.timedRegistrations
      let positions = FloorPositions(count: timed)
      return { [nodes] in
        for (id, (node, trait)) in pairs.enumerated() {
          nodes[node].observe(mask: 1 << UInt32(trait), id: id, positions: positions) {
            counter.count += 1
          }
        }
        for id in (0..<timed).reversed() { nodes[owners[id]].cancel(id: id, positions: positions) }
        return counter.take()
      }
    }
  }

  /// The floor's override sample: sets every override, then removes them all.
  ///
  /// The sample checks the last override's value while set (one read); `verify` checks, untimed,
  /// that every node is back to no overrides and the default table.
  private func floorOverrideRun(
    _ setup: Setup
  ) -> (run: () -> Int, verify: () -> (callbacks: Int, wrong: String?)) {
    var nodes: [FloorMemoryNode] = []
    buildFloor(setup.shape, into: &nodes)
    let last = setup.overrides[setup.overrides.count - 1]
    let run = { [nodes] in
      for override in setup.overrides {
        nodes[override.node].setOverride(override.trait, value: override.value)
      }
      let set = nodes[last.node].resolved[last.trait] == last.value
      for override in setup.overrides { nodes[override.node].removeOverride(override.trait) }
      return set ? 0 : 1
    }
    let verify = { [nodes] in
      let restored = nodes.allSatisfy {
        $0.overrides.isEmpty && $0.resolved == FloorMemoryNode.defaults
      }
      return (0, restored ? nil : "a node kept an override or a value after its removal")
    }
    return (run, verify)
  }

  // MARK: - TraitKit

  /// Builds the tree with node 0 the graph's root and resolves every node's collection.
  private func buildTraitKit(_ shape: TreeShape, into nodes: inout [TraitNode]) -> TraitGraph {
    let graph = TraitGraph()
    nodes.append(graph.root)
    for index in 1..<shape.count {
      let node = TraitNode()
      nodes[shape.parent[index]].addTraitChild(node)
      nodes.append(node)
    }
    for node in nodes { _ = node.traitCollection }
    return graph
  }

  private func traitKitBytes(_ setup: Setup, _ phase: Phase) -> Int {
    let counter = CallbackCounter()
    let traitLists: [[Trait]] = BenchTraits.all.map { [$0] }
    return secondRound {
      var nodes: [TraitNode] = []
      nodes.reserveCapacity(setup.shape.count)
      let built = Allocations.retainedBytes { buildTraitKit(setup.shape, into: &nodes) }
      defer { withExtendedLifetime(built.result) {} }
      if phase == .node { return built.bytes }
      let overridden = Allocations.retainedBytes {
        for override in setup.overrides {
          BenchTraits.write[override.trait](&nodes[override.node].traitOverrides, override.value)
        }
        for node in nodes { _ = node.traitCollection }
      }
      if phase == .override { return overridden.bytes }
      let registered = Allocations.retainedBytes {
        for (node, trait) in zip(setup.plan.nodes, setup.plan.traits) {
          nodes[node].registerForTraitChanges(traitLists[trait]) {
            (_: TraitNode, _: TraitCollection) in counter.count += 1
          }
        }
      }
      return registered.bytes
    }
  }

  private func traitKitRun(_ setup: Setup, _ phase: Phase) -> () -> Int {
    let counter = CallbackCounter()
    let shape = setup.shape
    switch phase {
    case .node:
      return {
        var nodes: [TraitNode] = []
        nodes.reserveCapacity(shape.count)
        let graph = buildTraitKit(shape, into: &nodes)
        return graph.statistics.liveNodes - shape.count
      }
    case .override:
      return traitKitOverrideRun(setup).run
    case .registration:
      var nodes: [TraitNode] = []
      let graph = buildTraitKit(shape, into: &nodes)
      let traitLists: [[Trait]] = BenchTraits.all.map { [$0] }
      let pairs = setup.timedPairs
      let owners = setup.plan.nodes
      let tokens = ReusedBuffer<TraitChangeRegistration>(capacity: setup.timedRegistrations)
      return { [nodes] in
        for (node, trait) in pairs {
          tokens.append(
            nodes[node].registerForTraitChanges(traitLists[trait]) {
              (_: TraitNode, _: TraitCollection) in counter.count += 1
            }
          )
        }
        for index in tokens.items.indices.reversed() {
          nodes[owners[index]].unregisterForTraitChanges(tokens.items[index])
        }
        tokens.clear()
        return counter.take() + graph.statistics.liveRegistrations
      }
    }
  }

  /// TraitKit's override sample: sets every override and resolves every collection, then
  /// removes them all and resolves again.
  ///
  /// The sample checks the last override's value while set (one read); `verify` checks, untimed,
  /// that every node's collection is back to the one it had before the sample.
  private func traitKitOverrideRun(
    _ setup: Setup
  ) -> (run: () -> Int, verify: () -> (callbacks: Int, wrong: String?)) {
    var nodes: [TraitNode] = []
    let graph = buildTraitKit(setup.shape, into: &nodes)
    let traits = BenchTraits.all
    let baseline = nodes.map(\.traitCollection)
    let last = setup.overrides[setup.overrides.count - 1]
    let run = { [nodes] in
      for override in setup.overrides {
        BenchTraits.write[override.trait](&nodes[override.node].traitOverrides, override.value)
      }
      for node in nodes { _ = node.traitCollection }
      let set = BenchTraits.read[last.trait](nodes[last.node].traitCollection) == last.value
      for override in setup.overrides {
        nodes[override.node].traitOverrides.remove(traits[override.trait])
      }
      for node in nodes { _ = node.traitCollection }
      withExtendedLifetime(graph) {}
      return set ? 0 : 1
    }
    let verify = { [nodes] in
      let restored = zip(nodes, baseline).allSatisfy { $0.traitCollection == $1 }
      return (0, restored ? nil : "a node's collection differs from before the sample")
    }
    return (run, verify)
  }

  // MARK: - Observation

  /// Observation has no tree: a node is one `@Observable` object with 32 stored `Int`s; a
  /// registration is one `withObservationTracking` of one property.
  private func observationBytes(_ setup: Setup, _ phase: Phase) -> Int {
    let counter = SendableCounter()
    return secondRound {
      var nodes: [ObservationNode] = []
      nodes.reserveCapacity(setup.shape.count)
      let built = Allocations.retainedBytes {
        for _ in 0..<setup.shape.count { nodes.append(ObservationNode()) }
      }
      if phase == .node { return built.bytes }
      let registered = Allocations.retainedBytes {
        for (node, trait) in zip(setup.plan.nodes, setup.plan.traits) {
          track(nodes[node], trait, counter)
        }
      }
      return registered.bytes
    }
  }

  /// A timed Observation sample: nodes created and dropped.
  ///
  /// At the registration point, trackers cannot be cancelled, so a sample creates fresh nodes,
  /// installs the trackers and drops them all (node creation included).
  private func observationRun(_ setup: Setup, _ phase: Phase) -> () -> Int {
    let counter = SendableCounter()
    let count = setup.shape.count
    let pairs = setup.timedPairs
    return {
      var nodes: [ObservationNode] = []
      nodes.reserveCapacity(count)
      for _ in 0..<count { nodes.append(ObservationNode()) }
      if phase == .registration {
        for (node, trait) in pairs { track(nodes[node], trait, counter) }
      }
      return counter.take()
    }
  }

  private func track(_ node: ObservationNode, _ trait: Int, _ counter: SendableCounter) {
    withObservationTracking {
      _ = node[trait: trait]
    } onChange: {
      counter.count += 1
    }
  }

  // MARK: - NotificationCenter

  private func notificationBytes(_ setup: Setup) -> Int {
    let counter = SendableCounter()
    return secondRound {
      let peer = NotificationPeer(count: setup.shape.count)
      var tokens: [any NSObjectProtocol] = []
      tokens.reserveCapacity(setup.plan.count)
      let registered = Allocations.retainedBytes {
        for (node, trait) in zip(setup.plan.nodes, setup.plan.traits) {
          tokens.append(
            peer.center.addObserver(
              forName: peer.names[trait],
              object: peer.objects[node],
              queue: nil
            ) { _ in counter.count += 1 }
          )
        }
      }
      for token in tokens { peer.center.removeObserver(token) }
      return registered.bytes
    }
  }

  private func notificationRun(_ setup: Setup) -> () -> Int {
    let counter = SendableCounter()
    let peer = NotificationPeer(count: setup.shape.count)
    let center = peer.center
    let names = peer.names
    let objects = peer.objects
    let pairs = setup.timedPairs
    let tokens = ReusedBuffer<any NSObjectProtocol>(capacity: setup.timedRegistrations)
    return {
      for (node, trait) in pairs {
        tokens.append(
          center.addObserver(forName: names[trait], object: objects[node], queue: nil) { _ in
            counter.count += 1
          }
        )
      }
      for token in tokens.items.reversed() { center.removeObserver(token) }
      tokens.clear()
      return counter.take()
    }
  }
}
