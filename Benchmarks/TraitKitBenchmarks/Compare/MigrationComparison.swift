import TraitKit

/// One migration comparison: an app-level change made over and over on the app-shaped tree,
/// observed by the legacy adapter, by registrations, and by the hand-written floor.
///
/// Each sample makes W changes (a whole number of cycles, so the state returns), each followed
/// by an update pass; the unit is one change, so the cb/op column is the callbacks per change.
/// W is set per contender from a budget of callbacks per sample.
/// The legacy contender's nodes adopt `traitCollectionDidChange` with the traits they use as
/// interesting traits, and are called whenever their collection changed; the registration
/// contender's nodes register for exactly the traits they use; the floor calls the same nodes
/// as the registrations from closure arrays. The summary gives the callbacks per change, and
/// the legacy callbacks wasted on nodes that use none of the changed traits; the legacy
/// contender's results carry them too (the others waste none). After every sample, outside its
/// timed region, each TraitKit contender replays one cycle and checks the engine's statistics
/// of each change against the model: the registrations' callbacks, the legacy callbacks, and
/// the wasted ones, so that a wrong figure fails the run as a wrong callback total does.
struct MigrationComparison: Scenario {
  /// The tree every comparison uses.
  static let app = AppShape()

  let workload: MigrationWorkload
  let id: String
  let name: String
  let summary: String
  private let cycle: [AppChange]
  private let effects: [AppChange.Effect]

  init(_ workload: MigrationWorkload) {
    let app = Self.app
    self.workload = workload
    id = workload.rawValue
    name = workload.name
    cycle = workload.cycle(in: app)
    effects = app.simulate(cycle)
    summary = Self.summarize(workload, app: app, effects: effects, period: cycle.count)
  }

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    [[("nodes", Self.app.count - 1)]]
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let app = Self.app
    let legacyPerCycle = effects.reduce(0) { $0 + $1.changedNodes }
    let registrationsPerCycle = effects.reduce(0) { $0 + $1.usingNodes }
    // NB: each contender makes as many whole cycles as fit a budget of callbacks, so that its
    // samples last at least about 20 ms at full size whatever a change costs it (anchors §5.1).
    func workload(
      _ contender: Contender,
      callbacksPerCycle: Int,
      wastedPerCycle: Int = 0,
      _ makeRun: (_ changes: Int) -> Run
    ) -> Workload {
      let budget = preset.pick(smoke: 2_000, quick: 16_000, full: 320_000)
      let cycles = max(2, budget * (contender == .floor ? 4 : 1) / max(callbacksPerCycle, 1))
      let changes = cycles * cycle.count
      let run = makeRun(changes)
      var workload = Workload(
        contender,
        unit: "change",
        units: changes,
        operations: changes,
        expectedCallbacks: cycles * callbacksPerCycle,
        nodesVisited: run.visited,
        verify: run.verify,
        run: run.run
      )
      workload.wastedCallbacks = cycles * wastedPerCycle
      return workload
    }
    return [
      workload(.floor, callbacksPerCycle: registrationsPerCycle) { floorRun(app, $0) },
      workload(.traitkit, callbacksPerCycle: registrationsPerCycle) {
        traitKitRun(AppTree(app, observation: .registrations), $0)
      },
      workload(
        .traitkitLegacy,
        callbacksPerCycle: legacyPerCycle,
        wastedPerCycle: legacyPerCycle - registrationsPerCycle
      ) {
        traitKitRun(AppTree(app, observation: .legacy), $0)
      },
    ]
  }

  // MARK: - Contenders

  /// A contender's sample, its untimed count of the nodes a sample visits, and its check of
  /// one untimed cycle (see ``Workload/verify``).
  private typealias Run = (
    run: () -> Int, visited: () -> Int, verify: (() -> (callbacks: Int, wrong: String?))?
  )

  private func floorRun(_ app: AppShape, _ changes: Int) -> Run {
    let counter = CallbackCounter()
    let floor = AppFloor(app) { counter.count += 1 }
    let nodes = cycle.map(\.node)
    let writes = effects.map(\.floorWrites)
    let period = cycle.count
    let run = {
      floor.nodesVisited = 0
      for step in 0..<changes {
        let index = step % period
        floor.write(nodes[index], writes[index])
      }
      return counter.take()
    }
    return (run, { floor.nodesVisited }, nil)
  }

  private func traitKitRun(_ tree: AppTree, _ changes: Int) -> Run {
    let writers = cycle.map(tree.writer(for:))
    let graph = tree.graph
    let counter = tree.counter
    let period = cycle.count
    let run = {
      for step in 0..<changes {
        writers[step % period]()
        graph.updateTraitsIfNeeded()
      }
      return counter.take()
    }
    // NB: visits are counted in an untimed replay of a sample, so that reading the statistics
    // costs the timed samples nothing.
    let visited = {
      var visited = 0
      for step in 0..<changes {
        writers[step % period]()
        graph.updateTraitsIfNeeded()
        visited += graph.statistics.lastPass.nodesVisited
      }
      _ = counter.take()
      return visited
    }
    let effects = effects
    return (run, visited, { (0, Self.checkCycle(of: tree, writers: writers, effects: effects)) })
  }

  /// Replays one cycle on `tree` (`writers` makes its changes), untimed, and compares the
  /// engine's statistics of each change with the model's `effects`: what is wrong, or nil.
  ///
  /// A legacy tree must deliver a legacy callback to each node whose collection changed and
  /// count as wasted those to nodes that use none of the changed traits; a registration tree
  /// must call each node that uses a changed trait. The cycle returns the tree to its state.
  static func checkCycle(
    of tree: AppTree,
    writers: [() -> Void],
    effects: [AppChange.Effect]
  ) -> String? {
    let graph = tree.graph
    var wrong: String?
    var callbacks = 0
    for (index, effect) in effects.enumerated() {
      writers[index]()
      graph.updateTraitsIfNeeded()
      let pass = graph.statistics.lastPass
      let seen = (
        pass.callbacksDelivered, pass.legacyCallbacksDelivered, pass.wastedLegacyCallbacks
      )
      let expected =
        tree.observation == .legacy
        ? (0, effect.changedNodes, effect.changedNodes - effect.usingNodes)
        : (effect.usingNodes, 0, 0)
      callbacks += expected.0 + expected.1
      if wrong == nil, seen != expected {
        wrong =
          "change \(index + 1) of the cycle: the engine counted \(seen.0) callbacks, "
          + "\(seen.1) legacy callbacks, \(seen.2) wasted; the model expects \(expected.0), "
          + "\(expected.1), \(expected.2)"
      }
    }
    let counted = tree.counter.take()
    if wrong == nil, counted != callbacks {
      wrong = "a cycle's handlers counted \(counted) calls; the model expects \(callbacks)"
    }
    return wrong
  }

  // MARK: - Summary

  /// What changes, who uses it, and the callbacks per change, legacy and wasted ones included
  /// (the model's figures, which every sample checks the engine's statistics against).
  private static func summarize(
    _ workload: MigrationWorkload,
    app: AppShape,
    effects: [AppChange.Effect],
    period: Int
  ) -> String {
    let legacy = effects.reduce(0) { $0 + $1.changedNodes }
    let registrations = effects.reduce(0) { $0 + $1.usingNodes }
    func perChange(_ total: Int) -> String {
      total % period == 0
        ? "\(total / period)" : String(Double(total) / Double(period))
    }
    let byKind = effects[0].usingByKind
    let users = AppNodeKind.allCases.compactMap { kind in
      byKind[kind].map { "\($0) \($0 == 1 ? String(kind.plural.dropLast()) : kind.plural)" }
    }
    let traits = workload.traits.map(\.label).joined(separator: " + ")
    return
      "\(workload.change(in: app)); \(traits) used, and changed, in "
      + "\(users.joined(separator: ", ")); "
      + "per change: legacy \(perChange(legacy)) callbacks, registrations "
      + "\(perChange(registrations)); legacy wastes \(perChange(legacy - registrations)) of "
      + "\(perChange(legacy)) callbacks per change"
  }
}
