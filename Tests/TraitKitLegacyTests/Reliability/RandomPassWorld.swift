import TraitKit

// The world of one random sequence of `LegacyRandomPassTests`: its graphs and observers
// (RandomPassObservers.swift), the seeded steps and handler effects that change them, and the
// checks that every callback, statistic and lifetime must pass.

/// A weak reference to a node, to check that a dropped one is gone.
private struct WeakNode {
  weak var node: RandomPassNode?
}

// MARK: - Effects

/// A change that a step or a handler makes, drawn with the weights of ``weighted``.
enum RandomPassEffect {
  case setOverride
  case removeOverride
  case move
  case detach
  case setBase
  case subtreePass
  case fullPass
  case register
  case cancel
  case adopt
  case dropTarget
  case dropNode

  /// Every effect, overrides and moves twice as likely as the rest.
  static let weighted: [RandomPassEffect] = [
    .setOverride, .setOverride, .removeOverride, .move, .move, .detach, .setBase, .subtreePass,
    .fullPass, .register, .cancel, .adopt, .dropTarget, .dropNode,
  ]
}

/// One call of an observer in one round of one pass: the key of "at most once per round".
private struct PassRound: Hashable, CustomStringConvertible {
  let graph: Int
  let pass: Int
  let round: Int

  var description: String { "graph \(graph), pass \(pass), round \(round)" }
}

/// What a world's callbacks and handlers did, summed over a run to show that it exercised them.
struct RandomPassActivity {
  var legacyCalls = 0
  var registrationCalls = 0
  var handlerEffects = 0
  var nestedPasses = 0

  static func + (lhs: Self, rhs: Self) -> Self {
    RandomPassActivity(
      legacyCalls: lhs.legacyCalls + rhs.legacyCalls,
      registrationCalls: lhs.registrationCalls + rhs.registrationCalls,
      handlerEffects: lhs.handlerEffects + rhs.handlerEffects,
      nestedPasses: lhs.nestedPasses + rhs.nestedPasses
    )
  }
}

// MARK: - The world

/// One random sequence: a few graphs and a dozen nodes, driven by seeded steps whose handlers
/// change the tree, the overrides, the base traits and the registrations, and run passes.
///
/// Every callback is checked as it happens, and the statistics, the convergence of every
/// observer and the lifetime of dropped nodes after each step; ``violations`` collects what
/// failed. Nothing is compared with a model: each check is a property that must hold whatever
/// the engine chose to deliver when.
final class RandomPassWorld {
  private var random: SeededRandom
  /// The chance that a callback makes a handler effect, while the budget lasts.
  private let handlerEffectPercent: Int
  /// The handler effects allowed after each of a step's own effects, and for its passes.
  private let handlerEffectsPerPhase: Int
  private var handlerEffectsLeft = 0
  /// A summary of the world's settings, for a failure report.
  let settings: String

  private var graphs: [TraitGraph] = []
  /// Whether each graph called `onNeedsUpdate` since its last full pass: the passes that a
  /// host which runs them only when asked owes (R5).
  private var requestedPasses: [Bool] = []
  /// The graphs whose pass is running; a full pass called inside one of them does nothing.
  private var graphsUpdating: Set<Int> = []
  /// The number of passes each graph ran, to tell rounds of different passes apart.
  private var passesRun: [Int] = []
  private var lastRoundCalled: [String: PassRound] = [:]

  /// The live nodes by number; nil once dropped.
  private var nodes: [RandomPassNode?] = []
  private var weakNodes: [WeakNode] = []
  private var droppedNodes: Set<Int> = []
  private var registrations: [RandomPassRegistration] = []
  /// The targets the world holds; dropping one lets its registration go.
  private var targets: [RandomPassTarget] = []

  /// The failed checks, each with its step.
  private(set) var violations: [String] = []
  /// What the current step did: its effects, the callbacks, and the handlers' effects indented
  /// under the callback that made them.
  private(set) var stepLog: [String] = []
  private(set) var step = 0
  private(set) var activity = RandomPassActivity()
  /// The number of callbacks running, for the indentation of the log.
  private var handlerDepth = 0

  /// Makes a random forest of nodes in up to three graphs, with registrations and legacy
  /// adopters, all settled.
  init(seed: UInt64) {
    random = SeededRandom(seed: seed)
    let graphCount = 1 + random.below(3)
    let nodeCount = 6 + random.below(7)
    handlerEffectPercent = 30 + random.below(50)
    handlerEffectsPerPhase = 1 + random.below(8)
    let legacyPercent = random.pick([0, 20, 50, 80, 100])
    settings =
      "\(graphCount) graphs, \(nodeCount) nodes, \(legacyPercent) % legacy adopters, up to "
      + "\(handlerEffectsPerPhase) handler effects a phase at \(handlerEffectPercent) %"
    for index in 0..<graphCount {
      graphs.append(TraitGraph())
      requestedPasses.append(false)
      passesRun.append(0)
      graphs[index].onNeedsUpdate = { [weak self] in self?.requestedPasses[index] = true }
    }
    for number in 0..<nodeCount {
      let node = RandomPassNode(number: number, world: self)
      if random.chance(legacyPercent) { node.adoptLegacyCallback() }
      nodes.append(node)
      weakNodes.append(WeakNode(node: node))
    }
    // Each node under an earlier node or a root; some stay detached.
    for number in 0..<nodeCount {
      if number > 0, random.chance(60) {
        nodes[random.below(number)]?.addTraitChild(nodes[number]!)
      } else if random.chance(85) {
        graphs[random.below(graphCount)].root.addTraitChild(nodes[number]!)
      }
    }
    for case let node? in nodes where random.chance(50) {
      register(on: node)
    }
    // Some nodes get a long list of registrations of one trait, which the engine delivers in
    // runs.
    for case let node? in nodes where random.chance(25) {
      let trait = random.pick(RandomPassTrait.allCases)
      for _ in 0..<(8 + random.below(6)) { register(on: node, traits: [trait]) }
    }
    settleEveryGraph()
    stepLog.removeAll()
  }

  // MARK: Steps

  /// Runs one step: one to three effects, each followed by the handlers' effects of any pass it
  /// ran; then the passes that `onNeedsUpdate` asked for, after which every observer must be
  /// current (R5); then every graph's pass; then the checks of statistics and lifetimes.
  func runStep() {
    step += 1
    stepLog.removeAll()
    for _ in 0..<(1 + random.below(3)) {
      handlerEffectsLeft = handlerEffectsPerPhase
      makeEffect(near: nil)
      checkStatistics("after the step's own effect")
    }
    handlerEffectsLeft = handlerEffectsPerPhase
    serveRequestedPasses()
    checkObserversCurrent("after the passes that onNeedsUpdate asked for (R5)")
    settleEveryGraph()
    checkObserversCurrent("after every graph's pass")
    checkStatistics("after the step")
    checkDroppedNodesGone()
  }

  /// Runs the passes that the graphs asked for, as a host does, until none asks.
  private func serveRequestedPasses() {
    for _ in 0..<20 {
      guard let index = requestedPasses.firstIndex(of: true) else { return }
      runFullPass(of: index)
    }
    fail("the requests for passes did not stop after 20 passes")
  }

  /// Runs every graph's pass a few times over, so that the changes that handlers make in other
  /// graphs are delivered too, and forgets the requests.
  private func settleEveryGraph() {
    for _ in 0..<5 {
      for index in graphs.indices { runFullPass(of: index) }
    }
    requestedPasses = requestedPasses.map { _ in false }
  }

  /// Runs graph `index`'s full pass, which serves its request, unless it runs already.
  private func runFullPass(of index: Int) {
    if !graphsUpdating.contains(index) { requestedPasses[index] = false }
    runPass(of: index) { graphs[index].updateTraitsIfNeeded() }
  }

  /// Runs `pass`, a pass of graph `index`, numbering it unless the graph's pass is running
  /// already (a nested pass of the same graph does nothing).
  private func runPass(of index: Int, _ pass: () -> Void) {
    guard !graphsUpdating.contains(index) else { return pass() }
    if handlerDepth > 0 { activity.nestedPasses += 1 }
    passesRun[index] += 1
    graphsUpdating.insert(index)
    pass()
    graphsUpdating.remove(index)
  }

  // MARK: Callbacks

  /// Checks a legacy call (R12, with R5's previous collection and rounds), then may make a
  /// handler effect.
  func legacyCallbackCalled(on node: RandomPassNode, previous: TraitCollection?) {
    activity.legacyCalls += 1
    let current = node.traitCollection
    let name = "legacy \(node.number)"
    log("\(name): \(previous.map(RandomPassTrait.describe) ?? "nil") → \(describe(current))")
    guard let previous else { return fail("\(name): the previous collection is nil") }
    if previous != node.lastReported {
      fail(
        "\(name): the previous collection \(describe(previous)) is not the last reported "
          + describe(node.lastReported)
      )
    }
    if previous == current { fail("\(name): called with no change, at \(describe(current))") }
    if TraitCollection.current != current {
      fail("\(name): TraitCollection.current is not the node's collection")
    }
    if droppedNodes.contains(node.number) { fail("\(name): called after its node was dropped") }
    node.lastReported = current
    noteCall(of: name, on: node)
    reactToCallback(on: node)
  }

  /// Checks a registration's call (R5, R8), then may make a handler effect.
  func registrationCalled(
    _ registration: RandomPassRegistration,
    on node: RandomPassNode,
    previous: TraitCollection
  ) {
    activity.registrationCalls += 1
    let current = node.traitCollection
    let name = "registration \(registration.number) on \(node.number)"
    log("\(name) \(registration.traits): \(describe(previous)) → \(describe(current))")
    if registration.isCancelled { fail("\(name): called after it was cancelled") }
    if registration.nodeNumber != node.number {
      fail("\(name): called with node \(node.number), not its own")
    }
    for trait in registration.traits
    where trait.value(in: previous) != trait.value(in: registration.lastHeard) {
      fail(
        "\(name): the previous \(trait) \(trait.value(in: previous)) is not the last heard "
          + "\(trait.value(in: registration.lastHeard))"
      )
    }
    if registration.traits.allSatisfy({ $0.value(in: previous) == $0.value(in: current) }) {
      fail("\(name): called with no change of its traits")
    }
    if TraitCollection.current != current {
      fail("\(name): TraitCollection.current is not the node's collection")
    }
    registration.lastHeard = current
    noteCall(of: name, on: node)
    reactToCallback(on: node)
  }

  /// Checks that `node`, whose observer `observer` is being called, is attached, in a pass of
  /// its graph, and that the observer was not called before in the same round.
  private func noteCall(of observer: String, on node: RandomPassNode) {
    guard let graph = graphIndex(of: node) else {
      return fail("\(observer): called while its node is detached")
    }
    guard graphsUpdating.contains(graph) else {
      return fail("\(observer): called outside any pass of its graph \(graph)")
    }
    let round = PassRound(
      graph: graph,
      pass: passesRun[graph],
      round: graphs[graph].statistics.lastPass.rounds
    )
    if lastRoundCalled[observer] == round { fail("\(observer): called twice in \(round)") }
    lastRoundCalled[observer] = round
  }

  /// Makes a handler effect near `node`, while the budget lasts, and checks the statistics
  /// right after it.
  private func reactToCallback(on node: RandomPassNode) {
    guard handlerEffectsLeft > 0, random.chance(handlerEffectPercent) else { return }
    handlerEffectsLeft -= 1
    activity.handlerEffects += 1
    handlerDepth += 1
    defer { handlerDepth -= 1 }
    makeEffect(near: node)
    checkStatistics("inside a handler of node \(node.number), after its effect")
  }

  // MARK: Effects

  /// Makes one random effect; with a `caller`, half of them at the caller, its parent or its
  /// first child.
  private func makeEffect(near caller: RandomPassNode?) {
    func nearbyNode() -> RandomPassNode? {
      guard let caller, random.chance(50) else { return randomLiveNode() }
      switch random.below(3) {
      case 0: return caller
      case 1: return caller.traitParent as? RandomPassNode ?? caller
      default: return caller.traitChildren.first as? RandomPassNode ?? caller
      }
    }
    switch random.pick(RandomPassEffect.weighted) {
    case .setOverride:
      let node: TraitNode? = random.chance(15) ? random.pick(graphs).root : nearbyNode()
      guard let node else { return }
      let trait = random.pick(RandomPassTrait.allCases)
      let choice = random.below(3)
      log("set \(name(of: node)).\(trait) = \(choice)")
      trait.write(choice, into: &node.traitOverrides)
    case .removeOverride:
      guard let node = nearbyNode() else { return }
      let trait = random.pick(RandomPassTrait.allCases)
      log("remove \(node.number).\(trait)")
      node.traitOverrides.remove(trait.definition)
    case .move:
      guard let child = nearbyNode(), let parent = randomParent(),
        !isAncestor(child, of: parent)
      else { return }
      log("move \(child.number) under \(name(of: parent))")
      parent.addTraitChild(child)
    case .detach:
      guard let node = nearbyNode() else { return }
      log("detach \(node.number)")
      node.removeFromTraitParent()
    case .setBase:
      let index = random.below(graphs.count)
      let trait = random.pick(RandomPassTrait.allCases)
      let choice = random.below(3)
      log("base of graph \(index).\(trait) = \(choice)")
      graphs[index].baseTraits = graphs[index].baseTraits.modifyingTraits {
        trait.write(choice, into: &$0)
      }
    case .subtreePass:
      guard let node = nearbyNode() else { return }
      log("subtree pass of \(node.number)")
      guard let index = graphIndex(of: node) else { return node.updateTraitsIfNeeded() }
      runPass(of: index) { node.updateTraitsIfNeeded() }
    case .fullPass:
      let index = random.below(graphs.count)
      log("pass of graph \(index)")
      runFullPass(of: index)
    case .register:
      guard let node = nearbyNode() else { return }
      let registration = register(on: node)
      log("register \(registration.number) on \(node.number) for \(registration.traits)")
    case .cancel:
      let live = registrations.filter { !$0.isCancelled }
      guard !live.isEmpty, let node = nearbyNode() else { return }
      let registration = random.pick(live)
      log("cancel \(registration.number) through node \(node.number)")
      node.unregisterForTraitChanges(registration.token)
      // Another node's token cancels nothing (R8).
      if registration.nodeNumber == node.number { registration.isCancelled = true }
    case .adopt:
      guard let node = nearbyNode(), !node.adoptsLegacyCallback else { return }
      log("adopt the legacy callback on \(node.number)")
      node.adoptLegacyCallback()
    case .dropTarget:
      guard !targets.isEmpty else { return }
      let index = random.below(targets.count)
      log("drop the target of registration \(targets[index].registration.number)")
      targets.remove(at: index)
    case .dropNode:
      guard let node = nearbyNode(), random.chance(50) else { return }
      log("drop \(node.number)")
      drop(node)
    }
  }

  /// Registers a closure or, a quarter of the time, a target's action on `node`, for `traits`
  /// or for one or two random ones.
  @discardableResult
  private func register(
    on node: RandomPassNode,
    traits: [RandomPassTrait]? = nil
  ) -> RandomPassRegistration {
    var drawn: Set<RandomPassTrait> = [random.pick(RandomPassTrait.allCases)]
    if random.chance(40) { drawn.insert(random.pick(RandomPassTrait.allCases)) }
    let traits = traits ?? RandomPassTrait.allCases.filter(drawn.contains)
    let registration = RandomPassRegistration(
      number: registrations.count,
      nodeNumber: node.number,
      traits: traits,
      hasTarget: random.chance(25),
      baseline: node.traitCollection
    )
    registrations.append(registration)
    let definitions = traits.map(\.definition)
    if registration.hasTarget {
      let target = RandomPassTarget(world: self, registration: registration)
      targets.append(target)
      registration.target = target
      registration.token = node.registerForTraitChanges(
        definitions,
        target: target,
        action: RandomPassTarget.changed(node:previous:)
      )
    } else {
      registration.token = node.registerForTraitChanges(definitions) {
        [weak self, registration] (node: RandomPassNode, previous: TraitCollection) in
        self?.registrationCalled(registration, on: node, previous: previous)
      }
    }
    return registration
  }

  /// Lets go of `node`: out of its parent, its children detached (the world keeps them), its
  /// registrations gone with it (R9).
  private func drop(_ node: RandomPassNode) {
    node.removeFromTraitParent()
    for child in node.traitChildren { child.removeFromTraitParent() }
    nodes[node.number] = nil
    droppedNodes.insert(node.number)
    for registration in registrations where registration.nodeNumber == node.number {
      registration.isCancelled = true
    }
  }

  private func randomLiveNode() -> RandomPassNode? {
    let live = nodes.compactMap { $0 }
    return live.isEmpty ? nil : random.pick(live)
  }

  /// A root, 30 % of the time, or a live node.
  private func randomParent() -> TraitNode? {
    random.chance(30) ? random.pick(graphs).root : randomLiveNode()
  }

  // MARK: Checks after effects and steps

  /// Checks each graph's live nodes and registrations against a walk of its tree (R9).
  ///
  /// A registration whose target died may be counted until a pass purges it, so the count of
  /// registrations lies between those without and with them.
  ///
  /// - Complexity: O(*n* · *r*) for *n* nodes and *r* registrations.
  private func checkStatistics(_ context: String) {
    for (index, graph) in graphs.enumerated() {
      var nodeCount = 0
      var fewest = 0
      var most = 0
      var stack: [TraitNode] = [graph.root]
      while let node = stack.popLast() {
        nodeCount += 1
        stack.append(contentsOf: node.traitChildren)
        guard let node = node as? RandomPassNode else { continue }
        let legacy = node.adoptsLegacyCallback ? 1 : 0
        let uncancelled = registrations.filter { $0.nodeNumber == node.number && !$0.isCancelled }
        fewest += legacy + uncancelled.filter(\.isLive).count
        most += legacy + uncancelled.count
      }
      let statistics = graph.statistics
      if statistics.liveNodes != nodeCount
        || !(fewest...most).contains(statistics.liveRegistrations)
      {
        fail(
          "\(context): graph \(index) counts \(statistics.liveNodes) nodes and "
            + "\(statistics.liveRegistrations) registrations; its tree has \(nodeCount) nodes "
            + "and \(fewest)...\(most) registrations"
        )
      }
    }
  }

  /// Checks that every observer of every attached node has heard of its node's current
  /// collection: the legacy callback of the whole collection, registrations of their traits.
  private func checkObserversCurrent(_ context: String) {
    for case let node? in nodes where graphIndex(of: node) != nil {
      let current = node.traitCollection
      if node.adoptsLegacyCallback, node.lastReported != current {
        fail(
          "\(context): legacy \(node.number) missed a change: it last reported "
            + "\(describe(node.lastReported)), its collection is \(describe(current))"
        )
      }
      for registration in registrations
      where registration.nodeNumber == node.number && registration.isLive {
        for trait in registration.traits
        where trait.value(in: registration.lastHeard) != trait.value(in: current) {
          fail(
            "\(context): registration \(registration.number) on \(node.number) missed a change "
              + "of \(trait): it last heard \(trait.value(in: registration.lastHeard)), the "
              + "node has \(trait.value(in: current))"
          )
        }
      }
    }
  }

  /// Checks that every dropped node is gone, once no pass holds it (R9).
  private func checkDroppedNodesGone() {
    for number in droppedNodes.sorted() where weakNodes[number].node != nil {
      fail("dropped node \(number) is still alive after the step's passes")
    }
  }

  // MARK: Helpers

  /// The index of the graph whose tree holds `node`, if any.
  private func graphIndex(of node: TraitNode) -> Int? {
    var top = node
    while let parent = top.traitParent { top = parent }
    return graphs.firstIndex { $0.root === top }
  }

  private func isAncestor(_ candidate: TraitNode, of node: TraitNode) -> Bool {
    var current: TraitNode? = node
    while let ancestor = current {
      if ancestor === candidate { return true }
      current = ancestor.traitParent
    }
    return false
  }

  /// A node's number, or `root <graph>` for a graph's root.
  private func name(of node: TraitNode) -> String {
    if let node = node as? RandomPassNode { return "\(node.number)" }
    return graphs.firstIndex { $0.root === node }.map { "root \($0)" } ?? "?"
  }

  private func describe(_ collection: TraitCollection) -> String {
    RandomPassTrait.describe(collection)
  }

  private func log(_ line: String) {
    stepLog.append(String(repeating: "  ", count: handlerDepth) + line)
  }

  private func fail(_ message: String) {
    violations.append("step \(step): \(message)")
  }
}
