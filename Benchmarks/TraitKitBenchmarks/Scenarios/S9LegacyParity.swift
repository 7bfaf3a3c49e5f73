import TraitKit

/// S9: legacy parity and the fine-grained tax.
///
/// Every node of T10k hears of every change: through the legacy `traitCollectionDidChange`
/// adapter (traitkit-legacy), through one registration for all 32 traits (traitkit), as an
/// observer of every trait in the floor's broadcast, or as a NotificationCenter observer of one
/// "did change" name posted at each node the floor's walk reaches (notificationcenter: the
/// Foundation baseline of a legacy callback); W root writes of a random trait must call every
/// node once per write, which each node's own count checks after every sample.
struct S9LegacyParity: Scenario {
  let id = "S9"
  let name = "Legacy.parity"
  let summary =
    "T10k, every node observes every trait: traitkit-legacy adopts traitCollectionDidChange, "
    + "traitkit registers for all 32 traits, floor broadcasts, notificationcenter posts one "
    + "did-change name per node on the floor's walk; root writes of a random trait; "
    + "ns per callback (target traitkit <= 1.2x traitkit-legacy)"

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    [[("nodes", benchTree(preset).count)]]
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let shape = benchTree(preset)
    var generator = SeededGenerator(seed: 0x5_9000)
    let writes = toggleWrites(
      count: preset.pick(smoke: 4, quick: 4, full: 6),
      traitCount: BenchTraits.count,
      using: &generator
    )
    let expected = writes.count * shape.count
    func workload(
      _ contender: Contender,
      _ pair: (counts: ObserverCounts, run: () -> Void)
    ) -> Workload {
      Workload(
        contender,
        unit: "callback",
        units: expected,
        operations: writes.count,
        counts: pair.counts,
        run: pair.run
      )
    }
    return [
      workload(.floor, floorRun(shape, writes)),
      workload(.traitkit, traitKitRun(shape, writes)),
      workload(.traitkitLegacy, legacyRun(shape, writes)),
      workload(.notificationCenter, notificationRun(shape, writes)),
    ]
  }

  /// Every node's own count: once per write.
  private func counts(_ shape: TreeShape, _ writes: [(trait: Int, value: Int)]) -> ObserverCounts {
    ObserverCounts(expected: [Int](repeating: writes.count, count: shape.count))
  }

  private func floorRun(
    _ shape: TreeShape,
    _ writes: [(trait: Int, value: Int)]
  ) -> (counts: ObserverCounts, run: () -> Void) {
    let counts = counts(shape, writes)
    let tree = FloorTree(shape)
    for node in 0..<shape.count {
      let slot = counts.slot(node)
      tree.observe(node, mask: .max) { slot.hit() }
    }
    return (
      counts, { for write in writes { tree.write(0, trait: write.trait, value: write.value) } }
    )
  }

  /// Node 0 hangs below the graph's root, as in the legacy run, so both walk the same tree.
  private func traitKitRun(
    _ shape: TreeShape,
    _ writes: [(trait: Int, value: Int)]
  ) -> (counts: ObserverCounts, run: () -> Void) {
    let counts = counts(shape, writes)
    let tree = LegacyTraitKitTree(shape, slot: counts.slot) { _ in nil }
    for (index, node) in tree.nodes.enumerated() {
      let slot = counts.slot(index)
      node.registerForTraitChanges(BenchTraits.all) { (_: TraitNode, _: TraitCollection) in
        slot.hit()
      }
    }
    let graph = tree.graph
    let top = tree.nodes[0]
    let run = {
      for write in writes {
        BenchTraits.write[write.trait](&top.traitOverrides, write.value)
        graph.updateTraitsIfNeeded()
      }
    }
    return (counts, run)
  }

  private func legacyRun(
    _ shape: TreeShape,
    _ writes: [(trait: Int, value: Int)]
  ) -> (counts: ObserverCounts, run: () -> Void) {
    let counts = counts(shape, writes)
    let tree = LegacyTraitKitTree(shape, slot: counts.slot) { _ in BenchTraits.all }
    let graph = tree.graph
    let top = tree.nodes[0]
    let run = {
      for write in writes {
        BenchTraits.write[write.trait](&top.traitOverrides, write.value)
        graph.updateTraitsIfNeeded()
      }
    }
    return (counts, run)
  }

  /// The floor's walk posts one did-change notification at each node it reaches.
  private func notificationRun(
    _ shape: TreeShape,
    _ writes: [(trait: Int, value: Int)]
  ) -> (counts: ObserverCounts, run: () -> Void) {
    let counts = counts(shape, writes)
    let tree = FloorTree(shape)
    let peer = NotificationPeer(count: shape.count)
    for node in 0..<shape.count {
      tree.observe(node, mask: .max) {}
      let slot = counts.slot(node)
      peer.observeAnyChange(node) { _ in slot.hit() }
    }
    let visit: (Int) -> Void = { peer.postAnyChange($0) }
    return (
      counts,
      {
        for write in writes {
          tree.write(0, trait: write.trait, value: write.value, visit: visit)
        }
      }
    )
  }
}
