import TraitKit

/// S8: reads under overrides.
///
/// A complete binary tree 12 levels deep (8,191 nodes) in which each node overrides each trait
/// with probability p percent; a sample is M random (node, trait) reads. Also a chain of nested
/// overrides D deep (node d overrides trait d mod 32), read at its leaf.
///
/// Both contenders read through a table of 32 closures, one per trait, so both pay the same
/// indirection: the floor's closure gets its resolved table and the node's number, TraitKit's
/// the node, and reads `node.traitCollection[Trait.self]`, as a client does. Each sample's
/// checksum must equal the one computed from the floor's table.
struct S8ReadsUnderOverrides: Scenario {
  let id = "S8"
  let name = "Lookup.underOverrides"
  let summary =
    "p=: binary tree 12 deep (8,191 nodes), each node overrides each trait with probability "
    + "p%; chain=: D nested overrides on one path, read at the leaf. M random reads; ns per "
    + "read; floor = one indexed load from a resolved table (checksums must match)"

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    [0, 10, 50].map { [("p", $0), ("nodes", Self.tree.count)] }
      + [10, 100, 1_000].map { [("chain", $0)] }
  }

  private static let tree = TreeShape.complete(arity: 2, levels: 12)

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let setup: Setup
    let readCount = preset.pick(smoke: 20_000, quick: 100_000, full: 200_000)
    if point.contains(where: { $0.0 == "chain" }) {
      setup = Setup(chain: point["chain"], reads: readCount)
    } else {
      setup = Setup(tree: Self.tree, percent: point["p"], reads: readCount)
    }
    func workload(_ contender: Contender, _ run: @escaping () -> Int) -> Workload {
      Workload(
        contender,
        unit: "read",
        units: readCount,
        operations: readCount,
        expectedCallbacks: 0,
        run: run
      )
    }
    return [
      workload(.floor, floorRun(setup)),
      workload(.traitkit, traitKitRun(setup)),
    ]
  }

  /// The tree, its overrides, the read sequence and the expected checksum.
  private struct Setup {
    let shape: TreeShape
    /// (node, trait, value) for every override, parents before children.
    let overrides: [(node: Int, trait: Int, value: Int)]
    /// Each read packed as `node << 5 | trait`.
    let reads: ContiguousArray<UInt32>
    /// The resolved values, `node * 32 + trait`, as the floor holds them.
    let values: [Int]
    let checksum: Int

    init(tree shape: TreeShape, percent: Int, reads count: Int) {
      var generator = SeededGenerator(seed: 0x5_8000 + UInt64(percent))
      var overrides: [(node: Int, trait: Int, value: Int)] = []
      for node in 0..<shape.count {
        for trait in 0..<BenchTraits.count
        where Int.random(in: 0..<100, using: &generator) < percent {
          overrides.append((node, trait, Int.random(in: 1...1_000, using: &generator)))
        }
      }
      let reads = (0..<count).map { _ in
        UInt32(Int.random(in: 0..<shape.count, using: &generator) << 5)
          | UInt32.random(in: 0..<32, using: &generator)
      }
      self.init(shape: shape, overrides: overrides, reads: ContiguousArray(reads))
    }

    init(chain depth: Int, reads count: Int) {
      var generator = SeededGenerator(seed: 0x5_8100 + UInt64(depth))
      let overrides = (1...depth).map { node in
        (node: node, trait: (node - 1) % BenchTraits.count, value: node)
      }
      let reads = (0..<count).map { _ in
        UInt32(depth << 5) | UInt32.random(in: 0..<32, using: &generator)
      }
      self.init(shape: .chain(depth), overrides: overrides, reads: ContiguousArray(reads))
    }

    private init(
      shape: TreeShape,
      overrides: [(node: Int, trait: Int, value: Int)],
      reads: ContiguousArray<UInt32>
    ) {
      self.shape = shape
      self.overrides = overrides
      self.reads = reads
      var values = [Int](repeating: 0, count: shape.count * 32)
      var own = [Int?](repeating: nil, count: shape.count * 32)
      for override in overrides { own[override.node * 32 + override.trait] = override.value }
      for node in 0..<shape.count {
        let parent = shape.parent[node]
        for trait in 0..<32 {
          values[node * 32 + trait] =
            own[node * 32 + trait] ?? (parent < 0 ? 0 : values[parent * 32 + trait])
        }
      }
      self.values = values
      checksum = reads.reduce(0) { $0 &+ values[Int($1 >> 5) * 32 + Int($1 & 31)] }
    }
  }

  /// Returns 0, or -1 when the checksum differs from the expected one.
  private func floorRun(_ setup: Setup) -> () -> Int {
    let tree = FloorTree(setup.shape)
    for override in setup.overrides {
      tree.overridden[override.node] |= 1 << UInt32(override.trait)
    }
    tree.values = setup.values
    let values = tree.values
    let reads = setup.reads
    let expected = setup.checksum
    return {
      let read = floorReads
      var sum = 0
      for packed in reads {
        sum &+= read[Int(packed & 31)](values, Int(packed >> 5))
      }
      blackHole(sum)
      return sum == expected ? 0 : -1
    }
  }

  /// Returns 0, or -1 when the checksum differs from the floor's.
  private func traitKitRun(_ setup: Setup) -> () -> Int {
    let tree = TraitKitTree(setup.shape)
    for override in setup.overrides {
      BenchTraits.write[override.trait](&tree.nodes[override.node].traitOverrides, override.value)
    }
    tree.graph.updateTraitsIfNeeded()
    // NB: the closure keeps the graph: nodes whose graph is gone read through the detached slow
    // path, which is not what a client of a live tree pays.
    let graph = tree.graph
    let nodes = tree.nodes
    // NB: each closure gets its node unretained, as a method gets `self` (and the floor's gets
    // its table): retaining it would measure the loop, not the read.
    let references = ContiguousArray(nodes.map(Unmanaged.passUnretained))
    let reads = setup.reads
    let expected = setup.checksum
    return {
      let read = BenchTraits.readOf
      var sum = 0
      for packed in reads {
        sum &+= references[Int(packed >> 5)]._withUnsafeGuaranteedRef {
          read[Int(packed & 31)]($0)
        }
      }
      blackHole(sum)
      withExtendedLifetime((graph, nodes)) {}
      return sum == expected ? 0 : -1
    }
  }
}

/// `floorReads[k](values, node)` reads trait k of `node` from a floor table: the counterpart of
/// `BenchTraits.readOf`, so that the floor pays the same closure-table indirection.
private let floorReads: [@Sendable ([Int], Int) -> Int] = [
  { $0[$1 &* 32 &+ 0] },
  { $0[$1 &* 32 &+ 1] },
  { $0[$1 &* 32 &+ 2] },
  { $0[$1 &* 32 &+ 3] },
  { $0[$1 &* 32 &+ 4] },
  { $0[$1 &* 32 &+ 5] },
  { $0[$1 &* 32 &+ 6] },
  { $0[$1 &* 32 &+ 7] },
  { $0[$1 &* 32 &+ 8] },
  { $0[$1 &* 32 &+ 9] },
  { $0[$1 &* 32 &+ 10] },
  { $0[$1 &* 32 &+ 11] },
  { $0[$1 &* 32 &+ 12] },
  { $0[$1 &* 32 &+ 13] },
  { $0[$1 &* 32 &+ 14] },
  { $0[$1 &* 32 &+ 15] },
  { $0[$1 &* 32 &+ 16] },
  { $0[$1 &* 32 &+ 17] },
  { $0[$1 &* 32 &+ 18] },
  { $0[$1 &* 32 &+ 19] },
  { $0[$1 &* 32 &+ 20] },
  { $0[$1 &* 32 &+ 21] },
  { $0[$1 &* 32 &+ 22] },
  { $0[$1 &* 32 &+ 23] },
  { $0[$1 &* 32 &+ 24] },
  { $0[$1 &* 32 &+ 25] },
  { $0[$1 &* 32 &+ 26] },
  { $0[$1 &* 32 &+ 27] },
  { $0[$1 &* 32 &+ 28] },
  { $0[$1 &* 32 &+ 29] },
  { $0[$1 &* 32 &+ 30] },
  { $0[$1 &* 32 &+ 31] },
]
