// The reference model of the differential test: a deliberately naive implementation of the
// contract of DESIGN §2 and rules R3–R10, and the operations that drive it and the engine alike.
//
// The model keeps a plain tree, plain override tables and a plain list of registrations per node,
// and recomputes every collection from the root down each time it needs one. Its update pass
// visits every node of the (sub)tree in pre-order in every round and asks each registration,
// in the order they were made, whether one of its traits differs between its baseline and the
// node's collection at that moment. It has no dirty flags, no filters and no caches, so what it
// predicts follows from the rules alone.
//
// Handlers may change the tree during a round. The round's walk then goes on over the tree as it
// is: from each node on its path it takes the first child it has not visited in this round, so a
// node moved to where the walk has not been yet is visited in this round, and a node it visited
// already, wherever it is moved, only in the next (R5). A node outside the pass's graph hears of
// nothing (R10), even on the walk's path.

// MARK: - Operations

/// A target of a target-action registration.
enum RMTargetRef: Sendable, Hashable, CustomStringConvertible {
  /// An ``RMTarget`` with this number.
  case object(Int)
  /// The node with this number.
  case node(Int)

  var description: String {
    switch self {
    case .object(let id): "target\(id)"
    case .node(let id): "node\(id)"
    }
  }
}

/// The form of a registration (DESIGN §2): a closure, a target and an action taking 0, 1 or 2
/// arguments, or an action of the observed node itself.
enum RMForm: Sendable, Hashable, CustomStringConvertible {
  case closure
  case action0(RMTargetRef)
  case action1(RMTargetRef)
  case action2(RMTargetRef)
  case selfAction

  var description: String {
    switch self {
    case .closure: "closure"
    case .action0(let target): "action0(\(target))"
    case .action1(let target): "action1(\(target))"
    case .action2(let target): "action2(\(target))"
    case .selfAction: "selfAction"
    }
  }

  /// The target the engine holds weakly, if any.
  var target: RMTargetRef? {
    switch self {
    case .closure, .selfAction: nil
    case .action0(let target), .action1(let target), .action2(let target): target
    }
  }

  /// Whether the callback receives the previous collection.
  var receivesPrevious: Bool {
    switch self {
    case .closure, .action2: true
    case .action0, .action1, .selfAction: false
    }
  }
}

/// One registration to make: its number, node, traits, form and what its handler does.
struct RMRegistrationSpec: Sendable, Hashable, CustomStringConvertible {
  let id: Int
  let node: Int
  /// Traits named one by one; duplicates are allowed and count once (R8).
  let traits: [RMTraitID]
  /// Semantic sets named as a whole.
  let sets: [RMSemanticSet]
  let form: RMForm
  let reaction: RMReaction?

  /// The traits the model compares: each named trait once, in a fixed order.
  var modelTraits: [RMTraitID] {
    let named = Set(traits + sets.flatMap(\.modelTraits))
    return RMTraitID.allCases.filter(named.contains)
  }

  var description: String {
    var text = "r\(id) on n\(node) \(traits)"
    if !sets.isEmpty { text += " + \(sets)" }
    text += " \(form)"
    if let reaction { text += " → \(reaction)" }
    return text
  }
}

/// What a handler does each time it is called, at most `uses` times.
struct RMReaction: Sendable, Hashable, CustomStringConvertible {
  let effect: RMEffect
  let uses: Int

  var description: String { "\(effect) ×\(uses)" }
}

/// A change a handler makes during the pass.
enum RMEffect: Sendable, Hashable, CustomStringConvertible {
  /// Sets an override; a stamp value is made unique per use.
  case setOverride(node: Int, RMTraitID, Int)
  case removeOverride(node: Int, RMTraitID)
  /// Unregisters registration `registration` through node `node`'s method.
  case unregister(registration: Int, node: Int)
  /// Registers a new registration (without a reaction of its own).
  indirect case register(RMRegistrationSpec)
  /// Lets the object target with this number die.
  case dropTarget(Int)
  /// Changes a graph's base traits.
  case setBase(graph: Int, RMTraitID, Int)
  /// Runs a graph's pass: a no-op for the graph being updated (R5), a nested pass for another.
  case updateGraph(Int)
  /// Runs a subtree's pass, likewise.
  case updateSubtree(Int)
  /// Moves node `node` under `parent`, after its children; skipped when that would make a
  /// cycle, move a root, or move a node from one graph's tree into another tree (a detached
  /// node may go anywhere).
  case move(node: Int, to: Int)
  /// Detaches node `node` from its parent (`removeFromTraitParent`).
  case detach(node: Int)

  var description: String {
    switch self {
    case .setOverride(let node, let trait, let value): "set n\(node).\(trait)=\(value)"
    case .removeOverride(let node, let trait): "remove n\(node).\(trait)"
    case .unregister(let registration, let node): "unregister r\(registration) via n\(node)"
    case .register(let spec): "register [\(spec)]"
    case .dropTarget(let id): "drop target\(id)"
    case .setBase(let graph, let trait, let value): "set base of g\(graph) \(trait)=\(value)"
    case .updateGraph(let graph): "update g\(graph)"
    case .updateSubtree(let id): "update subtree n\(id)"
    case .move(let node, let parent): "move n\(node) under n\(parent)"
    case .detach(let node): "detach n\(node)"
    }
  }

  /// The value a set-override effect writes at its `use`th run (from 0): stamps must differ at
  /// each write, so that the model sees each write as the change it is for the engine.
  static func writtenValue(_ value: Int, of trait: RMTraitID, use: Int) -> Int {
    trait == .stamp ? value * 16 + use : value
  }
}

/// One run of a handler's effect: the registration whose handler ran it, and the run (from 0).
struct RMEffectRun: Sendable, Hashable {
  let registration: Int
  let use: Int
}

/// One step of a differential sequence.
///
/// Steps name nodes, registrations and targets by number. A step whose numbers name nothing (a
/// node dropped earlier, say), or that would break a precondition (a cycle, a move of a root),
/// does nothing on both sides: so a shrunk sequence still runs.
enum RMOperation: Sendable, Hashable, CustomStringConvertible {
  /// Makes node `id`, the last child of `parent`, or detached.
  case addNode(Int, parent: Int?)
  case move(Int, to: Int)
  case removeFromParent(Int)
  /// Detaches node `id` and lets it die; its children become detached roots.
  case dropNode(Int)
  case setOverride(Int, RMTraitID, Int)
  case removeOverride(Int, RMTraitID)
  case setBase(graph: Int, RMTraitID, Int)
  case register(RMRegistrationSpec)
  /// Unregisters `registration` (nil: a nil token) through node `node`'s method.
  case unregister(registration: Int?, node: Int)
  case addTarget(Int)
  case dropTarget(Int)
  /// Lets a graph die; its root lives on as a detached node.
  case dropGraph(Int)
  /// `graph.updateTraitsIfNeeded()`.
  case updateGraph(Int)
  /// `node.updateTraitsIfNeeded()`.
  case updateSubtree(Int)
  /// Reads the node's collection, which must be the model's (R6).
  case read(Int)

  var description: String {
    switch self {
    case .addNode(let id, let parent): "add n\(id) under \(parent.map { "n\($0)" } ?? "nothing")"
    case .move(let id, let parent): "move n\(id) under n\(parent)"
    case .removeFromParent(let id): "remove n\(id) from its parent"
    case .dropNode(let id): "drop n\(id)"
    case .setOverride(let id, let trait, let value): "set n\(id).\(trait)=\(value)"
    case .removeOverride(let id, let trait): "remove n\(id).\(trait)"
    case .setBase(let graph, let trait, let value): "set base of g\(graph) \(trait)=\(value)"
    case .register(let spec): "register \(spec)"
    case .unregister(let registration, let node):
      "unregister \(registration.map { "r\($0)" } ?? "nil") via n\(node)"
    case .addTarget(let id): "add target\(id)"
    case .dropTarget(let id): "drop target\(id)"
    case .dropGraph(let graph): "drop g\(graph)"
    case .updateGraph(let graph): "update g\(graph)"
    case .updateSubtree(let id): "update subtree n\(id)"
    case .read(let id): "read n\(id)"
    }
  }
}

/// One delivered callback, reduced to what the contract fixes.
///
/// `round` is the round of the running pass of the node's graph (R5: a registration is called
/// at most once per round, and a change is delivered in the round the contract names). Values are those of the registration's own traits (in ``RMTraitID`` order), because R5 leaves
/// the other traits of `previousTraitCollection` unspecified; `previous` is nil for the forms
/// that do not receive it.
struct RMCallback: Sendable, Hashable, CustomStringConvertible {
  let node: Int
  let registration: Int
  /// The target the action was called on, if the form has one.
  let target: RMTargetRef?
  let previous: [Int]?
  let current: [Int]
  let round: Int

  var description: String {
    var text = "r\(registration)@n\(node)#\(round)"
    if let target { text += " on \(target)" }
    text += " \(previous.map { "\($0)" } ?? "-")→\(current)"
    return text
  }
}

// MARK: - The model

/// The naive reference implementation of the observation contract.
struct RMReferenceModel {
  struct Node {
    var parent: Int?
    var children: [Int] = []
    /// The override of each trait, by raw value; nil when none is set.
    var overrides = [Int?](repeating: nil, count: RMTraitID.count)
    /// The live registrations, in the order they were made.
    var registrations: [Int] = []
    /// The graph whose root this node is; nil once the graph is gone.
    var rootOf: Int?
  }

  struct Registration {
    let spec: RMRegistrationSpec
    let traits: [RMTraitID]
    /// The node's collection when the registration was last called, or made.
    var baseline: [Int]
    var usesLeft: Int
  }

  /// The known engine bugs whose triggers both sides skip (see ``RMKnownBugs``).
  let avoidedBugs: RMKnownBugs
  private(set) var nodes: [Node?] = []
  private(set) var registrations: [Registration?] = []
  /// Whether each registration number was ever used; numbers are never reused.
  private var made: [Bool] = []
  /// The object targets that are alive.
  private(set) var targets: Set<Int> = []
  /// Each graph's base traits.
  private(set) var bases: [[Int]]
  /// Whether each graph is alive.
  private(set) var liveGraphs: [Bool]
  /// Callbacks delivered by the step being applied.
  private var log: [RMCallback] = []
  /// The graphs whose pass is running.
  private var updating: Set<Int> = []
  /// The nodes of the handlers running, outermost first (nested passes stack them).
  private var callers: [Int] = []
  /// The targets of the handlers running: the engine holds each for the length of its call,
  /// so a target dropped meanwhile dies only when the last call on it returns.
  private var heldTargets: [RMTargetRef?] = []
  /// Object targets dropped while held.
  private var doomedTargets: Set<Int> = []
  /// The rounds running, outermost first (nested passes of other graphs stack them).
  private var walks: [Walk] = []
  /// The handler tree changes (moves and detachments) that the step being applied made; the
  /// others it skipped, because they were invalid or trigger a known bug the model avoids.
  ///
  /// NB: the engine driver makes exactly these: whether a tree change triggers a known bug
  /// depends on where the round's walk is, which only the model knows.
  private(set) var appliedTreeChanges: Set<RMEffectRun> = []

  /// Where one running round of a pass is.
  struct Walk {
    let graph: Int
    /// The round's number in its pass, from 1.
    let round: Int
    /// The nodes the round visited (every node of the tree it went through: the model has no
    /// dirty flags).
    var visited: Set<Int> = []
    /// The nodes the round surely entered in any engine: those where it called a registration,
    /// and the path that led there.
    var entered: Set<Int> = []
    /// The nodes whose children the walk is going through, outermost first.
    var path: [Int] = []
    /// The node whose registrations are being asked, if any.
    var current: Int?
  }

  /// A model of `graphs` graphs, whose roots are nodes 0..<graphs.
  init(graphs: Int, avoiding bugs: RMKnownBugs = []) {
    avoidedBugs = bugs
    bases = Array(repeating: RMTraitID.defaults, count: graphs)
    liveGraphs = Array(repeating: true, count: graphs)
    for graph in 0..<graphs { nodes.append(Node(parent: nil, rootOf: graph)) }
  }

  // MARK: Queries

  var graphCount: Int { bases.count }

  func exists(_ node: Int) -> Bool { state(of: node) != nil }

  /// Node `id`, if it is alive; any number is accepted.
  private func state(of id: Int) -> Node? { id >= 0 && id < nodes.count ? nodes[id] : nil }

  func isRoot(_ node: Int) -> Bool { exists(node) && nodes[node]?.rootOf != nil }

  /// The numbers of the nodes that are alive.
  var liveNodes: [Int] { nodes.indices.filter { nodes[$0] != nil } }

  /// `node`'s parent, if it has one.
  func parent(of node: Int) -> Int? { state(of: node)?.parent }

  /// The graph whose tree holds `node`, if any.
  func graph(of node: Int) -> Int? {
    var top = node
    while let parent = state(of: top)?.parent { top = parent }
    return state(of: top)?.rootOf
  }

  /// Whether `ancestor` is `node` or one of its ancestors.
  func isAncestor(_ ancestor: Int, ofOrSelf node: Int) -> Bool {
    var current: Int? = node
    while let candidate = current {
      if candidate == ancestor { return true }
      current = state(of: candidate)?.parent
    }
    return false
  }

  /// `node`'s collection: its root's starting values (its graph's base, or the defaults), then
  /// every override on the way down.
  func collection(of node: Int) -> [Int] {
    var chain: [Int] = []
    var current: Int? = node
    while let id = current, let state = nodes[id] {
      chain.append(id)
      current = state.parent
    }
    var values = nodes[chain[chain.count - 1]]?.rootOf.map { bases[$0] } ?? RMTraitID.defaults
    for id in chain.reversed() {
      guard let overrides = nodes[id]?.overrides else { continue }
      for (trait, value) in overrides.enumerated() {
        if let value { values[trait] = value }
      }
    }
    return values
  }

  /// The registration `id`, if it is alive (made, not unregistered, not purged).
  func registration(_ id: Int) -> Registration? {
    id >= 0 && id < registrations.count ? registrations[id] : nil
  }

  /// The number of live registrations on `node`.
  func registrationCount(of node: Int) -> Int { registrationIDs(of: node).count }

  /// The live registrations on `node`, in the order they were made.
  func registrationIDs(of node: Int) -> [Int] { state(of: node)?.registrations ?? [] }

  /// The nodes of the tree that holds `node`, in pre-order from its root.
  func preorder(ofTreeOf node: Int) -> [Int] {
    var top = node
    while let parent = state(of: top)?.parent { top = parent }
    var order: [Int] = []
    var stack = [top]
    while let id = stack.popLast() {
      order.append(id)
      stack.append(contentsOf: (state(of: id)?.children ?? []).reversed())
    }
    return order
  }

  /// What `graph.statistics` must report: the nodes of its tree and their registrations.
  func statistics(of graph: Int) -> (nodes: Int, registrations: Int) {
    var nodeCount = 0
    var registrationCount = 0
    var stack = [graph]
    while let id = stack.popLast(), let node = nodes[id] {
      nodeCount += 1
      registrationCount += node.registrations.count
      stack.append(contentsOf: node.children)
    }
    return (nodeCount, registrationCount)
  }

  /// Whether `target` is alive (true for the forms without a target).
  func targetIsAlive(_ target: RMTargetRef?) -> Bool {
    switch target {
    case nil: true
    case .object(let id): targets.contains(id)
    case .node(let id): exists(id)
    }
  }

  // MARK: Steps

  /// Applies `operation` and returns the callbacks it delivers, in order.
  mutating func apply(_ operation: RMOperation) -> [RMCallback] {
    log = []
    appliedTreeChanges = []
    switch operation {
    case .addNode(let id, let parent):
      guard id >= nodes.count || nodes[id] == nil else { break }
      while nodes.count <= id { nodes.append(nil) }
      nodes[id] = Node(parent: nil, rootOf: nil)
      if let parent, exists(parent) { attach(id, to: parent) }
    case .move(let id, let parent):
      guard exists(id), exists(parent), !isRoot(id), !isAncestor(id, ofOrSelf: parent) else {
        break
      }
      detach(id)
      attach(id, to: parent)
    case .removeFromParent(let id):
      guard exists(id), !isRoot(id) else { break }
      detach(id)
    case .dropNode(let id):
      guard exists(id), !isRoot(id) else { break }
      drop(id)
    case .setOverride(let id, let trait, let value):
      setOverride(id, trait, value)
    case .removeOverride(let id, let trait):
      removeOverride(id, trait)
    case .setBase(let graph, let trait, let value):
      guard graph < bases.count else { break }
      bases[graph][trait.rawValue] = value
    case .register(let spec):
      register(spec)
    case .unregister(let registration, let node):
      if let registration { unregister(registration, through: node) }
    case .addTarget(let id):
      targets.insert(id)
    case .dropTarget(let id):
      dropTarget(id)
    case .dropGraph(let graph):
      guard graph < liveGraphs.count, liveGraphs[graph] else { break }
      liveGraphs[graph] = false
      nodes[graph]?.rootOf = nil
    case .updateGraph(let graph):
      if graph < liveGraphs.count, liveGraphs[graph] { update(from: graph) }
    case .updateSubtree(let id):
      if exists(id) { update(from: id) }
    case .read:
      break
    }
    return log
  }

  private mutating func attach(_ id: Int, to parent: Int) {
    nodes[id]?.parent = parent
    nodes[parent]?.children.append(id)
  }

  private mutating func detach(_ id: Int) {
    guard let parent = nodes[id]?.parent else { return }
    nodes[parent]?.children.removeAll { $0 == id }
    nodes[id]?.parent = nil
  }

  /// A dropped node dies with its registrations; its children become detached roots.
  private mutating func drop(_ id: Int) {
    detach(id)
    guard let node = nodes[id] else { return }
    for child in node.children { nodes[child]?.parent = nil }
    for registration in node.registrations { registrations[registration] = nil }
    nodes[id] = nil
  }

  private mutating func setOverride(_ id: Int, _ trait: RMTraitID, _ value: Int) {
    guard exists(id) else { return }
    nodes[id]?.overrides[trait.rawValue] = value
  }

  private mutating func removeOverride(_ id: Int, _ trait: RMTraitID) {
    guard exists(id) else { return }
    nodes[id]?.overrides[trait.rawValue] = nil
  }

  /// R7: the baseline is the node's collection now, and nothing is called.
  private mutating func register(_ spec: RMRegistrationSpec) {
    guard exists(spec.node), targetIsAlive(spec.form.target),
      spec.id >= made.count || !made[spec.id]
    else { return }
    while registrations.count <= spec.id { registrations.append(nil) }
    while made.count <= spec.id { made.append(false) }
    made[spec.id] = true
    registrations[spec.id] = Registration(
      spec: spec,
      traits: spec.modelTraits,
      baseline: collection(of: spec.node),
      usesLeft: spec.reaction?.uses ?? 0
    )
    nodes[spec.node]?.registrations.append(spec.id)
  }

  /// R8: a dropped target dies, unless a running call holds it.
  private mutating func dropTarget(_ id: Int) {
    guard targets.contains(id) else { return }
    if heldTargets.contains(.object(id)) {
      doomedTargets.insert(id)
    } else {
      targets.remove(id)
    }
  }

  /// R8: idempotent, and a no-op through another node.
  private mutating func unregister(_ id: Int, through node: Int) {
    guard let registration = registration(id), registration.spec.node == node else { return }
    remove(id)
  }

  private mutating func remove(_ id: Int) {
    guard let node = registrations[id]?.spec.node else { return }
    registrations[id] = nil
    nodes[node]?.registrations.removeAll { $0 == id }
  }

  // MARK: The update pass

  /// R5: rounds of pre-order walks of `start`'s subtree until a round calls nothing.
  private mutating func update(from start: Int) {
    guard let graph = graph(of: start), !updating.contains(graph) else { return }
    updating.insert(graph)
    defer { updating.remove(graph) }
    var rounds = 0
    while true {
      rounds += 1
      precondition(rounds < 100, "the model's pass did not converge; the generator must bound it")
      if !walkRound(from: start, graph: graph, round: rounds) { break }
    }
  }

  /// One round: a pre-order walk of `start`'s subtree as handlers leave it, which visits each
  /// node at most once; returns whether it called anything.
  private mutating func walkRound(from start: Int, graph: Int, round: Int) -> Bool {
    walks.append(Walk(graph: graph, round: round))
    defer { walks.removeLast() }
    let walk = walks.count - 1
    var called = visit(start, in: walk)
    walks[walk].path = [start]
    while let top = walks[walk].path.last {
      let visited = walks[walk].visited
      guard let child = nodes[top]?.children.first(where: { !visited.contains($0) }) else {
        walks[walk].path.removeLast()
        continue
      }
      if visit(child, in: walk) { called = true }
      walks[walk].path.append(child)
    }
    return called
  }

  /// Asks the node's registrations, those made before its turn, each at its own turn; returns
  /// whether one was called.
  private mutating func visit(_ node: Int, in walk: Int) -> Bool {
    walks[walk].visited.insert(node)
    walks[walk].current = node
    defer { walks[walk].current = nil }
    var called = false
    for id in nodes[node]?.registrations ?? [] {
      // R10: a node a handler detached (or moved into another graph) hears of nothing.
      guard self.graph(of: node) == walks[walk].graph else { continue }
      if deliver(id, at: node, in: walk) { called = true }
    }
    return called
  }

  /// Calls registration `id` if one of its traits differs from its baseline; returns whether
  /// it was called.
  private mutating func deliver(_ id: Int, at node: Int, in walk: Int) -> Bool {
    // Unregistered (or purged) before its turn: not called (R8).
    guard let registration = registration(id) else { return false }
    let current = collection(of: node)
    guard
      registration.traits.contains(where: {
        current[$0.rawValue] != registration.baseline[$0.rawValue]
      })
    else { return false }
    // A dead target's registration is skipped and purged (R8).
    guard targetIsAlive(registration.spec.form.target) else {
      remove(id)
      return false
    }
    log.append(
      RMCallback(
        node: node,
        registration: id,
        target: registration.spec.form.target,
        previous: registration.spec.form.receivesPrevious
          ? registration.traits.map { registration.baseline[$0.rawValue] } : nil,
        current: registration.traits.map { current[$0.rawValue] },
        round: walks[walk].round
      )
    )
    registrations[id]?.baseline = current
    walks[walk].entered.formUnion(walks[walk].path)
    walks[walk].entered.insert(node)
    if let reaction = registration.spec.reaction, registration.usesLeft > 0 {
      registrations[id]?.usesLeft -= 1
      let target = registration.spec.form.target
      callers.append(node)
      heldTargets.append(target)
      perform(
        reaction.effect,
        run: RMEffectRun(registration: id, use: reaction.uses - registration.usesLeft)
      )
      callers.removeLast()
      heldTargets.removeLast()
      if case .object(let id) = target, doomedTargets.contains(id), !heldTargets.contains(target) {
        doomedTargets.remove(id)
        targets.remove(id)
      }
    }
    return true
  }

  /// Whether a handler change at `node` (or, with nil, at the base of `graph`) is skipped
  /// because it is at or above the node of a running handler (see ``RMKnownBugs``).
  private func skipsChange(at node: Int?, graph: Int? = nil) -> Bool {
    guard avoidedBugs.contains(.handlerChangesAboveTheirNode) else { return false }
    return callers.contains { caller in
      if let node { isAncestor(node, ofOrSelf: caller) } else { self.graph(of: caller) == graph }
    }
  }

  private mutating func perform(_ effect: RMEffect, run: RMEffectRun) {
    let use = run.use
    switch effect {
    case .setOverride(let node, let trait, let value):
      guard !skipsChange(at: node) else { return }
      setOverride(node, trait, RMEffect.writtenValue(value, of: trait, use: use))
    case .removeOverride(let node, let trait):
      guard !skipsChange(at: node) else { return }
      removeOverride(node, trait)
    case .unregister(let registration, let node):
      unregister(registration, through: node)
    case .register(let spec):
      let belowCaller = callers.last.map { isAncestor($0, ofOrSelf: spec.node) } ?? false
      guard belowCaller || !avoidedBugs.contains(.registrationsBehindTheWalk) else { return }
      register(spec)
    case .dropTarget(let id):
      dropTarget(id)
    case .setBase(let graph, let trait, let value):
      guard graph < bases.count, !skipsChange(at: nil, graph: graph),
        !avoidedBugs.contains(.baseChangesInSubtreePasses)
      else { return }
      bases[graph][trait.rawValue] = RMEffect.writtenValue(value, of: trait, use: use)
    case .updateGraph(let graph):
      if graph < liveGraphs.count, liveGraphs[graph] { update(from: graph) }
    case .updateSubtree(let id):
      if exists(id) { update(from: id) }
    case .move(let id, let parent):
      guard canMove(id, to: parent), !avoidsMove(id, to: parent) else { return }
      appliedTreeChanges.insert(run)
      // Already its parent's last child: `addTraitChild` changes nothing.
      guard nodes[parent]?.children.last != id else { return }
      detach(id)
      attach(id, to: parent)
    case .detach(let id):
      guard exists(id), !isRoot(id), nodes[id]?.parent != nil, !avoidsDetaching(id) else {
        return
      }
      appliedTreeChanges.insert(run)
      detach(id)
    }
  }

  // MARK: Tree changes by handlers

  /// Whether a handler may move `id` under `parent`: both alive, no root moved, no cycle, and
  /// no move out of one graph's tree into another tree.
  func canMove(_ id: Int, to parent: Int) -> Bool {
    guard exists(id), exists(parent), !isRoot(id), !isAncestor(id, ofOrSelf: parent) else {
      return false
    }
    let from = graph(of: id)
    return from == nil || from == graph(of: parent)
  }

  /// Whether the move of `id` under `parent` is skipped because it triggers a known bug (see
  /// ``RMKnownBugs``).
  private func avoidsMove(_ id: Int, to parent: Int) -> Bool {
    guard avoidedBugs.contains(.passedNodesCalledInTheSameRound) else { return false }
    if nodes[parent]?.children.last == id { return false }
    if changesChildrenOnAWalkPath(of: [nodes[id]?.parent, parent]) { return true }
    // A subtree with a node the round passed without entering, moved where the walk will go.
    guard let target = graph(of: parent), let walk = walks.lastIndex(where: { $0.graph == target })
    else { return false }
    let state = walks[walk]
    guard !state.visited.contains(parent) || state.current == parent else { return false }
    return subtree(of: id).contains { state.visited.contains($0) && !state.entered.contains($0) }
  }

  /// Whether the detachment of `id` is skipped because it triggers a known bug.
  private func avoidsDetaching(_ id: Int) -> Bool {
    if avoidedBugs.contains(.passedNodesCalledInTheSameRound),
      changesChildrenOnAWalkPath(of: [nodes[id]?.parent])
    {
      return true
    }
    guard avoidedBugs.contains(.detachedNodesHearDuringThePass) else { return false }
    return walks.contains { walk in
      (walk.path + [walk.current].compactMap { $0 }).contains { isAncestor(id, ofOrSelf: $0) }
    }
  }

  /// Whether one of `parents` is on the path of a running walk (the node being visited is not:
  /// the walk goes through its children only after its registrations).
  private func changesChildrenOnAWalkPath(of parents: [Int?]) -> Bool {
    walks.contains { walk in parents.contains { $0.map(walk.path.contains) ?? false } }
  }

  /// `id` and its descendants.
  private func subtree(of id: Int) -> [Int] {
    var result: [Int] = []
    var stack = [id]
    while let node = stack.popLast() {
      result.append(node)
      stack.append(contentsOf: nodes[node]?.children ?? [])
    }
    return result
  }
}
