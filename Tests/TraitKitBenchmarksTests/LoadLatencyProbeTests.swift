import Testing

@testable import TraitKitBenchmarks

@Suite("traitkit-bench load-latency probe")
struct LoadLatencyProbeTests {
  @Test("the probe's chain visits every cache line once before it returns to the first")
  func chainIsOneCycleOverEveryLine() {
    let lines = 1_000
    var generator = SeededGenerator(seed: 7)
    let next = LoadLatencyProbe.cycle(lines: lines, using: &generator)
    let wordsPerLine = LoadLatencyProbe.lineSize / MemoryLayout<Int>.stride
    #expect(next.count == lines * wordsPerLine)
    var visited = Set<Int>()
    var index = 0
    for step in 0..<lines {
      #expect(index % wordsPerLine == 0, "step \(step) lands inside a line, at word \(index)")
      #expect(visited.insert(index).inserted, "step \(step) visits word \(index) again")
      index = next[index]
    }
    #expect(index == 0)
    #expect(visited.count == lines)
  }

  @Test("the chain's order is random, not the lines' own order")
  func chainIsShuffled() {
    var generator = SeededGenerator(seed: 7)
    let next = LoadLatencyProbe.cycle(lines: 1_000, using: &generator)
    let wordsPerLine = LoadLatencyProbe.lineSize / MemoryLayout<Int>.stride
    let sequentialSteps = stride(from: 0, to: next.count, by: wordsPerLine)
      .filter { next[$0] == $0 + wordsPerLine }.count
    #expect(sequentialSteps < 10)
  }

  @Test("a probe reads every size, smallest first, each a positive latency")
  func measureReadsEverySize() {
    let readings = LoadLatencyProbe.measure(loads: 1_000, rounds: 1)
    #expect(readings.map(\.mebibytes) == LoadLatencyProbe.sizes)
    #expect(readings.allSatisfy { $0.nanoseconds > 0 })
  }

  @Test("the host header prints each reading as its size and nanoseconds to a tenth")
  func describeFormatsReadings() {
    let text = LoadLatencyProbe.describe([
      .init(mebibytes: 1, nanoseconds: 7.14),
      .init(mebibytes: 64, nanoseconds: 152.55),
    ])
    #expect(text == "1 MiB 7.1, 64 MiB 152.6")
    var host = Host.current(preset: .smoke, samples: 1, loadLatency: (text, "after"))
    host.hostname = "ci"
    let fields = Dictionary(uniqueKeysWithValues: host.fields)
    #expect(fields["load_latency_ns_before"] == text)
    #expect(fields["load_latency_ns_after"] == "after")
  }

  @Test("a probe of no cache lines traps, saying so")
  func emptyChainTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      var generator = SeededGenerator(seed: 7)
      _ = LoadLatencyProbe.cycle(lines: 0, using: &generator)
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.contains("A load-latency probe needs at least one cache line"))
  }
}
