import Testing
import TraitKit

// The tracking differential test: seeded random sequences of override writes and removals,
// moves, new nodes, dropped subtrees, tracked runs (reading their own node and others, some
// nested in another slot's run), slot removals and update passes drive a real graph and a model
// of rule R11 side by side. After every pass, the slots the engine invalidated must be exactly
// those the model names, each once; after every step, a node's traits must be the model's (R6),
// and a dropped node must be gone (R9). R5 as a host sees it: a pass of a graph that has not
// called `onNeedsUpdate` since its last pass must invalidate nothing, and the sequence ends with
// a settle, the pass that a host which runs passes only when asked runs if the graph asked.
//
// `swift test` runs a quarter as many sequences as the differential test (500 by default), each
// of 120 steps, from the same base seed; `Scripts/soak.sh` runs a quarter of its count too. A
// divergence is reported with its sequence's seed and the steps that led to it.

// MARK: - Steps

/// The slots the sequences track, by number.
private let tdSlots: [TraitTrackingSlot] = [.layout, .display, .properties]

/// The traits the sequences write and the tracked closures read; each takes the values 0…2.
private let tdTraits: [RMTraitID] = [.alpha, .beta, .gamma, .delta, .style, .contrast, .sizeClass]

/// A tracked slot of a node, both by number.
private struct TDKey: Hashable, Comparable, CustomStringConvertible {
  let node: Int
  let slot: Int

  static func < (lhs: TDKey, rhs: TDKey) -> Bool { (lhs.node, lhs.slot) < (rhs.node, rhs.slot) }

  var description: String { "\(node).\(tdSlots[slot])" }
}

/// A read of a node's trait in a tracked closure.
private struct TDRead: CustomStringConvertible {
  let node: Int
  let trait: RMTraitID

  var description: String { "\(node).\(trait)" }
}

/// A tracked run of a slot: reads, then at most one run of another slot nested in it, then more
/// reads.
private struct TDRun: CustomStringConvertible {
  let key: TDKey
  let before: [TDRead]
  let nested: [TDRun]
  let after: [TDRead]

  var description: String {
    let inner = nested.map { " { \($0) }" }.joined()
    return "track \(key) reading \(before)\(inner) \(after)"
  }
}

/// One step of a sequence.
private enum TDStep: CustomStringConvertible {
  case write(node: Int, trait: RMTraitID, value: Int)
  case removeOverride(node: Int, trait: RMTraitID)
  case move(node: Int, parent: Int)
  /// A new node, numbered next, under `parent`.
  case add(parent: Int)
  /// Detaches `nodes[0]` and lets go of it and its subtree, `nodes`.
  case drop(nodes: [Int])
  case track(TDRun)
  case removeTracking(TDKey)
  case pass
  /// The pass of a host that runs one only when the graph asked for one (R5).
  case settle

  var description: String {
    switch self {
    case .write(let node, let trait, let value): "write \(node).\(trait) = \(value)"
    case .removeOverride(let node, let trait): "remove override \(node).\(trait)"
    case .move(let node, let parent): "move \(node) under \(parent)"
    case .add(let parent): "add a node under \(parent)"
    case .drop(let nodes): "drop \(nodes[0]) and its subtree \(nodes)"
    case .track(let run): "\(run)"
    case .removeTracking(let key): "remove tracking \(key)"
    case .pass: "pass"
    case .settle: "settle (a pass if the graph asked for one)"
    }
  }

  /// Whether the step is the graph's pass: one of the sequence's, or the settle.
  var isPass: Bool {
    switch self {
    case .pass, .settle: true
    default: false
    }
  }
}

// MARK: - The model

/// R11 as plain data: the tree, its overrides, and for each tracked slot the traits each node it
/// read had when it read them (or when its invalidation last ran for them).
private struct TDModel {
  /// Each node's parent; the root's is -1.
  var parents: [Int]
  var overrides: [[RMTraitID: Int]]
  /// Whether each node is still in the tree; a dropped node is gone for good.
  var alive: [Bool]
  /// For each tracked slot: by node read, the values of the traits read there.
  var slots: [TDKey: [Int: [RMTraitID: Int]]] = [:]

  init(parents: [Int]) {
    self.parents = parents
    overrides = Array(repeating: [:], count: parents.count)
    alive = Array(repeating: true, count: parents.count)
  }

  /// The nodes in the tree.
  var live: [Int] { alive.indices.filter { alive[$0] } }

  /// `node` and the live nodes below it, `node` first.
  func subtree(of node: Int) -> [Int] {
    [node] + live.filter { $0 != node && isInSubtree($0, of: node) }
  }

  mutating func add(under parent: Int) {
    parents.append(parent)
    overrides.append([:])
    alive.append(true)
  }

  /// Drops `nodes`: their slots go, and so does what other slots read of them.
  mutating func drop(_ nodes: [Int]) {
    let dropped = Set(nodes)
    for node in nodes { alive[node] = false }
    slots = slots.filter { !dropped.contains($0.key.node) }.mapValues { read in
      read.filter { !dropped.contains($0.key) }
    }
  }

  /// The value of `trait` at `node`: its own override, or its nearest ancestor's, or 0.
  func value(_ node: Int, _ trait: RMTraitID) -> Int {
    var current = node
    while current >= 0 {
      if let value = overrides[current][trait] { return value }
      current = parents[current]
    }
    return 0
  }

  /// Whether `node` is `ancestor` or below it.
  func isInSubtree(_ node: Int, of ancestor: Int) -> Bool {
    var current = node
    while current >= 0 {
      if current == ancestor { return true }
      current = parents[current]
    }
    return false
  }

  /// A run replaces its slot's record with what it read; a nested run records into its own slot.
  mutating func track(_ run: TDRun) {
    var read: [Int: [RMTraitID: Int]] = [:]
    for each in run.before {
      read[each.node, default: [:]][each.trait] = value(each.node, each.trait)
    }
    for nested in run.nested { track(nested) }
    for each in run.after {
      read[each.node, default: [:]][each.trait] = value(each.node, each.trait)
    }
    slots[run.key] = read
  }

  /// The slots whose recorded traits differ at some node read, each once; their records take
  /// that node's values.
  mutating func pass() -> Set<TDKey> {
    var invalidated = Set<TDKey>()
    for (key, nodes) in slots {
      var updated = nodes
      for (node, recorded) in nodes
      where recorded.contains(where: { value(node, $0.key) != $0.value }) {
        updated[node] = Dictionary(
          uniqueKeysWithValues: recorded.keys.map { ($0, value(node, $0)) }
        )
        invalidated.insert(key)
      }
      slots[key] = updated
    }
    return invalidated
  }
}

// MARK: - The engine side

/// The same steps on a real graph, logging the invalidations each pass runs.
private final class TDEngine {
  let graph = TraitGraph()
  /// The nodes by number; nil once dropped.
  private var nodes: [TraitNode?]
  /// Every node made, by number, to check that a dropped one is gone.
  private(set) var weakNodes: [RMWeak<TraitNode>] = []
  private var numbers: [ObjectIdentifier: Int] = [:]
  private(set) var invalidations: [TDKey] = []
  /// Whether the graph called `onNeedsUpdate` since the sequence last ran its pass: the pass that
  /// a host which runs one only when asked owes (R5).
  private(set) var requestedPass = false

  init(parents: [Int]) {
    nodes = [graph.root]
    weakNodes = [RMWeak(object: graph.root)]
    numbers[ObjectIdentifier(graph.root)] = 0
    graph.onNeedsUpdate = { [weak self] in self?.requestedPass = true }
    for node in 1..<parents.count { add(under: parents[node]) }
  }

  /// The node numbered `number`, which is in the tree.
  func node(_ number: Int) -> TraitNode {
    guard let node = nodes[number] else { preconditionFailure("Node \(number) was dropped") }
    return node
  }

  private func add(under parent: Int) {
    let made = TraitNode()
    node(parent).addTraitChild(made)
    numbers[ObjectIdentifier(made)] = nodes.count
    nodes.append(made)
    weakNodes.append(RMWeak(object: made))
  }

  func apply(_ step: TDStep) {
    switch step {
    case .write(let number, let trait, let value):
      trait.write(value, into: &node(number).traitOverrides)
    case .removeOverride(let number, let trait):
      node(number).traitOverrides.remove(trait.definition)
    case .move(let number, let parent):
      node(parent).addTraitChild(node(number))
    case .add(let parent):
      add(under: parent)
    case .drop(let dropped):
      node(dropped[0]).removeFromTraitParent()
      for number in dropped {
        numbers[ObjectIdentifier(node(number))] = nil
        nodes[number] = nil
      }
    case .track(let run):
      track(run)
    case .removeTracking(let key):
      node(key.node).removeTraitTracking(slot: tdSlots[key.slot])
    case .pass:
      // NB: before the pass: the request its end makes, for changes left, stays.
      requestedPass = false
      graph.updateTraitsIfNeeded()
    case .settle:
      if requestedPass { apply(.pass) }
    }
  }

  /// Returns the invalidations logged since the last call.
  func takeInvalidations() -> [TDKey] {
    defer { invalidations = [] }
    return invalidations
  }

  private func track(_ run: TDRun) {
    let slot = run.key.slot
    let invalidation: (TraitNode) -> Void = { [unowned self] node in
      invalidations.append(TDKey(node: numbers[ObjectIdentifier(node)] ?? -1, slot: slot))
    }
    node(run.key.node).withTraitTracking(slot: tdSlots[slot], invalidation: invalidation) {
      // NB: each read goes through a collection the closure holds, as `value(in:)` takes it.
      for read in run.before { _ = read.trait.value(in: node(read.node).traitCollection) }
      for nested in run.nested { track(nested) }
      for read in run.after { _ = read.trait.value(in: node(read.node).traitCollection) }
    }
  }
}

// MARK: - Sequences

private enum TDDifferential {
  static let steps = 120

  /// The parents of a random tree of 4 to 10 nodes, node 0 the root.
  static func parents(_ random: inout RMRandom) -> [Int] {
    let count = 4 + random.below(7)
    return [-1] + (1..<count).map { random.below($0) }
  }

  static func reads(_ random: inout RMRandom, owner: Int, nodes: [Int]) -> [TDRead] {
    (0..<random.below(4)).map { _ in
      // NB: mostly the run's own node, as a view's layout reads its own traits.
      TDRead(
        node: random.chance(60) ? owner : random.pick(nodes),
        trait: random.pick(tdTraits)
      )
    }
  }

  static func key(_ random: inout RMRandom, nodes: [Int]) -> TDKey {
    TDKey(node: random.pick(nodes), slot: random.below(tdSlots.count))
  }

  static func run(_ random: inout RMRandom, nodes: [Int], avoiding outer: TDKey? = nil) -> TDRun {
    var key = key(&random, nodes: nodes)
    while key == outer { key = self.key(&random, nodes: nodes) }
    let nested =
      outer == nil && random.chance(25) ? [run(&random, nodes: nodes, avoiding: key)] : []
    return TDRun(
      key: key,
      before: reads(&random, owner: key.node, nodes: nodes),
      nested: nested,
      after: reads(&random, owner: key.node, nodes: nodes)
    )
  }

  static func step(_ random: inout RMRandom, model: TDModel) -> TDStep {
    let nodes = model.live
    let roll = random.below(100)
    switch roll {
    case ..<33:
      return .write(node: random.pick(nodes), trait: random.pick(tdTraits), value: random.below(3))
    case ..<42:
      return .removeOverride(node: random.pick(nodes), trait: random.pick(tdTraits))
    case ..<50 where nodes.count > 1:
      let node = random.pick(Array(nodes.dropFirst()))
      let candidates = nodes.filter { !model.isInSubtree($0, of: node) }
      return .move(node: node, parent: random.pick(candidates))
    case ..<54 where nodes.count < 14:
      return .add(parent: random.pick(nodes))
    case ..<57 where nodes.count > 3:
      return .drop(nodes: model.subtree(of: random.pick(Array(nodes.dropFirst()))))
    case ..<80:
      return .track(run(&random, nodes: nodes))
    case ..<85:
      return .removeTracking(key(&random, nodes: nodes))
    default:
      return .pass
    }
  }

  /// Runs one sequence; returns nil, or what diverged and the steps that led to it.
  static func run(seed: UInt64) -> String? {
    var random = RMRandom(seed: seed)
    var model = TDModel(parents: parents(&random))
    let engine = TDEngine(parents: model.parents)
    var log: [TDStep] = []
    for index in 0...steps {
      let step = index == steps ? TDStep.settle : step(&random, model: model)
      log.append(step)
      let requested = engine.requestedPass
      engine.apply(step)
      switch step {
      case .write(let node, let trait, let value): model.overrides[node][trait] = value
      case .removeOverride(let node, let trait): model.overrides[node][trait] = nil
      case .move(let node, let parent): model.parents[node] = parent
      case .add(let parent): model.add(under: parent)
      case .drop(let nodes): model.drop(nodes)
      case .track(let run): model.track(run)
      case .removeTracking(let key): model.slots[key] = nil
      case .pass, .settle: break
      }
      var divergence: String?
      if step.isPass {
        let expected = model.pass()
        let invalidated = engine.takeInvalidations()
        if Set(invalidated) != expected || invalidated.count != expected.count {
          divergence =
            "the pass invalidated \(invalidated.sorted()), the model \(expected.sorted())"
        }
        // R5: a graph that made no request kept what the pass had to invalidate from its host.
        if !requested && !expected.isEmpty {
          let owed =
            "R5: no onNeedsUpdate request from g0, though the model invalidates "
            + "\(expected.sorted())"
          divergence = divergence.map { "\(owed); \($0)" } ?? owed
        }
      } else if !engine.takeInvalidations().isEmpty {
        divergence = "an invalidation ran outside a pass"
      }
      if case .drop(let nodes) = step,
        let kept = nodes.first(where: { engine.weakNodes[$0].object != nil })
      {
        divergence = "dropped node \(kept) is still alive"
      }
      let node = random.pick(model.live)
      let engineValues = tdTraits.map { $0.value(in: engine.node(node).traitCollection) }
      let modelValues = tdTraits.map { model.value(node, $0) }
      if divergence == nil && engineValues != modelValues {
        divergence = "node \(node) reads \(engineValues), the model \(modelValues)"
      }
      if let divergence {
        let steps = log.enumerated().map { "  \($0.offset). \($0.element)" }
        return """
          seed 0x\(String(seed, radix: 16)), step \(index): \(divergence)
          tree: \(model.parents)
          \(steps.joined(separator: "\n"))
          """
      }
    }
    return nil
  }
}

// MARK: - Tests

@Suite("Tracking differential test against a model of R11")
struct TrackingDifferentialTests {
  /// The parallel slices of the run; sequence `i` runs in slice `i % slices`.
  static let slices = 4

  @Test(
    "each pass invalidates exactly the slots whose recorded traits changed, over seeded sequences",
    arguments: 0..<slices
  )
  func randomSequences(slice: Int) {
    let base = RMEnvironment.seed
    rmCheckSequences(slice: slice, of: Self.slices, below: RMEnvironment.sequences / 4) {
      sequence in
      // NB: a seed of its own, apart from the differential test's sequence of the same number.
      let seed = RMRandom.seed(base: base ^ 0x7ACC, index: sequence)
      return TDDifferential.run(seed: seed).map {
        """
        sequence \(sequence): \($0)
        replay: TRAITKIT_SEED=\(base) swift test --filter TrackingDifferentialTests
        """
      }
    }
  }

  @Test("the model invalidates a slot once per pass, and only for the traits it read")
  func modelInvalidatesOncePerPass() {
    var model = TDModel(parents: [-1, 0, 1])
    model.track(
      TDRun(
        key: TDKey(node: 2, slot: 0),
        before: [TDRead(node: 2, trait: .alpha), TDRead(node: 1, trait: .beta)],
        nested: [],
        after: []
      )
    )
    model.overrides[0][.gamma] = 1
    #expect(model.pass().isEmpty)
    model.overrides[0][.alpha] = 1
    model.overrides[1][.beta] = 2
    #expect(model.pass() == [TDKey(node: 2, slot: 0)])
    // The record now holds the new values: the same values again change nothing.
    #expect(model.pass().isEmpty)
    model.overrides[2][.alpha] = 1
    #expect(model.pass().isEmpty)
  }
}
