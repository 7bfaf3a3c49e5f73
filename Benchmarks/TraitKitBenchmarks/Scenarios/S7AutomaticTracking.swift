import TraitKit

/// S7: automatic trait tracking in layout.
///
/// Each node of T10k has a `layout()` that reads 3 traits fixed per node; TraitKit records the
/// reads with `withTraitTracking(slot: .layout)`.
///
/// `mode=0` (read): ns per trait read inside a tracked layout; the floor here is the same layout
/// run outside any tracked closure, a plain (untracked) TraitKit read. `mode=1` (relayout): W
/// root writes, each followed by the update pass and a re-layout of the invalidated nodes only;
/// the invalidations must equal the nodes that read the written trait.
struct S7AutomaticTracking: Scenario {
  let id = "S7"
  let name = "Tracking.relayout"
  let summary =
    "T10k, layout() reads 3 traits per node. mode=0: ns per read, traitkit tracked inside "
    + "withTraitTracking vs floor = the same untracked TraitKit reads (observation n/a: "
    + "its trackers cannot be re-run without firing). mode=1: root write of a trait, "
    + "update pass, re-layout of invalidated nodes; ns per invalidation"

  private static let readsPerLayout = 3

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    let nodes = benchTree(preset).count
    return [[("mode", 0), ("nodes", nodes)], [("mode", 1), ("nodes", nodes)]]
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let setup = Setup(shape: benchTree(preset))
    if point["mode"] == 0 {
      let passes = preset.pick(smoke: 1, quick: 1, full: 3)
      let reads = passes * setup.shape.count * Self.readsPerLayout
      func workload(
        _ contender: Contender,
        _ make: (Setup, ObserverCounts, Int) -> () -> Void
      ) -> Workload {
        // No layout is invalidated: nothing is written.
        let counts = ObserverCounts(expected: Array(repeating: 0, count: setup.shape.count))
        return Workload(
          contender,
          unit: "read",
          units: reads,
          operations: passes * setup.shape.count,
          counts: counts,
          run: make(setup, counts, passes)
        )
      }
      return [
        workload(.floor, untrackedReadRun),
        workload(.traitkit, trackedReadRun),
      ]
    }
    var generator = SeededGenerator(seed: 0x5_7001)
    let writes = toggleWrites(
      count: preset.pick(smoke: 2, quick: 4, full: 10),
      traitCount: BenchTraits.count,
      using: &generator
    )
    func workload(
      _ contender: Contender,
      _ make: (Setup, ObserverCounts, [(trait: Int, value: Int)]) -> () -> Void
    ) -> Workload {
      let counts = setup.invalidations(of: writes)
      return Workload(
        contender,
        unit: "invalidation",
        units: counts.expected.reduce(0, +),
        operations: writes.count,
        counts: counts,
        run: make(setup, counts, writes)
      )
    }
    return [
      workload(.floor, floorRelayoutRun),
      workload(.traitkit, traitKitRelayoutRun),
      workload(.observation, observationRelayoutRun),
    ]
  }

  /// The choices every contender shares: the 3 distinct traits each node's layout reads.
  private struct Setup {
    let shape: TreeShape
    let reads: [(Int, Int, Int)]
    /// Bit k set when node i's layout reads trait k.
    let masks: [UInt32]

    init(shape: TreeShape) {
      self.shape = shape
      var generator = SeededGenerator(seed: 0x5_7000)
      reads = (0..<shape.count).map { _ in
        var traits = Array(0..<BenchTraits.count)
        traits.shuffle(using: &generator)
        return (traits[0], traits[1], traits[2])
      }
      let masks = reads.map { UInt32(1) << UInt32($0.0) | 1 << UInt32($0.1) | 1 << UInt32($0.2) }
      self.masks = masks
    }

    /// Each node's own invalidations for a sample: once per write of a trait its layout reads.
    func invalidations(of writes: [(trait: Int, value: Int)]) -> ObserverCounts {
      ObserverCounts(
        expected: masks.map { mask in writes.count { mask >> UInt32($0.trait) & 1 != 0 } }
      )
    }

    func makeTree(
      _ log: LayoutLog,
      _ counts: ObserverCounts
    ) -> SubclassTraitKitTree<LayoutNode> {
      SubclassTraitKitTree(shape) {
        LayoutNode(reads: reads[$0], log: log, invalidations: counts.slot($0))
      }
    }
  }

  // MARK: - mode=0: tracked vs untracked reads

  private func untrackedReadRun(
    _ setup: Setup,
    _ counts: ObserverCounts,
    passes: Int
  ) -> () -> Void {
    let log = LayoutLog(capacity: setup.shape.count)
    let tree = setup.makeTree(log, counts)
    // NB: the closure keeps the graph (see S8).
    let graph = tree.graph
    let nodes = tree.nodes
    return {
      for _ in 0..<passes {
        for node in nodes { node.layout() }
      }
      withExtendedLifetime(graph) {}
    }
  }

  private func trackedReadRun(
    _ setup: Setup,
    _ counts: ObserverCounts,
    passes: Int
  ) -> () -> Void {
    let log = LayoutLog(capacity: setup.shape.count)
    let tree = setup.makeTree(log, counts)
    // NB: the closure keeps the graph (see S8).
    let graph = tree.graph
    let nodes = tree.nodes
    return {
      for _ in 0..<passes {
        for node in nodes { node.layoutTracked() }
      }
      withExtendedLifetime(graph) {}
    }
  }

  // MARK: - mode=1: write, pass, re-layout of the invalidated nodes

  /// The floor: per-node read masks as `FloorTree` observers; its walk calls the readers of the
  /// written trait, which queue themselves; re-layout re-reads the 3 values and stores the
  /// recomputed read mask (re-tracking).
  private func floorRelayoutRun(
    _ setup: Setup,
    _ counts: ObserverCounts,
    _ writes: [(trait: Int, value: Int)]
  ) -> () -> Void {
    final class FloorLayout {
      @exclusivity(unchecked) var dirty: ContiguousArray<Int> = []
      @exclusivity(unchecked) var frames: [Int]
      init(_ count: Int) {
        frames = [Int](repeating: 0, count: count)
        dirty.reserveCapacity(count)
      }
    }
    let layout = FloorLayout(setup.shape.count)
    let tree = FloorTree(setup.shape)
    for node in 0..<setup.shape.count {
      let slot = counts.slot(node)
      tree.observe(node, mask: setup.masks[node]) {
        slot.hit()
        layout.dirty.append(node)
      }
    }
    let reads = setup.reads
    return {
      for write in writes {
        tree.write(0, trait: write.trait, value: write.value)
        for node in layout.dirty {
          let (a, b, c) = reads[node]
          layout.frames[node] =
            tree.values[node * 32 + a] &+ tree.values[node * 32 + b]
            &+ tree.values[node * 32 + c]
          tree.observers[node][0].mask = 1 << UInt32(a) | 1 << UInt32(b) | 1 << UInt32(c)
        }
        layout.dirty.removeAll(keepingCapacity: true)
      }
    }
  }

  private func traitKitRelayoutRun(
    _ setup: Setup,
    _ counts: ObserverCounts,
    _ writes: [(trait: Int, value: Int)]
  ) -> () -> Void {
    let log = LayoutLog(capacity: setup.shape.count)
    let tree = setup.makeTree(log, counts)
    for node in tree.nodes { node.layoutTracked() }
    let graph = tree.graph
    let top = tree.nodes[0]
    return {
      for write in writes {
        BenchTraits.write[write.trait](&top.traitOverrides, write.value)
        graph.updateTraitsIfNeeded()
        for node in log.dirty.items { node.layoutIfNeeded() }
        log.dirty.clear()
      }
    }
  }

  /// Observation: each layout is a `withObservationTracking` of 3 `@Observable` properties.
  ///
  /// One `ObservationNode` per tree node; a layout's `onChange` counts and queues it; the
  /// re-layout re-installs the fired trackers (counted). The floor's walk writes the values.
  private func observationRelayoutRun(
    _ setup: Setup,
    _ counts: ObserverCounts,
    _ writes: [(trait: Int, value: Int)]
  ) -> () -> Void {
    let fired = ObservationFiredList()
    let tree = FloorTree(setup.shape)
    let masks = setup.masks
    let nodes = (0..<setup.shape.count).map { _ in ObservationNode() }
    var observers: [ObservationObserver] = []
    for (index, node) in nodes.enumerated() {
      tree.observe(index, mask: masks[index]) {}
      let (a, b, c) = setup.reads[index]
      observers.append(
        ObservationObserver(
          node: node,
          traits: [a, b, c],
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
    return { [observers] in
      for write in writes {
        current.set(write.trait, write.value)
        tree.write(0, trait: write.trait, value: write.value, visit: visit)
        fired.reinstall()
      }
      withExtendedLifetime(observers) {}
    }
  }
}

/// The nodes of S7's tree waiting for re-layout.
final class LayoutLog {
  let dirty: ReusedBuffer<LayoutNode>

  init(capacity: Int) {
    dirty = ReusedBuffer(capacity: capacity)
  }
}

/// A view-like node whose layout reads 3 traits, tracked like UIKit's automatic trait tracking.
final class LayoutNode: TraitNode {
  let reads: (Int, Int, Int)
  let log: LayoutLog
  /// Counts this node's invalidations.
  let invalidations: ObserverCountSlot
  @exclusivity(unchecked) var needsLayout = true
  @exclusivity(unchecked) var frame = 0

  init(reads: (Int, Int, Int), log: LayoutLog, invalidations: ObserverCountSlot) {
    self.reads = reads
    self.log = log
    self.invalidations = invalidations
    super.init()
  }

  /// The layout: reads 3 traits through `traitCollection`, as a view reads its traits.
  @inline(never)
  func layout() {
    let read = BenchTraits.read
    frame =
      read[reads.0](traitCollection) &+ read[reads.1](traitCollection)
      &+ read[reads.2](traitCollection)
  }

  /// Runs the layout inside a tracked closure; the invalidation captures nothing: it receives
  /// the node.
  func layoutTracked() {
    needsLayout = false
    withTraitTracking(slot: .layout, invalidation: { LayoutNode.invalidate($0) }, layout)
  }

  /// Re-runs the tracked layout when an invalidation asked for it.
  func layoutIfNeeded() {
    if needsLayout { layoutTracked() }
  }

  private static func invalidate(_ node: TraitNode) {
    let node = unsafeDowncast(node, to: LayoutNode.self)
    node.needsLayout = true
    node.invalidations.hit()
    node.log.dirty.append(node)
  }
}
