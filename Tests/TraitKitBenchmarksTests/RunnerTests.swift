import Testing

@testable import TraitKitBenchmarks

/// A scenario with one point at which each contender's sample reports a fixed callback count.
private struct CountingScenario: Scenario {
  let id = "SX"
  let name = "Fake.counting"
  let summary = "one point; each contender's samples report a fixed callback count"
  /// The callbacks each contender's sample reports; 4 are expected.
  let reported: [Contender: Int]

  static let expected = 4

  func points(_ preset: SizePreset) -> [[(String, Int)]] { [[("K", 4), ("nodes", 1)]] }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    Contender.allCases.compactMap { contender in
      guard let count = reported[contender] else { return nil }
      return Workload(
        contender,
        unit: "callback",
        units: 4,
        operations: 2,
        expectedCallbacks: Self.expected
      ) {
        // Some work, so that no median is zero and every ratio to the floor is finite.
        var sum = 0
        for value in 0..<1_000 { sum &+= value }
        blackHole(sum)
        return count
      }
    }
  }
}

@Suite("traitkit-bench runner")
struct RunnerTests {
  @Test("correct counts record no failure; each contender gets every sample and a floor ratio")
  func correctCounts() throws {
    var labels: [String] = []
    var runner = Runner(preset: .smoke, samples: 5) { labels.append($0) }
    runner.run(CountingScenario(reported: [.floor: 4, .traitkit: 4, .observation: 4]))

    #expect(runner.failures.isEmpty)
    #expect(labels == ["SX Fake.counting K=4 nodes=1"])
    #expect(runner.results.map(\.contender) == [.floor, .traitkit, .observation])
    for result in runner.results {
      #expect(result.nanoseconds.count == 5)
      #expect(result.nanoseconds == result.nanoseconds.sorted())
      #expect(result.callbacksPerOperation == 2)
      #expect(result.paramsDescription == "K=4 nodes=1")
      let ratio = try #require(result.ratioToFloor)
      #expect(abs(ratio - result.median / runner.results[0].median) < 1e-12)
    }
    #expect(runner.results[0].ratioToFloor == 1)
  }

  @Test("a wrong count is one failure naming the point, the contender and both counts")
  func wrongCount() {
    var runner = Runner(preset: .smoke, samples: 3) { _ in }
    runner.run(CountingScenario(reported: [.floor: 4, .traitkit: 3]))

    #expect(
      runner.failures == [
        "SX Fake.counting K=4 nodes=1 [traitkit]: saw 3 callbacks in a sample, expected 4"
      ]
    )
  }

  @Test("the contender filter measures only the chosen contenders")
  func contenderFilter() {
    var runner = Runner(preset: .smoke, samples: 2) { _ in }
    runner.contenders = [.traitkit]
    runner.run(CountingScenario(reported: [.floor: 4, .traitkit: 4, .notificationCenter: 5]))

    #expect(runner.failures.isEmpty)
    #expect(runner.results.map(\.contender) == [.traitkit])
    #expect(runner.results[0].ratioToFloor == nil)
  }

  @Test("percentiles are nearest-rank over the sorted samples")
  func percentiles() {
    let result = PointResult(
      scenarioID: "SX",
      scenarioName: "Fake.counting",
      params: [("K", 1)],
      contender: .floor,
      unit: "callback",
      nanoseconds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      callbacksPerOperation: 1,
      allocationsPerOperation: nil,
      bytes: nil,
      nodesVisitedPerOperation: nil
    )
    #expect(result.percentile(0) == 1)
    #expect(result.percentile(25) == 3)
    #expect(result.median == 5)
    #expect(result.percentile(90) == 9)
    #expect(result.percentile(99) == 10)
    #expect(result.percentile(100) == 10)
  }
}
