import Foundation
import Testing

@testable import TraitKitBenchmarks

/// Probe readings of 1, 8 and 64 MiB at these latencies.
private func readings(
  _ small: Double,
  _ judged: Double,
  _ large: Double
) -> [LoadLatencyProbe
  .Reading]
{
  [
    .init(mebibytes: 1, nanoseconds: small),
    .init(mebibytes: 8, nanoseconds: judged),
    .init(mebibytes: 64, nanoseconds: large),
  ]
}

/// A verdict on `scenario` that is met or missed, memory-bound or not.
private func verdict(_ scenario: String, met: Bool, memoryBound: Bool) -> TargetVerdict {
  TargetVerdict(
    scenario: scenario,
    figure: "figure",
    point: "p=1",
    measured: met ? 1 : 3,
    bound: 2,
    atMost: true,
    isMemoryBound: memoryBound
  )
}

@Suite("traitkit-bench cache squeeze")
struct CacheSqueezeTests {
  @Test("the squeeze is how far 8 MiB moved from the smallest size's latency to the largest's")
  func fraction() throws {
    #expect(CacheSqueeze.fraction(readings(10, 55, 100)) == 0.5)
    #expect(CacheSqueeze.fraction(readings(10, 10, 100)) == 0)
    // Noise outside the two ends is clamped to them.
    #expect(CacheSqueeze.fraction(readings(10, 8, 100)) == 0)
    #expect(CacheSqueeze.fraction(readings(10, 130, 100)) == 1)
    let squeeze = try #require(
      CacheSqueeze(before: readings(10, 19, 100), after: readings(20, 92, 110))
    )
    #expect(abs(squeeze.before - 0.1) < 1e-12 && abs(squeeze.after - 0.8) < 1e-12)
  }

  @Test("a probe without the sizes it needs, or whose largest size loads no slower, judges nothing")
  func nothingToJudge() {
    let withoutJudgedSize: [LoadLatencyProbe.Reading] = [
      .init(mebibytes: 1, nanoseconds: 10), .init(mebibytes: 64, nanoseconds: 100),
    ]
    #expect(CacheSqueeze.fraction(withoutJudgedSize) == nil)
    #expect(CacheSqueeze.fraction([]) == nil)
    #expect(CacheSqueeze.fraction(readings(10, 10, 10)) == nil)
    #expect(CacheSqueeze(before: readings(10, 20, 100), after: []) == nil)
  }

  @Test("the regime is the worse probe's: quiet below a quarter, squeezed above 60%")
  func regime() throws {
    func regime(_ before: Double, _ after: Double) throws -> CacheSqueeze.Regime {
      try #require(
        CacheSqueeze(before: readings(0, before, 100), after: readings(0, after, 100))
      ).regime
    }
    #expect(try regime(5, 24) == .quiet)
    #expect(try regime(25, 5) == .partlySqueezed)
    #expect(try regime(60, 10) == .partlySqueezed)
    #expect(try regime(10, 61) == .squeezed)
  }

  @Test(
    "the sentence counts the memory-bound misses, names their scenarios once, and says how to judge them"
  )
  func sentence() throws {
    let squeezed = try #require(
      CacheSqueeze(before: readings(10, 82, 100), after: readings(10, 91, 100))
    )
    let misses = [
      verdict("S1", met: false, memoryBound: false),
      verdict("S8", met: false, memoryBound: true),
      verdict("S8", met: false, memoryBound: true),
      verdict("S6", met: false, memoryBound: true),
    ]
    let text = squeezed.sentence(misses: misses)
    #expect(text.hasPrefix("Shared cache: squeezed (a working set of 8 MiB loaded 80% "))
    #expect(text.contains("90% after"))
    #expect(text.contains("3 of the 4 misses are memory-bound (S8, S6)"))
    #expect(text.contains(", which a squeezed cache moves: judge them on a quiet run"))
    #expect(text.contains("--contend 32"))

    let quiet = try #require(
      CacheSqueeze(before: readings(10, 12, 100), after: readings(10, 14, 100))
    )
    let quietText = quiet.sentence(misses: misses)
    #expect(quietText.hasPrefix("Shared cache: quiet"))
    #expect(quietText.hasSuffix("memory-bound (S8, S6)."))
    // One miss, or every miss, memory-bound.
    let one = squeezed.sentence(misses: [misses[1]])
    #expect(one.contains(" The miss is memory-bound (S8), which a squeezed cache moves: judge it "))
    let all = squeezed.sentence(misses: Array(misses.dropFirst()))
    #expect(all.contains(" All 3 misses are memory-bound (S8, S6)"))
    // No memory-bound miss: the regime alone.
    let alone = squeezed.sentence(misses: [verdict("S1", met: false, memoryBound: false)])
    #expect(alone.hasSuffix("quiet is below 25%)."))
  }

  @Test(
    "the targets section ends with the cache's sentence; JSON holds the cache and each target's kind"
  )
  func report() throws {
    let squeeze = try #require(
      CacheSqueeze(before: readings(10, 82, 100), after: readings(10, 91, 100))
    )
    let report = Report(
      host: .fixture(samples: 1),
      results: [],
      summaries: [:],
      notes: [],
      targets: [
        verdict("S8", met: false, memoryBound: true), verdict("S2", met: true, memoryBound: false),
      ],
      cache: squeeze
    )
    for format in [OutputFormat.table, .markdown] {
      let text = report.render(format)
      let lines = text.split(separator: "\n")
      #expect(lines.last == Substring(squeeze.sentence(misses: [report.targets[0]])))
      #expect(text.contains("1 of 2 targets met"))
    }
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(report.render(.json).utf8)) as? [String: Any]
    )
    let cache = try #require(object["cache"] as? [String: Any])
    #expect(cache["regime"] as? String == "squeezed")
    #expect(cache["mib"] as? Int == 8)
    #expect(abs((cache["squeeze_before"] as? Double ?? 0) - 0.8) < 1e-12)
    #expect(abs((cache["squeeze_after"] as? Double ?? 0) - 0.9) < 1e-12)
    let targets = try #require(object["targets"] as? [[String: Any]])
    #expect(targets.map { $0["memory_bound"] as? Bool } == [true, false])

    let unjudged = Report(host: .fixture(samples: 1), results: [], summaries: [:], notes: [])
    #expect(
      (try JSONSerialization.jsonObject(with: Data(unjudged.render(.json).utf8)) as? [String: Any])?
        .keys.contains("cache") == false
    )
  }
}
