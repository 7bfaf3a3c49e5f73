import Foundation

/// How much of the shared cache the host's other tenants left this run, judged from the
/// load-latency probe (see ``LoadLatencyProbe``), so that a run says itself whether its
/// memory-bound targets were judged fairly.
///
/// The measure is how far a working set of ``mebibytes`` has moved from cache latency towards
/// memory latency: 0 when it loads as fast as the smallest size probed, 1 when as slowly as the
/// largest. A fraction rather than nanoseconds, so that it reads the same on hosts whose caches
/// and memory differ in speed.
struct CacheSqueeze: Equatable {
  /// The working-set size judged: about what S6 and S8 touch, less than the shared cache of the
  /// hosts this runs on when nobody else uses it.
  static let mebibytes = 8

  /// The fraction before the scenarios ran, and after.
  let before: Double
  let after: Double

  /// The readings' fractions; nil when either lacks the sizes it needs, or loads the largest
  /// size no slower than the smallest (a cache that holds every size probed: nothing to judge).
  init?(before: [LoadLatencyProbe.Reading], after: [LoadLatencyProbe.Reading]) {
    guard let before = Self.fraction(before), let after = Self.fraction(after) else { return nil }
    self.before = before
    self.after = after
  }

  /// The fraction of one probe's readings, clamped to 0...1.
  static func fraction(_ readings: [LoadLatencyProbe.Reading]) -> Double? {
    func latency(_ mebibytes: Int?) -> Double? {
      readings.first { $0.mebibytes == mebibytes }?.nanoseconds
    }
    let sizes = readings.map(\.mebibytes)
    guard let cache = latency(sizes.min()), let memory = latency(sizes.max()),
      let judged = latency(mebibytes), memory > cache
    else { return nil }
    return min(max((judged - cache) / (memory - cache), 0), 1)
  }

  /// What the larger of the two fractions says of the run.
  enum Regime: String {
    /// Below a quarter: the working set stayed in cache.
    case quiet
    /// From a quarter to 60%.
    case partlySqueezed = "partly squeezed"
    /// Above 60%: the working set went to memory, as under `--contend 32`.
    case squeezed
  }

  var regime: Regime {
    let worst = max(before, after)
    if worst < 0.25 { return .quiet }
    return worst <= 0.6 ? .partlySqueezed : .squeezed
  }

  /// The sentence the targets section ends with: the regime, the fractions, and which of the
  /// missed targets `misses` it concerns.
  func sentence(misses: [TargetVerdict]) -> String {
    let percent = { (fraction: Double) in String(format: "%.0f%%", fraction * 100) }
    var out =
      "Shared cache: \(regime.rawValue) (a working set of \(Self.mebibytes) MiB loaded "
      + "\(percent(before)) of the way from cache to memory latency before the run, "
      + "\(percent(after)) after; quiet is below 25%)."
    let memoryBound = misses.filter(\.isMemoryBound)
    guard !memoryBound.isEmpty else { return out }
    let scenarios = memoryBound.map(\.scenario).reduce(into: [String]()) {
      if !$0.contains($1) { $0.append($1) }
    }
    let share: String
    if misses.count == 1 {
      share = "The miss is"
    } else if memoryBound.count == misses.count {
      share = "All \(misses.count) misses are"
    } else {
      share = "\(memoryBound.count) of the \(misses.count) misses are"
    }
    out += " \(share) memory-bound (" + scenarios.joined(separator: ", ") + ")"
    let them = memoryBound.count == 1 ? "it" : "them"
    out +=
      regime == .quiet
      ? "."
      : ", which a squeezed cache moves: judge \(them) on a quiet run, or compare builds "
        + "under `--contend 32`."
    return out
  }
}
