import Foundation

/// How long a load that misses the caches takes on this host now, by working-set size.
///
/// Each reading chases pointers through a random cycle over the cache lines of a buffer of one
/// size: every load depends on the one before, so the time per load is the latency of the level
/// that holds that much. The scenarios whose working sets exceed a core's private cache (S6,
/// S7's tracked read, S8 with overrides) compare what differs in footprint, so their ratios
/// depend on how much of the shared cache the host's other tenants leave this process: a
/// reading that jumps from cache to memory latency below the largest size says the run was
/// squeezed. `traitkit-bench` probes before and after the run, prints both in its host header,
/// and judges them at the end of its targets (``CacheSqueeze``).
enum LoadLatencyProbe {
  /// The working-set sizes probed, in MiB.
  static let sizes = [1, 2, 4, 8, 16, 64]

  /// The latency of a dependent load over one working-set size.
  struct Reading: Equatable {
    var mebibytes: Int
    var nanoseconds: Double
  }

  /// Reads every size in `sizes`: the median over `rounds` chases of `loads` loads each.
  static func measure(loads: Int = 200_000, rounds: Int = 3) -> [Reading] {
    var generator = SeededGenerator(seed: 0x1A7E_0C7)
    return sizes.map { mebibytes in
      let next = cycle(lines: mebibytes << 20 / lineSize, using: &generator)
      let times = (0..<rounds).map { _ in chase(next, loads: loads) }.sorted()
      return Reading(mebibytes: mebibytes, nanoseconds: times[times.count / 2])
    }
  }

  /// The readings as the host header prints them: `1 MiB 7.1, 2 MiB 8.9, …`.
  static func describe(_ readings: [Reading]) -> String {
    readings.map { String(format: "%d MiB %.1f", $0.mebibytes, $0.nanoseconds) }
      .joined(separator: ", ")
  }

  /// The bytes between two probed words: one cache line on the hosts this runs on.
  static let lineSize = 64
  private static let wordsPerLine = lineSize / MemoryLayout<Int>.stride

  /// A buffer of `lines` cache lines whose first words link them into one cycle in random
  /// order: `next[i]` is the index of the word to load after the word at `i`.
  static func cycle(lines: Int, using generator: inout SeededGenerator) -> [Int] {
    require(lines > 0, "A load-latency probe needs at least one cache line")
    var order = Array(0..<lines)
    order.shuffle(using: &generator)
    var next = [Int](repeating: 0, count: lines * wordsPerLine)
    for position in 0..<lines {
      next[order[position] * wordsPerLine] = order[(position + 1) % lines] * wordsPerLine
    }
    return next
  }

  /// Nanoseconds per load of `loads` dependent loads through `next`.
  private static func chase(_ next: [Int], loads: Int) -> Double {
    var index = 0
    let elapsed = ContinuousClock().measure {
      next.withUnsafeBufferPointer { words in
        for _ in 0..<loads { index = words[index] }
      }
    }
    blackHole(index)
    return elapsed.nanoseconds / Double(loads)
  }
}
