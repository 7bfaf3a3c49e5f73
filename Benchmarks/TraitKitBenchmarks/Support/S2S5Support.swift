import TraitKit
import TraitKitLegacy

// Shared pieces of the tree scenarios S2–S5: the legacy-adapter tree, an untimed node-visit
// probe, the peers' per-write state and the fixed write sequences.

// MARK: - Legacy adapter tree

/// A node that adopts the legacy `traitCollectionDidChange` adapter and counts its calls.
final class LegacyBenchNode: TraitNode, LegacyBenchAdopting {
  let slot: ObserverCountSlot

  init(slot: ObserverCountSlot, interestingTraits: [any TraitDefinition.Type]) {
    self.slot = slot
    super.init()
    (self as any LegacyBenchAdopting).adoptLegacyCallback(interestingTraits: interestingTraits)
  }

  // NB: deprecated on purpose, like the adapter it calls. It is reached only through the
  // non-deprecated `LegacyBenchAdopting` requirement, so that the benchmark, which measures the
  // deprecated adapter on purpose, names it in one place only.
  @available(*, deprecated)
  func adoptLegacyCallback(interestingTraits: [any TraitDefinition.Type]) {
    adoptTraitCollectionDidChange(interestingTraits: interestingTraits)
  }
}

@available(*, deprecated)
extension LegacyBenchNode: TraitCollectionDidChangeObserving {
  func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {
    slot.hit()
  }
}

/// Adopts the legacy adapter; the indirection keeps deprecation warnings to their source.
protocol LegacyBenchAdopting: AnyObject {
  func adoptLegacyCallback(interestingTraits: [any TraitDefinition.Type])
}

/// A TraitKit graph whose tree of a `TreeShape` hangs below the graph's root, so that every node
/// of the shape, node 0 included, can be a `LegacyBenchNode` (the graph's own root cannot).
///
/// Writes go to node 0's overrides; the graph's root holds nothing and observes nothing.
final class LegacyTraitKitTree {
  let graph = TraitGraph()
  let nodes: [TraitNode]

  /// Builds the tree; `interestingTraits(i)` returns the traits of node i, which then adopts the
  /// legacy callback and counts its calls in `slot(i)`, or nil for a plain node.
  convenience init(
    _ shape: TreeShape,
    slot: (Int) -> ObserverCountSlot,
    interestingTraits: (Int) -> [any TraitDefinition.Type]?
  ) {
    self.init(shape) { index in
      interestingTraits(index).map { LegacyBenchNode(slot: slot(index), interestingTraits: $0) }
    }
  }

  /// Builds the tree of the nodes `makeNode(i)` returns, or plain nodes where it returns nil.
  private init(_ shape: TreeShape, makeNode: (Int) -> TraitNode?) {
    var nodes: [TraitNode] = []
    nodes.reserveCapacity(shape.count)
    for index in 0..<shape.count {
      let node = makeNode(index) ?? TraitNode()
      let parent = index == 0 ? graph.root : nodes[shape.parent[index]]
      parent.addTraitChild(node)
      nodes.append(node)
    }
    self.nodes = nodes
    graph.updateTraitsIfNeeded()
  }
}

// MARK: - Node-visit probe

/// Sums TraitKit's per-pass `nodesVisited` only while switched on, so that timed samples do not
/// pay for reading the statistics.
final class VisitProbe {
  @exclusivity(unchecked) var isOn = false
  @exclusivity(unchecked) var total = 0

  /// Adds the last pass's visits of `graph` when on.
  @inline(__always)
  func record(_ graph: TraitGraph) {
    if isOn { total += graph.statistics.lastPass.nodesVisited }
  }

  /// Runs one more, untimed sample with the probe on and returns its visits.
  func visits<Result>(of sample: () -> Result) -> Int {
    isOn = true
    total = 0
    _ = sample()
    isOn = false
    return total
  }
}

/// Runs one more, untimed sample and returns how far `floor.nodesVisited` advanced.
func floorVisits<Result>(_ floor: FloorTree, of sample: () -> Result) -> Int {
  let before = floor.nodesVisited
  _ = sample()
  return floor.nodesVisited - before
}

// MARK: - Peers' writes

/// The write a peer's `FloorTree.write(visit:)` callback is handling; one instance and one
/// closure per workload, so that the adapter allocates nothing per write.
final class CurrentWrite {
  @exclusivity(unchecked) var trait = 0
  @exclusivity(unchecked) var value = 0
  @exclusivity(unchecked) var bit: UInt32 = 0

  func set(_ trait: Int, _ value: Int) {
    self.trait = trait
    self.value = value
    bit = 1 << UInt32(trait)
  }
}

// MARK: - Shapes and write sequences

/// T10k (`complete(arity: 10, levels: 4)`, 11,111 nodes), or T1k (1,111 nodes) under `smoke`.
func benchTree(_ preset: SizePreset) -> TreeShape {
  TreeShape.complete(arity: 10, levels: preset == .smoke ? 3 : 4)
}

/// The trait indices set in `mask`, ascending.
func traitIndices(_ mask: UInt32) -> [Int] {
  (0..<32).filter { mask & (1 << UInt32($0)) != 0 }
}

/// A fixed sequence of `count` writes (`count` even) of random traits among `traitCount`, in
/// which every write changes its trait's value and every trait is written an even number of
/// times, toggling between 0 and 1: starting from all zeros, a sample ends where it started.
func toggleWrites(
  count: Int,
  traitCount: Int,
  using generator: inout SeededGenerator
) -> [(trait: Int, value: Int)] {
  require(count % 2 == 0, "toggleWrites needs an even count")
  let half = (0..<count / 2).map { _ in Int.random(in: 0..<traitCount, using: &generator) }
  var traits = half + half
  traits.shuffle(using: &generator)
  var state = [Int](repeating: 0, count: traitCount)
  return traits.map { trait in
    state[trait] ^= 1
    return (trait, state[trait])
  }
}
