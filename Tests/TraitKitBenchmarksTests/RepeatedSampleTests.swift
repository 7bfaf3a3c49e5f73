import Testing

@testable import TraitKitBenchmarks

/// A scenario whose contenders each run for about `runTime`, and report 3 callbacks except on
/// the calls of their run that `wrongCalls` names (counted from 1), where they report 2.
private struct TimedScenario: Scenario {
  let id = "ST"
  let name = "Fake.timed"
  let summary = "one point; each run lasts about the given time"
  let runTime: Duration
  let wrongCalls: [Contender: Set<Int>]
  let calls: RunCalls

  func points(_ preset: SizePreset) -> [[(String, Int)]] { [[("K", 1)]] }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    [Contender.floor, .traitkit].map { contender in
      Workload(contender, unit: "op", units: 4, operations: 2, expectedCallbacks: 3) {
        calls.count[contender, default: 0] += 1
        let clock = ContinuousClock()
        let end = clock.now + runTime
        while clock.now < end {}
        return wrongCalls[contender, default: []].contains(calls.count[contender]!) ? 2 : 3
      }
    }
  }
}

/// The calls of each contender's run, counted across the scenario's workloads.
private final class RunCalls: @unchecked Sendable {
  var count: [Contender: Int] = [:]
}

@Suite("traitkit-bench samples that repeat their run (--sample-ms)")
struct RepeatedSampleTests {
  /// The runs before the timed samples: two warm-ups, the allocation count, the calibration.
  static let untimedRuns = 4

  /// A runner that has run a ``TimedScenario`` of `samples` samples lasting at least `minimum`,
  /// each contender's run lasting about `runTime`; and the calls of each contender's run.
  private static func run(
    samples: Int,
    minimum: Duration?,
    runTime: Duration,
    wrongCalls: [Contender: Set<Int>] = [:]
  ) -> (Runner, RunCalls) {
    let calls = RunCalls()
    var runner = Runner(preset: .smoke, samples: samples) { _ in }
    if let minimum { runner.minimumSampleDuration = minimum }
    runner.run(TimedScenario(runTime: runTime, wrongCalls: wrongCalls, calls: calls))
    return (runner, calls)
  }

  @Test("a sample repeats its run until it lasts the minimum, a warm run telling how often")
  func repeatsToTheMinimum() throws {
    let (runner, calls) = Self.run(
      samples: 3,
      minimum: .milliseconds(4),
      runTime: .microseconds(200)
    )

    #expect(runner.failures.isEmpty)
    for result in runner.results {
      // About 20 runs of 200 µs each make 4 ms; a loaded machine times the warm run longer.
      #expect((2...20).contains(result.runsPerSample), "\(result.runsPerSample) runs")
      #expect(calls.count[result.contender] == Self.untimedRuns + 3 * result.runsPerSample)
      // Per run, not per sample: 3 callbacks in 2 operations.
      #expect(result.callbacksPerOperation == 1.5)
      // Per unit of one run: a sample's time over all its runs' units, about 50 µs each. A
      // sample's time over one run's units would be at least 1 ms (4 ms over 4 units); the
      // upper bound leaves a loaded machine room to stretch each run tenfold.
      #expect((50_000..<500_000).contains(result.median), "\(result.median) ns")
    }
  }

  @Test("a wrong count in any run of a repeated sample fails the run, naming the contender")
  func everyRunIsChecked() throws {
    // The traitkit contender's run 8: inside its first timed sample, which repeats its run
    // about 100 times (at least 4 unless a loaded machine stretches the warm run 25 times).
    let (runner, _) = Self.run(
      samples: 2,
      minimum: .milliseconds(20),
      runTime: .microseconds(200),
      wrongCalls: [.traitkit: [8]]
    )

    let traitKit = try #require(runner.results.first { $0.contender == .traitkit })
    try #require(traitKit.runsPerSample >= 4, "the sample must repeat past run 8")
    #expect(
      runner.failures == [
        "ST Fake.timed K=1 [traitkit]: saw 2 callbacks in a sample, expected 3"
      ]
    )
    // The wrong run's callbacks show in what the samples made.
    let runs = Double(2 * traitKit.runsPerSample)
    #expect(traitKit.callbacksPerOperation == (3 * runs - 1) / (2 * runs))
  }

  @Test("a run that lasts the minimum already is a sample of one run")
  func longRunIsOneRun() {
    let (runner, calls) = Self.run(
      samples: 2,
      minimum: .microseconds(100),
      runTime: .microseconds(300)
    )

    #expect(runner.results.map(\.runsPerSample) == [1, 1])
    #expect(calls.count[.floor] == Self.untimedRuns + 2)
  }

  @Test("without a minimum, every sample is one run and no run calibrates")
  func noMinimum() {
    let (runner, calls) = Self.run(samples: 2, minimum: nil, runTime: .microseconds(10))

    #expect(runner.results.map(\.runsPerSample) == [1, 1])
    #expect(calls.count[.floor] == Self.untimedRuns - 1 + 2)
  }

  @Test(
    "a sample lasts 20 ms at the default sizes, 5 with --quick, one run with --smoke",
    arguments: [(SizePreset.full, 20), (.quick, 5), (.smoke, 0)]
  )
  func presetMinimum(preset: SizePreset, milliseconds: Int) throws {
    #expect(Runner(preset: preset) { _ in }.minimumSampleDuration == .milliseconds(milliseconds))
    // --sample-ms 0 asks for one run per sample whatever the sizes.
    #expect(try Options.parse(["--sample-ms", "0"]).sampleMilliseconds == 0)
  }

  @Test("a report shows the runs of a repeated sample beside its samples, and in CSV and JSON")
  func reported() throws {
    let (runner, _) = Self.run(samples: 2, minimum: .milliseconds(1), runTime: .microseconds(100))
    let runs = try #require(runner.results.first?.runsPerSample)
    let report = Report(
      host: .fixture(samples: 2),
      results: runner.results,
      summaries: [:],
      notes: []
    )

    #expect(report.render(.markdown).contains("| 2×\(runs) |"))
    #expect(report.render(.csv).split(separator: "\n")[1].hasSuffix(",\(runs)"))
    #expect(report.render(.json).contains("\"runs_per_sample\" : \(runs)"))
  }
}
