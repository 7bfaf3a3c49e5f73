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
/// the legacy callbacks wasted on nodes that use none of the changed traits, as the engine's
/// `wastedLegacyCallbacks` counted them once at setup; the legacy contender's results carry
/// them too (the others waste none).
struct MigrationComparison: Scenario {
  /// The tree every comparison uses.
  static let app = AppShape()

  let workload: MigrationWorkload
  let id: String
  let name: String
  let summary: String
  private let cycle: [AppChange]
  private let effects: [AppChange.Effect]
  /// The legacy callbacks delivered, and wasted, over one cycle, as the engine counts them.
  private let legacyCounts: (delivered: Int, wasted: Int)

  init(_ workload: MigrationWorkload) {
    let app = Self.app
    self.workload = workload
    id = workload.rawValue
    name = workload.name
    cycle = workload.cycle(in: app)
    effects = app.simulate(cycle)
    legacyCounts = Self.countLegacyCallbacks(app: app, cycle: cycle)
    summary = Self.summarize(
      workload,
      app: app,
      effects: effects,
      period: cycle.count,
      legacyCounts: legacyCounts
    )
  }

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    [[("nodes", Self.app.count - 1)]]
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let app = Self.app
    let legacyPerCycle = effects.reduce(0) { $0 + $1.changedNodes }
    let registrationsPerCycle = effects.reduce(0) { $0 + $1.usingNodes }
    // NB: each contender makes as many whole cycles as fit a budget of callbacks, so that its
    // samples last about 20–40 ms at full size whatever a change costs it.
    func workload(
      _ contender: Contender,
      callbacksPerCycle: Int,
      wastedPerCycle: Int = 0,
      _ makeRun: (_ changes: Int) -> (run: () -> Int, visited: () -> Int)
    ) -> Workload {
      let budget = preset.pick(smoke: 2_000, quick: 16_000, full: 80_000)
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
        wastedPerCycle: legacyCounts.wasted
      ) {
        traitKitRun(AppTree(app, observation: .legacy), $0)
      },
    ]
  }

  // MARK: - Contenders

  private func floorRun(
    _ app: AppShape,
    _ changes: Int
  ) -> (run: () -> Int, visited: () -> Int) {
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
    return (run, { floor.nodesVisited })
  }

  private func traitKitRun(
    _ tree: AppTree,
    _ changes: Int
  ) -> (run: () -> Int, visited: () -> Int) {
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
    return (run, visited)
  }

  // MARK: - Summary

  /// The legacy callbacks delivered, and wasted on nodes that use none of the changed traits,
  /// over one cycle, as the engine's statistics count them.
  private static func countLegacyCallbacks(
    app: AppShape,
    cycle: [AppChange]
  ) -> (delivered: Int, wasted: Int) {
    let tree = AppTree(app, observation: .legacy)
    var delivered = 0
    var wasted = 0
    for change in cycle {
      tree.writer(for: change)()
      tree.graph.updateTraitsIfNeeded()
      delivered += tree.graph.statistics.lastPass.legacyCallbacksDelivered
      wasted += tree.graph.statistics.lastPass.wastedLegacyCallbacks
    }
    _ = tree.counter.take()
    return (delivered, wasted)
  }

  /// What changes, who uses it, and the callbacks per change; the legacy callbacks delivered
  /// and wasted are the engine's own counts over one cycle.
  private static func summarize(
    _ workload: MigrationWorkload,
    app: AppShape,
    effects: [AppChange.Effect],
    period: Int,
    legacyCounts: (delivered: Int, wasted: Int)
  ) -> String {
    let (delivered, wasted) = legacyCounts
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
    var text =
      "\(workload.change(in: app)); \(traits) used by \(users.joined(separator: ", ")); "
      + "per change: legacy \(perChange(legacy)) callbacks, registrations "
      + "\(perChange(registrations)); legacy wastes \(perChange(wasted)) of "
      + "\(perChange(delivered)) callbacks per change"
    if delivered != legacy || wasted != legacy - registrations {
      text +=
        " [MISMATCH: the model expects \(perChange(legacy)) legacy callbacks, "
        + "\(perChange(legacy - registrations)) wasted]"
    }
    return text
  }
}
