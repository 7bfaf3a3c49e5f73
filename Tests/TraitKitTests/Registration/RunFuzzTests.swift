import Testing
import TraitKit

// A fuzzer of runs (see DeliveryRunTests) on one node that moves between two graphs, from
// helper-68's review of the run's extent (ca73b5b): blocks of handlers, with target-actions and
// legacy callbacks among them; handlers that cancel, register (growing the table), write, let
// targets go, move the node to the other graph and run its pass, or run the other graph's pass;
// and captured objects whose deinitializers, run when a table releases a handler, do the same.
// The oracle is each registration's contract: called only while live, with the values it last
// heard of as previous, only when a trait it observes differs; once both graphs settle, it has
// heard of the node's values; each pass counts exactly the calls it made; and no handler's
// context outlives the world.

/// An object a handler captures, which counts itself among the live ones of its world until it
/// goes, and then runs `action`: a deinitializer that runs user code when the table releases the
/// handler.
private final class RunFuzzTripwire {
  let live: RunFuzzCount
  let action: () -> Void
  init(_ live: RunFuzzCount, _ action: @escaping () -> Void = {}) {
    self.live = live
    self.action = action
    live.value += 1
  }
  deinit {
    live.value -= 1
    action()
  }
}

/// A count that tripwires share.
private final class RunFuzzCount {
  var value = 0
}

private final class RunFuzzTarget {
  unowned let world: RunFuzzWorld
  let id: Int
  init(world: RunFuzzWorld, id: Int) {
    self.world = world
    self.id = id
  }
  func fire(node: GTNode, previous: TraitCollection) { world.called(id, node, previous) }
}

private final class RunFuzzWorld {
  enum Kind { case closure, target, legacy }
  struct Reg {
    let traits: [Int]
    let kind: Kind
    var token: TraitChangeRegistration?
    var lastSeen: [Int]
    var live = true
  }
  enum Action {
    case cancel(Int)
    case register(Int, [Int])
    case write(Int, Int, Int)  // owner (0, 1 graph roots; 2 node), trait, value
    case hop
    case roundTrip
    case dropTarget
    case updateOther
  }

  var random: RMRandom
  let graphs = [TraitGraph(), TraitGraph()]
  let node = GTNode("n")
  var regs: [Reg] = []
  var targets: [Int: RunFuzzTarget] = [:]
  var planned: [Int: Action] = [:]
  var passStack: [(graph: Int, calls: Int, legacy: Int)] = []
  var failures: [String] = []
  var deinitBudget = 30
  var hopBudget = 6
  var stats = (calls: 0, hops: 0, deinits: 0, nestedChecks: 0)
  /// The tripwires alive: none once the world tears down, or a handler's context leaked.
  let live = RunFuzzCount()

  init(seed: UInt64) {
    random = RMRandom(seed: seed)
    graphs[0].root.addTraitChild(node)
  }

  static func values(_ collection: TraitCollection) -> [Int] {
    [collection.horizontalSizeClass.rawValue, collection.userInterfaceStyle.rawValue]
  }

  var graphOfNode: Int? {
    if node.traitParent === graphs[0].root { return 0 }
    if node.traitParent === graphs[1].root { return 1 }
    return nil
  }

  func fail(_ message: String) {
    if failures.count < 5 { failures.append(message) }
  }

  func called(_ id: Int, _ node: GTNode, _ previous: TraitCollection) {
    stats.calls += 1
    let reg = regs[id]
    guard reg.live else { return fail("r\(id) called after it was cancelled") }
    let now = Self.values(node.traitCollection)
    let before = Self.values(previous)
    for trait in reg.traits where before[trait] != reg.lastSeen[trait] {
      fail("r\(id) previous \(before) but it last saw \(reg.lastSeen)")
    }
    if !reg.traits.contains(where: { now[$0] != before[$0] }) {
      fail("r\(id) called without a change: \(before) → \(now)")
    }
    regs[id].lastSeen = now
    if passStack.isEmpty {
      fail("r\(id) called outside a pass")
    } else if reg.kind == .legacy {
      passStack[passStack.count - 1].legacy += 1
    } else {
      passStack[passStack.count - 1].calls += 1
    }
    if let action = planned.removeValue(forKey: id) {
      active.insert(id)
      perform(action, by: id)
      active.remove(id)
    }
  }

  /// The registrations whose handlers run: a target among them stays alive until it returns.
  var active: Set<Int> = []

  func cancel(_ id: Int) {
    guard regs.indices.contains(id), regs[id].live, let token = regs[id].token else { return }
    regs[id].live = false
    node.unregisterForTraitChanges(token)
  }

  func randomTraits() -> [Int] {
    switch random.below(10) {
    case 0..<6: [0]
    case 6..<9: [1]
    default: [0, 1]
    }
  }

  func register(_ count: Int, _ traits: [Int]) {
    for _ in 0..<count {
      let id = regs.count
      let kindRoll = random.below(100)
      let kind: Kind = kindRoll < 80 ? .closure : kindRoll < 95 ? .target : .legacy
      regs.append(Reg(traits: kind == .legacy ? [0, 1] : traits, kind: kind, lastSeen: []))
      regs[id].lastSeen = Self.values(node.traitCollection)
      let definitions: [TraitKit.Trait] = traits.map {
        $0 == 0 ? TraitHorizontalSizeClass.self : TraitUserInterfaceStyle.self
      }
      let token: TraitChangeRegistration
      switch kind {
      case .closure:
        var tripwire = RunFuzzTripwire(live)
        if deinitBudget > 0, random.chance(15) {
          deinitBudget -= 1
          let action = randomAction(forDeinit: true)
          tripwire = RunFuzzTripwire(live) { [unowned self] in
            guard !self.disabled else { return }
            self.stats.deinits += 1
            self.perform(action, by: -1)
          }
        }
        token = node.registerForTraitChanges(definitions) {
          [unowned self] (node: GTNode, previous: TraitCollection) in
          withExtendedLifetime(tripwire) { self.called(id, node, previous) }
        }
      case .target:
        let target = RunFuzzTarget(world: self, id: id)
        targets[id] = target
        token = node.registerForTraitChanges(
          definitions,
          target: target,
          action: RunFuzzTarget.fire
        )
      case .legacy:
        token = node._registerForAllTraitChanges(
          interestingTraits: [TraitHorizontalSizeClass.self, TraitUserInterfaceStyle.self]
        ) { [unowned self] node, previous in
          guard let node = node as? GTNode else { return self.fail("r\(id) called on \(node)") }
          self.called(id, node, previous)
        }
      }
      regs[id].token = token
    }
  }

  func randomAction(forDeinit: Bool) -> Action {
    switch random.below(100) {
    case ..<35: return .cancel(random.below(max(1, regs.count + 10)))
    case ..<55: return .register(random.chance(30) ? 1 + random.below(24) : 1, randomTraits())
    case ..<75: return .write(random.below(3), random.below(2), random.below(3))
    case ..<85: return .dropTarget
    case ..<89: return .hop
    case ..<95: return .roundTrip
    default: return .updateOther
    }
  }

  var disabled = false

  func teardown() {
    disabled = true
    planned = [:]
    for id in regs.indices { cancel(id) }
    targets = [:]
  }

  func perform(_ action: Action, by id: Int) {
    guard !disabled else { return }
    switch action {
    case .cancel(let target):
      cancel(target < regs.count ? target : id)
    case .register(let count, let traits):
      register(count, traits)
    case .write(let owner, let trait, let value):
      let node: TraitNode = owner < 2 ? graphs[owner].root : self.node
      if trait == 0 {
        node.traitOverrides.horizontalSizeClass = UserInterfaceSizeClass(rawValue: value)!
      } else {
        node.traitOverrides.userInterfaceStyle = UserInterfaceStyle(rawValue: value)!
      }
    case .dropTarget:
      guard
        let key = targets.keys.sorted().first(where: { !active.contains($0) && random.chance(30) })
      else { return }
      regs[key].live = false
      targets[key] = nil
    case .hop:
      _ = hop()
    case .roundTrip:
      guard let here = hop() else { return }
      graphs[here].root.addTraitChild(node)
      if random.chance(50) { update(here) }
    case .updateOther:
      if let here = graphOfNode { update(1 - here) } else { update(random.below(2)) }
    }
  }

  /// Moves the node to the other graph and runs that graph's pass, while the budget of hops
  /// lasts and the node is in a graph; returns the graph it was in.
  func hop() -> Int? {
    guard hopBudget > 0, let here = graphOfNode else { return nil }
    hopBudget -= 1
    stats.hops += 1
    graphs[1 - here].root.addTraitChild(node)
    update(1 - here)
    return here
  }

  /// Runs graph `index`'s pass, unless it runs already, and checks what it counted.
  func update(_ index: Int) {
    guard !passStack.contains(where: { $0.graph == index }) else { return }
    passStack.append((index, 0, 0))
    graphs[index].updateTraitsIfNeeded()
    let pass = passStack.removeLast()
    if passStack.count > 0 { stats.nestedChecks += 1 }
    let counted = graphs[index].statistics.lastPass
    if counted.callbacksDelivered != pass.calls {
      fail("graph \(index): \(pass.calls) calls, counted \(counted.callbacksDelivered)")
    }
    if counted.legacyCallbacksDelivered != pass.legacy {
      fail(
        "graph \(index): \(pass.legacy) legacy calls, counted \(counted.legacyCallbacksDelivered)"
      )
    }
  }

  func settle(_ step: Int) {
    for _ in 0..<6 {
      update(0)
      update(1)
    }
    let now = Self.values(node.traitCollection)
    for (id, reg) in regs.enumerated() where reg.live {
      if reg.traits.contains(where: { now[$0] != reg.lastSeen[$0] }) {
        fail("step \(step): r\(id) missed a change: saw \(reg.lastSeen), node has \(now)")
      }
    }
  }

  func run(steps: Int) -> [String] {
    register(8 + random.below(40), randomTraits())
    for step in 0..<steps {
      switch random.below(100) {
      case ..<25:
        register(random.chance(50) ? 8 + random.below(30) : 1 + random.below(4), randomTraits())
      case ..<40:
        for _ in 0..<(1 + random.below(6)) { cancel(random.below(max(1, regs.count))) }
      case ..<45:
        perform(.dropTarget, by: -1)
      case ..<50:
        perform(.hop, by: -1)
      default:
        // A change, handlers' plans, a pass.
        for _ in 0..<(1 + random.below(2)) {
          perform(.write(random.below(3), random.below(2), random.below(3)), by: -1)
        }
        planned = [:]
        for id in regs.indices where regs[id].live && random.chance(6) {
          planned[id] = randomAction(forDeinit: false)
        }
        update(graphOfNode ?? 0)
        planned = [:]
      }
      if random.chance(10) { settle(step) }
      if !failures.isEmpty { return failures }
    }
    settle(steps)
    return failures
  }
}

@Suite("Runs on a node that moves between graphs, fuzzed")
struct RunFuzzTests {
  @Test("runs over a node moving between graphs keep every registration's contract")
  func fuzz() {
    let base: UInt64 = 0x68
    var totals = (calls: 0, hops: 0, deinits: 0, nested: 0)
    for iteration in 0..<300 {
      let seed = RMRandom.seed(base: base, index: iteration)
      let world = RunFuzzWorld(seed: seed)
      let failures = world.run(steps: 60)
      totals.calls += world.stats.calls
      totals.hops += world.stats.hops
      totals.deinits += world.stats.deinits
      totals.nested += world.stats.nestedChecks
      world.teardown()
      guard failures.isEmpty, world.live.value == 0 else {
        Issue.record(
          """
          iteration \(iteration), seed 0x\(String(seed, radix: 16)) (base 0x\(String(base, radix: 16))): \
          \(failures.joined(separator: "; ")); handler contexts alive after teardown: \
          \(world.live.value)
          """
        )
        return
      }
    }
    // The worlds did what they are for.
    #expect(totals.calls > 10_000)
    #expect(totals.hops > 100)
    #expect(totals.deinits > 100)
    #expect(totals.nested > 100)
  }
}
