import Testing
import TraitKit

@testable import TraitKitBenchmarks

@Suite("traitkit-bench compare: the migration comparisons")
struct MigrationComparisonTests {
  @Test(
    "every workload's samples pass their checks, and the legacy side wastes what the model says"
  )
  func workloadsPassTheirChecks() throws {
    var runner = Runner(preset: .smoke, samples: 1) { _ in }
    for comparison in allComparisons { runner.run(comparison) }
    #expect(runner.failures == [])
    let app = MigrationComparison.app
    for workload in MigrationWorkload.allCases {
      let effects = app.simulate(workload.cycle(in: app))
      let legacy = effects.reduce(0) { $0 + $1.changedNodes }
      let registrations = effects.reduce(0) { $0 + $1.usingNodes }
      let result = try #require(
        runner.results.first {
          $0.scenarioID == workload.rawValue && $0.contender == .traitkitLegacy
        }
      )
      #expect(legacy > registrations, "\(workload) wastes legacy callbacks")
      #expect(
        result.wastedCallbacksPerOperation == Double(legacy - registrations) / Double(effects.count)
      )
    }
  }

  @Test("the cycle check names the change whose engine statistics the model does not expect")
  func cycleCheckFailsOnWrongFigures() throws {
    let app = MigrationComparison.app
    let cycle = MigrationWorkload.darkMode.cycle(in: app)
    var effects = app.simulate(cycle)
    for observation in [AppTree.Observation.legacy, .registrations] {
      let tree = AppTree(app, observation: observation)
      let writers = cycle.map(tree.writer(for:))
      #expect(MigrationComparison.checkCycle(of: tree, writers: writers, effects: effects) == nil)
    }
    // One more user of the first change's traits than the engine calls: each side is caught,
    // the legacy side by its wasted figure.
    effects[0].usingNodes += 1
    let legacy = AppTree(app, observation: .legacy)
    let wrong = try #require(
      MigrationComparison.checkCycle(
        of: legacy,
        writers: cycle.map(legacy.writer(for:)),
        effects: effects
      )
    )
    #expect(wrong.hasPrefix("change 1 of the cycle: the engine counted 0 callbacks"))
    let registrations = AppTree(app, observation: .registrations)
    #expect(
      MigrationComparison.checkCycle(
        of: registrations,
        writers: cycle.map(registrations.writer(for:)),
        effects: effects
      )
        != nil
    )
  }
}
