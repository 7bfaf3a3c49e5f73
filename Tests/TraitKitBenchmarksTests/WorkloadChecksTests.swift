import Testing

@testable import TraitKitBenchmarks

/// What the benchmark's own checks of its workloads trap with; the messages survive `-O`.
@Suite("traitkit-bench workload checks")
struct WorkloadChecksTests {
  private static func standardError(_ result: ExitTest.Result?) -> String {
    String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
  }

  @Test("an odd count of toggling writes traps: the sample would not end where it started")
  func oddToggleWritesTrap() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      var generator = SeededGenerator(seed: 7)
      _ = toggleWrites(count: 3, traitCount: 4, using: &generator)
    }
    #expect(Self.standardError(result).contains("toggleWrites needs an even count"))
  }

  @Test("asking for an observer's slot beyond the counted observers traps")
  func slotBeyondTheObserversTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      _ = ObserverCounts(expected: [1, 1]).slot(2)
    }
    #expect(Self.standardError(result).contains("No slot 2"))
  }

  @Test("a comparison's cycle that does not return the tree's state traps")
  func cycleThatDoesNotReturnTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let app = AppShape()
      _ = app.simulate([AppChange(node: 0, writes: [(.theme, 2)])])
    }
    #expect(Self.standardError(result).contains("A workload's cycle must return the tree's state"))
  }
}
