import Testing

@testable import TraitKitBenchmarks

/// The scenarios whose targets hold every observer to an exact count check each observer's own
/// count, not only the total: one observer called twice and another never add up right.
@Suite("traitkit-bench scenarios count each observer")
struct ScenarioCountsTests {
  /// The scenarios with many observers and an exact count for each.
  private static let counted: [any Scenario] = [
    S1FanOut(), S2SelectiveBroadcast(), S4Shadowing(), S5BatchedSemanticSet(),
    S7AutomaticTracking(), S9LegacyParity(),
  ]

  @Test(
    "every workload of a scenario with exact counts per observer checks each observer's count",
    arguments: counted.map(\.id)
  )
  func everyObserverIsCounted(id: String) throws {
    let scenario = try #require(Self.counted.first { $0.id == id })
    for point in scenario.points(.smoke) {
      for workload in scenario.workloads(at: point, preset: .smoke) {
        let label = "\(id) \(point) [\(workload.contender.rawValue)]"
        let verify = try #require(workload.verify, "\(label) checks only a total")
        let returned = workload.run()
        let (counted, wrong) = verify()
        #expect(wrong == nil, "\(label): \(wrong ?? "")")
        #expect(returned + counted == workload.expectedCallbacks, "\(label)")
        // One count per observer: only S1 with one observer has a single one.
        let counts = try #require(workload.observerCounts, "\(label) counts no observer apart")
        #expect(counts.expected.count > 1 || point.contains { $0 == ("K", 1) }, "\(label)")
        // One callback moved from one observer to another, the total unchanged: only a check of
        // each observer's own count sees it.
        guard counts.expected.count > 1, let from = counts.expected.firstIndex(where: { $0 > 0 })
        else { continue }
        _ = workload.run()
        counts.slot(from).pointer.pointee -= 1
        counts.slot(from == 0 ? 1 : 0).pointer.pointee += 1
        #expect(verify().wrong != nil, "\(label) did not see its observers' counts")
      }
    }
  }
}
