import Foundation
import Testing

@testable import TraitKitBenchmarks

/// Probe readings of 1, 8 and 64 MiB at these latencies.
private func readings(
  _ small: Double,
  _ judged: Double,
  _ large: Double
)
  -> [LoadLatencyProbe.Reading]
{
  [
    .init(mebibytes: 1, nanoseconds: small),
    .init(mebibytes: 8, nanoseconds: judged),
    .init(mebibytes: 64, nanoseconds: large),
  ]
}

/// A judgement of two probes whose 8 MiB readings are `before` and `after` percent of the way
/// from 10 ns (1 MiB) to 110 ns (64 MiB).
private func squeeze(_ before: Double, _ after: Double, contended: Bool = false) -> CacheSqueeze {
  CacheSqueeze(
    before: readings(10, 10 + before, 110),
    after: readings(10, 10 + after, 110),
    contended: contended
  )
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
  @Test("a probe's share is how far 8 MiB moved from the smallest size's latency to the largest's")
  func percent() {
    #expect(CacheSqueeze.percent(readings(10, 55, 100)) == 50)
    #expect(CacheSqueeze.percent(readings(10, 10, 100)) == 0)
    // Rounded to a whole percent, so that the sentence and the regime agree.
    #expect(CacheSqueeze.percent(readings(10, 34.6, 110)) == 25)
    #expect(CacheSqueeze.percent(readings(10, 34.4, 110)) == 24)
    // Noise outside the two ends is clamped to them.
    #expect(CacheSqueeze.percent(readings(10, 8, 100)) == 0)
    #expect(CacheSqueeze.percent(readings(10, 130, 100)) == 100)
    let judged = squeeze(10, 80)
    #expect(judged.before == 10 && judged.after == 80)
  }

  @Test(
    "a probe without its sizes, or whose memory is not twice as slow as its cache, is not judged"
  )
  func notJudged() {
    let withoutJudgedSize: [LoadLatencyProbe.Reading] = [
      .init(mebibytes: 1, nanoseconds: 10), .init(mebibytes: 64, nanoseconds: 100),
    ]
    #expect(CacheSqueeze.percent(withoutJudgedSize) == nil)
    #expect(CacheSqueeze.percent([]) == nil)
    // A cache that holds every size: noise would decide.
    #expect(CacheSqueeze.percent(readings(4.00, 4.05, 4.06)) == nil)
    #expect(CacheSqueeze.percent(readings(10, 15, 19.9)) == nil)
    #expect(CacheSqueeze.percent(readings(10, 15, 20)) == 50)

    let half = CacheSqueeze(before: readings(10, 20, 100), after: [])
    #expect(half.before == 11 && half.after == nil)
    #expect(half.regimes == nil && half.regime == nil)
    #expect(half.sentence(misses: []).hasPrefix("Shared cache: not judged (the load-latency probe"))
  }

  @Test("the probe's sizes include the judged one, strictly between the smallest and the largest")
  func probedSizes() throws {
    let sizes = LoadLatencyProbe.sizes
    #expect(sizes.contains(CacheSqueeze.mebibytes))
    #expect(try #require(sizes.min()) < CacheSqueeze.mebibytes)
    #expect(try #require(sizes.max()) > CacheSqueeze.mebibytes)
  }

  @Test("each probe's regime: quiet below 25%, squeezed above 60%; the run's is the worse")
  func regime() {
    #expect(CacheSqueeze.Regime(percent: 24) == .quiet)
    #expect(CacheSqueeze.Regime(percent: 25) == .partlySqueezed)
    #expect(CacheSqueeze.Regime(percent: 60) == .partlySqueezed)
    #expect(CacheSqueeze.Regime(percent: 61) == .squeezed)
    #expect(squeeze(5, 24).regime == .quiet)
    #expect(squeeze(25, 5).regime == .partlySqueezed)
    let mixed = squeeze(77, 12)
    #expect(mixed.regimes?.before == .squeezed && mixed.regimes?.after == .quiet)
    #expect(mixed.regime == .squeezed)
  }

  @Test("the sentence names each probe's regime, and says so when they differ")
  func regimeWords() {
    #expect(
      squeeze(80, 90).sentence(misses: [])
        == "Shared cache: squeezed (a working set of 8 MiB loaded 80% of the way from cache to "
        + "memory latency before the run, 90% after; quiet is below 25%)."
    )
    #expect(
      squeeze(77, 12).sentence(misses: []).hasPrefix(
        "Shared cache: squeezed before the run, quiet after (a working set of 8 MiB loaded 77% "
      )
    )
    #expect(squeeze(30, 40).sentence(misses: []).hasPrefix("Shared cache: partly squeezed (a "))
  }

  @Test("the sentence counts the memory-bound misses in words that fit how many there are")
  func missCounts() {
    let squeezed = squeeze(80, 90)
    let s1 = verdict("S1", met: false, memoryBound: false)
    let s6 = verdict("S6", met: false, memoryBound: true)
    let s8 = verdict("S8", met: false, memoryBound: true)
    func clause(_ misses: [TargetVerdict]) -> String {
      let text = squeezed.sentence(misses: misses)
      return String(text[text.range(of: "25%). ")!.upperBound...])
    }
    #expect(
      clause([s8]) == "The miss is memory-bound (S8), which a squeezed cache moves: judge it on "
        + "a quiet run, or compare builds under `--contend 32`."
    )
    #expect(clause([s6, s8]).hasPrefix("Both misses are memory-bound (S6, S8), "))
    #expect(clause([s8, s6, s8]).hasPrefix("All 3 misses are memory-bound (S8, S6), "))
    #expect(clause([s1, s8]).hasPrefix("1 of the 2 misses is memory-bound (S8), "))
    #expect(clause([s1, s8]).contains(": judge it on a quiet run"))
    #expect(clause([s1, s6, s8]).hasPrefix("2 of the 3 misses are memory-bound (S6, S8), "))
    #expect(clause([s1, s6, s8]).contains(": judge them on a quiet run"))
    // No memory-bound miss: the regime alone.
    #expect(squeezed.sentence(misses: [s1]).hasSuffix("quiet is below 25%)."))
  }

  @Test("on a quiet cache the sentence gives no advice; under --contend it does not suggest it")
  func advice() {
    let s6 = verdict("S6", met: false, memoryBound: true)
    #expect(squeeze(5, 10).sentence(misses: [s6]).hasSuffix("The miss is memory-bound (S6)."))
    #expect(
      squeeze(80, 90, contended: true).sentence(misses: [s6])
        .hasSuffix("which a squeezed cache moves: judge it on a quiet run.")
    )
  }

  @Test(
    "the targets section ends with the cache's sentence; JSON holds the cache and each target's kind"
  )
  func report() throws {
    let judged = squeeze(77, 12)
    let report = Report(
      host: .fixture(samples: 1),
      results: [],
      summaries: [:],
      notes: [],
      targets: [
        verdict("S8", met: false, memoryBound: true), verdict("S2", met: true, memoryBound: false),
      ],
      cache: judged
    )
    for format in [OutputFormat.table, .markdown] {
      let text = report.render(format)
      let lines = text.split(separator: "\n")
      #expect(lines.last == Substring(judged.sentence(misses: [report.targets[0]])))
      #expect(text.contains("1 of 2 targets met"))
    }
    func cacheObject(_ report: Report) throws -> [String: Any]? {
      let object = try JSONSerialization.jsonObject(with: Data(report.render(.json).utf8))
      return (object as? [String: Any])?["cache"] as? [String: Any]
    }
    let cache = try #require(try cacheObject(report))
    #expect(cache["mib"] as? Int == 8)
    #expect(cache["squeeze_before_percent"] as? Int == 77)
    #expect(cache["squeeze_after_percent"] as? Int == 12)
    #expect(cache["regime_before"] as? String == "squeezed")
    #expect(cache["regime_after"] as? String == "quiet")
    #expect(cache["regime"] as? String == "squeezed")
    #expect(cache["contended"] as? Bool == false)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(report.render(.json).utf8)) as? [String: Any]
    )
    let targets = try #require(object["targets"] as? [[String: Any]])
    #expect(targets.map { $0["memory_bound"] as? Bool } == [true, false])

    var unjudged = report
    unjudged.cache = CacheSqueeze(before: [], after: readings(10, 20, 100))
    let notJudged = try #require(try cacheObject(unjudged))
    #expect(notJudged["regime"] as? String == "not_judged")
    #expect(notJudged["squeeze_before_percent"] is NSNull)
    #expect(notJudged["regime_after"] is NSNull)

    let without = Report(host: .fixture(samples: 1), results: [], summaries: [:], notes: [])
    #expect(try cacheObject(without) == nil)
  }
}
