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

/// A scenario whose contenders log each sample they run, in order.
private struct LoggingScenario: Scenario {
  let id = "SL"
  let name = "Fake.logging"
  let summary = "one point; each contender logs its samples"
  let log: SampleLog

  func points(_ preset: SizePreset) -> [[(String, Int)]] { [[("K", 1)]] }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    [Contender.floor, .traitkit, .observation].map { contender in
      Workload(contender, unit: "callback", units: 1, operations: 1, expectedCallbacks: 0) {
        log.contenders.append(contender)
        return 0
      }
    }
  }
}

private final class SampleLog: @unchecked Sendable {
  var contenders: [Contender] = []
}

/// A scenario of two observers that must each see `expected` callbacks per sample; each
/// contender's sample calls them as many times as it is told.
private struct PerObserverScenario: Scenario {
  let id = "SO"
  let name = "Fake.perObserver"
  let summary = "two observers, each to be called twice per sample"
  /// Each contender's calls of observer 0 and observer 1 per sample.
  let calls: [Contender: (Int, Int)]

  func points(_ preset: SizePreset) -> [[(String, Int)]] { [[("observers", 2)]] }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    Contender.allCases.compactMap { contender in
      guard let (first, second) = calls[contender] else { return nil }
      let counts = ObserverCounts(expected: [2, 2])
      let slots = [counts.slot(0), counts.slot(1)]
      return Workload(contender, unit: "pass", units: 1, operations: 1, counts: counts) {
        for _ in 0..<first { slots[0].hit() }
        for _ in 0..<second { slots[1].hit() }
      }
    }
  }
}

/// A scenario whose samples each leave `leaked[contender]` bytes behind on a fake heap.
private struct LeakingScenario: Scenario {
  let id = "SR"
  let name = "Fake.retaining"
  let summary = "one point; each sample keeps some bytes of a fake heap"
  let leaked: [Contender: Int]
  let check: RetainedBytesCheck
  let heap: FakeHeap

  func points(_ preset: SizePreset) -> [[(String, Int)]] { [[("K", 1)]] }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    leaked.keys.sorted().map { contender in
      var workload = Workload(contender, unit: "op", units: 1, operations: 1, expectedCallbacks: 0)
      {
        heap.bytes += leaked[contender]!
        return 0
      }
      workload.retainedBytes = check
      return workload
    }
  }
}

/// The heap a ``LeakingScenario`` leaks into: the real one is process-wide, and tests that run in
/// parallel allocate on it.
private final class FakeHeap: @unchecked Sendable {
  var bytes = 0
}

@Suite("traitkit-bench runner")
struct RunnerTests {
  @Test("each round of samples starts one contender further on")
  func rotation() {
    let log = SampleLog()
    var runner = Runner(preset: .smoke, samples: 4) { _ in }
    runner.run(LoggingScenario(log: log))

    let timed = Array(log.contenders.suffix(12))
    #expect(
      timed == [
        .floor, .traitkit, .observation, .traitkit, .observation, .floor,
        .observation, .floor, .traitkit, .floor, .traitkit, .observation,
      ]
    )
  }

  @Test("each observer's own count is checked: a right total from wrong counts fails")
  func perObserverCounts() {
    var runner = Runner(preset: .smoke, samples: 3) { _ in }
    runner.run(
      PerObserverScenario(calls: [.floor: (2, 2), .traitkit: (4, 0), .observation: (2, 3)])
    )

    #expect(
      runner.failures == [
        "SO Fake.perObserver observers=2 [traitkit]: observer 0 saw 4 callbacks in a sample, "
          + "expected 2",
        "SO Fake.perObserver observers=2 [observation]: observer 1 saw 3 callbacks in a sample, "
          + "expected 2",
        "SO Fake.perObserver observers=2 [observation]: saw 5 callbacks in a sample, expected 4",
      ]
    )
    // What each contender's samples made: a right total stays right, a wrong one shows.
    #expect(runner.results.map(\.callbacksPerOperation) == [4, 4, 5])
  }

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

  @Test("a result's callbacks per operation are those its samples made, not those expected")
  func observedCallbacks() throws {
    var runner = Runner(preset: .smoke, samples: 3) { _ in }
    runner.run(CountingScenario(reported: [.floor: 4, .traitkit: 3]))

    let floor = try #require(runner.results.first { $0.contender == .floor })
    let traitKit = try #require(runner.results.first { $0.contender == .traitkit })
    // Each sample runs 2 operations.
    #expect(floor.callbacksPerOperation == 2)
    #expect(traitKit.callbacksPerOperation == 1.5)
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

  @Test("a workload that must end as it started fails the run when a sample leaves heap behind")
  func retainedBytesMustBeZero() {
    let heap = FakeHeap()
    var runner = Runner(
      preset: .smoke,
      samples: 1,
      heapBytesInUse: { heap.bytes },
      progress: { _ in }
    )
    runner.run(LeakingScenario(leaked: [.floor: 0, .traitkit: 48], check: .mustBeZero, heap: heap))

    #expect(runner.results.map(\.bytes) == [0, 48])
    #expect(
      runner.failures == [
        "SR Fake.retaining K=1 [traitkit]: a sample left 48 bytes of heap behind, expected 0"
      ]
    )
  }

  @Test("a workload whose retained heap is only reported shows it and fails nothing")
  func retainedBytesReported() {
    let heap = FakeHeap()
    var runner = Runner(
      preset: .smoke,
      samples: 1,
      heapBytesInUse: { heap.bytes },
      progress: { _ in }
    )
    runner.run(LeakingScenario(leaked: [.notificationCenter: 352], check: .reported, heap: heap))

    #expect(runner.failures.isEmpty)
    #expect(runner.results.map(\.bytes) == [352])
  }

  @Test("a workload that does not check its heap reports no bytes and never reads the heap")
  func retainedBytesUnchecked() {
    let heap = FakeHeap()
    var reads = 0
    var runner = Runner(
      preset: .smoke,
      samples: 1,
      heapBytesInUse: {
        reads += 1
        return heap.bytes
      },
      progress: { _ in }
    )
    runner.run(LeakingScenario(leaked: [.traitkit: 8], check: .none, heap: heap))

    #expect(runner.failures.isEmpty)
    #expect(runner.results.map(\.bytes) == [nil])
    #expect(reads == 0)
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
