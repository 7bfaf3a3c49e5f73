import Foundation

/// How much of the shared cache the host's other tenants left this run, judged from the
/// load-latency probes (see ``LoadLatencyProbe``), so that a run says itself whether its
/// memory-bound targets were judged fairly.
///
/// Each probe's measure is how far a working set of ``mebibytes`` has moved from cache latency
/// towards memory latency, in whole percent: 0 when it loads as fast as the smallest size
/// probed, 100 when as slowly as the largest. A share rather than nanoseconds, so that it reads
/// the same on hosts whose caches and memory differ in speed.
struct CacheSqueeze: Equatable {
  /// The working-set size judged: about what S6, S7 and S8 touch, less than the shared cache of
  /// the hosts this runs on when nobody else uses it.
  static let mebibytes = 8
  /// How many times slower than the smallest size the largest must load for a probe to be
  /// judged: with less, the host's cache holds every size probed, and noise would decide.
  static let minimumMemoryToCacheRatio = 2.0

  /// Each probe's share, in percent, before the scenarios ran and after; nil for a probe that
  /// cannot be judged (see ``percent(_:)``).
  let before: Int?
  let after: Int?
  /// Whether a thread streamed through memory on another core during the run (`--contend`).
  let contended: Bool

  init(
    before: [LoadLatencyProbe.Reading],
    after: [LoadLatencyProbe.Reading],
    contended: Bool = false
  ) {
    self.before = Self.percent(before)
    self.after = Self.percent(after)
    self.contended = contended
  }

  /// One probe's share, rounded to a whole percent and clamped to 0...100; nil when the readings
  /// lack the sizes it needs, or when the largest size loads less than
  /// ``minimumMemoryToCacheRatio`` times as slowly as the smallest.
  static func percent(_ readings: [LoadLatencyProbe.Reading]) -> Int? {
    func latency(_ mebibytes: Int?) -> Double? {
      readings.first { $0.mebibytes == mebibytes }?.nanoseconds
    }
    let sizes = readings.map(\.mebibytes)
    guard let cache = latency(sizes.min()), let memory = latency(sizes.max()),
      let judged = latency(mebibytes), cache > 0, memory >= cache * minimumMemoryToCacheRatio
    else { return nil }
    let share = min(max((judged - cache) / (memory - cache), 0), 1)
    return Int((share * 100).rounded())
  }

  /// What a share says of the cache; the raw values name it in JSON.
  enum Regime: String, Comparable {
    /// Below 25%: the working set stayed in cache.
    case quiet
    /// From 25% to 60%.
    case partlySqueezed = "partly_squeezed"
    /// Above 60%: the working set went to memory, as under `--contend 32`.
    case squeezed

    init(percent: Int) {
      self = percent < 25 ? .quiet : percent <= 60 ? .partlySqueezed : .squeezed
    }

    /// The regime in a sentence.
    var words: String { self == .partlySqueezed ? "partly squeezed" : rawValue }

    static func < (lhs: Regime, rhs: Regime) -> Bool { lhs.severity < rhs.severity }

    private var severity: Int {
      switch self {
      case .quiet: 0
      case .partlySqueezed: 1
      case .squeezed: 2
      }
    }
  }

  /// Each probe's regime, when both can be judged.
  var regimes: (before: Regime, after: Regime)? {
    guard let before, let after else { return nil }
    return (Regime(percent: before), Regime(percent: after))
  }

  /// The worse of the two: the regime the memory-bound points were measured in, at worst.
  var regime: Regime? { regimes.map { max($0.before, $0.after) } }

  /// The sentence the targets section ends with: the regime of each probe, their shares, and how
  /// many of the missed targets `misses` are memory-bound.
  func sentence(misses: [TargetVerdict]) -> String {
    guard let before, let after, let regimes, let regime else {
      return "Shared cache: not judged (the load-latency probe cannot tell cache from memory on "
        + "this host: its largest working set loaded less than "
        + String(format: "%g", Self.minimumMemoryToCacheRatio)
        + " times as slowly as its smallest, or a size is missing)."
    }
    let described =
      regimes.before == regimes.after
      ? regime.words : "\(regimes.before.words) before the run, \(regimes.after.words) after"
    var out =
      "Shared cache: \(described) (a working set of \(Self.mebibytes) MiB loaded \(before)% "
      + "of the way from cache to memory latency before the run, \(after)% after; quiet is "
      + "below 25%)."
    let memoryBound = misses.filter(\.isMemoryBound)
    guard !memoryBound.isEmpty else { return out }
    let scenarios = memoryBound.map(\.scenario).reduce(into: [String]()) {
      if !$0.contains($1) { $0.append($1) }
    }
    let share: String
    if misses.count == 1 {
      share = "The miss is"
    } else if memoryBound.count == misses.count {
      share = misses.count == 2 ? "Both misses are" : "All \(misses.count) misses are"
    } else {
      share =
        "\(memoryBound.count) of the \(misses.count) misses "
        + (memoryBound.count == 1 ? "is" : "are")
    }
    out += " \(share) memory-bound (" + scenarios.joined(separator: ", ") + ")"
    guard regime != .quiet else { return out + "." }
    let them = memoryBound.count == 1 ? "it" : "them"
    out += ", which a squeezed cache moves: judge \(them) on a quiet run"
    return out + (contended ? "." : ", or compare builds under `--contend 32`.")
  }
}
