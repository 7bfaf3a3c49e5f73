import Testing

@testable import TraitKit

// Seeded random sequences of override writes, in-place accesses and reads, on one graph, against
// a model of R3 and R6 in which an in-place access's writes are the node's when it ends: a read
// in the middle of the access sees the node's overrides from before it. Fixtures start with
// `OR`.

private struct ORTrait0: TraitDefinition { static let defaultValue = 0 }
private struct ORTrait1: TraitDefinition { static let defaultValue = 0 }
private struct ORTrait2: TraitDefinition { static let defaultValue = 0 }

/// The suite's traits, by number: a write, a removal and a read of each.
private enum ORTraits {
  static let count = 3

  static func write(_ overrides: inout TraitOverrides, _ trait: Int, _ value: Int) {
    switch trait {
    case 0: overrides[ORTrait0.self] = value
    case 1: overrides[ORTrait1.self] = value
    default: overrides[ORTrait2.self] = value
    }
  }

  static func remove(_ overrides: inout TraitOverrides, _ trait: Int) {
    overrides.remove([ORTrait0.self, ORTrait1.self, ORTrait2.self][trait])
  }

  static func read(_ collection: TraitCollection) -> [Int] {
    [collection[ORTrait0.self], collection[ORTrait1.self], collection[ORTrait2.self]]
  }
}

/// One sequence: a random tree of real nodes beside its model.
private struct ORSequence {
  let seed: UInt64
  var random: RMRandom
  let graph = TraitGraph()
  var nodes: [TraitNode]
  /// The model: each node's parent (-1 for the root) and overrides, by trait.
  var parents: [Int]
  var overrides: [[Int?]]
  var failure: String?

  init(seed: UInt64, nodeCount: Int) {
    self.seed = seed
    random = RMRandom(seed: seed)
    nodes = [graph.root]
    parents = [-1]
    for index in 1..<nodeCount {
      let parent = random.below(index)
      let node = TraitNode()
      nodes[parent].addTraitChild(node)
      nodes.append(node)
      parents.append(parent)
    }
    overrides = Array(repeating: Array(repeating: nil, count: ORTraits.count), count: nodeCount)
  }

  /// What the model says `node` reads, with `pending` standing for nothing: the overrides of the
  /// node whose access is under way are its committed ones.
  func expected(_ node: Int) -> [Int] {
    (0..<ORTraits.count).map { trait in
      var current = node
      while current >= 0 {
        if let value = overrides[current][trait] { return value }
        current = parents[current]
      }
      return 0
    }
  }

  mutating func check(_ node: Int, _ step: String) {
    guard failure == nil else { return }
    let read = ORTraits.read(nodes[node].traitCollection)
    let model = expected(node)
    if read != model {
      failure = "seed \(seed): \(step): node \(node) read \(read), the model says \(model)"
    }
  }

  /// A write or a removal of a random override of `node`, outside any access.
  mutating func write(_ node: Int, _ step: String) {
    let trait = random.below(ORTraits.count)
    if random.below(4) == 0 {
      ORTraits.remove(&nodes[node].traitOverrides, trait)
      overrides[node][trait] = nil
    } else {
      let value = random.below(4)
      ORTraits.write(&nodes[node].traitOverrides, trait, value)
      overrides[node][trait] = value
    }
  }

  /// An in-place access of `node`'s overrides that edits them, writes other nodes' overrides
  /// and reads nodes, at random; its edits are the model's when it ends.
  mutating func access(_ node: Int, _ step: String) {
    var pending = overrides[node]
    func edit(_ access: inout TraitOverrides) {
      for inner in 0..<random.below(6) {
        let label = "\(step).\(inner)"
        switch random.below(5) {
        case 0:
          let trait = random.below(ORTraits.count)
          let value = random.below(4)
          ORTraits.write(&access, trait, value)
          pending[trait] = value
        case 1:
          let trait = random.below(ORTraits.count)
          ORTraits.remove(&access, trait)
          pending[trait] = nil
        case 2:
          // Assigned whole, as a copy taken and given back would be.
          var replacement = TraitOverrides()
          pending = Array(repeating: nil, count: ORTraits.count)
          for trait in 0..<ORTraits.count where random.below(2) == 0 {
            let value = random.below(4)
            ORTraits.write(&replacement, trait, value)
            pending[trait] = value
          }
          access = replacement
        case 3:
          let other = random.below(nodes.count)
          if other != node { write(other, label) }
        default:
          check(random.below(nodes.count), label)
        }
      }
    }
    edit(&nodes[node].traitOverrides)
    overrides[node] = pending
  }

  mutating func run(steps: Int) {
    for step in 0..<steps where failure == nil {
      let node = random.below(nodes.count)
      switch random.below(6) {
      case 0, 1: write(node, "step \(step)")
      case 2, 3: access(node, "step \(step)")
      case 4: check(node, "step \(step)")
      default: graph.updateTraitsIfNeeded()
      }
    }
    for node in nodes.indices { check(node, "end") }
  }
}

private struct ORWrap<Tag> {}
private struct ORManyTrait<Tag>: TraitDefinition { static var defaultValue: Int { 0 } }

/// Gives `count` more trait types their indices.
private func orRegisterTraits<Tag>(_: Tag.Type, count: Int) {
  _ = _TraitRegistry.index(of: ORManyTrait<Tag>.self)
  if count > 1 { orRegisterTraits(ORWrap<Tag>.self, count: count - 1) }
}

/// Runs `count` sequences from `base`; returns the first failure, described.
private func orRunSequences(base: UInt64, count: Int) -> String? {
  for sequence in 0..<count {
    var run = ORSequence(seed: base &+ UInt64(sequence), nodeCount: 2 + sequence % 11)
    run.run(steps: 80)
    if let failure = run.failure { return "sequence \(sequence) of base seed \(base): \(failure)" }
  }
  return nil
}

@Suite("In-place accesses of overrides against a model (R3, R6)")
struct OverridesDuringAccessRandomTests {
  private static let base: UInt64 = 0x0A_CCE5_5ED

  @Test("reads during and after in-place accesses agree with the model, over random sequences")
  func randomSequences() {
    if let failure = orRunSequences(base: Self.base, count: 2_000) { Issue.record("\(failure)") }
  }

  @Test("the same, in a process whose node shields hold the suite's traits")
  func randomSequencesWithExactShields() async {
    // NB: in a process of its own, where the suite's traits are the first numbered; this
    // suite's process may number them past the 127 a shield holds, or not, by test order.
    await #expect(processExitsWith: .success) {
      precondition(_TraitRegistry.index(of: ORTrait2.self) <= _TraitFilter.lastExactIndex)
      if let failure = orRunSequences(base: Self.base &+ 1 << 32, count: 500) {
        preconditionFailure(failure)
      }
    }
  }

  @Test("the same, in a process that numbers the suite's traits past what a shield holds")
  func randomSequencesPastTheShields() async {
    await #expect(processExitsWith: .success) {
      orRegisterTraits(ORWrap<Void>.self, count: 140)
      precondition(_TraitRegistry.index(of: ORTrait0.self) > _TraitFilter.lastExactIndex)
      if let failure = orRunSequences(base: Self.base &+ 2 << 32, count: 500) {
        preconditionFailure(failure)
      }
    }
  }
}
