import Foundation

/// A description of the machine and build, printed above the results.
struct Host {
  var hostname: String
  var cpu: String
  var cores: Int
  var memoryGiB: Double
  var swiftVersion: String
  var configuration: String
  var date: String
  var preset: String
  var samples: Int
  /// The least a timed sample lasts, in milliseconds (`--sample-ms`); 0 for one run per sample.
  var sampleMilliseconds = 0
  var allocationCounting: Bool
  /// `LoadLatencyProbe`'s readings before and after the run, as it describes them.
  var loadLatencyBefore = ""
  var loadLatencyAfter = ""
  /// The MiB that `--contend` streamed through during the run, if any.
  var contention: Int?

  static func current(
    preset: SizePreset,
    samples: Int,
    sampleMilliseconds: Int = 0,
    loadLatency: (before: String, after: String),
    contention: Int? = nil
  ) -> Host {
    let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
      cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
      .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) }
      ?? "unknown"
    return Host(
      hostname: ProcessInfo.processInfo.hostName,
      cpu: model,
      cores: ProcessInfo.processInfo.activeProcessorCount,
      memoryGiB: Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824,
      swiftVersion: swiftCompilerVersion,
      configuration: isDebugBuild ? "debug" : "release",
      date: ISO8601DateFormatter().string(from: Date()),
      preset: preset.rawValue,
      samples: samples,
      sampleMilliseconds: sampleMilliseconds,
      allocationCounting: Allocations.isCounting,
      loadLatencyBefore: loadLatency.before,
      loadLatencyAfter: loadLatency.after,
      contention: contention
    )
  }

  var fields: [(String, String)] {
    [
      ("hostname", hostname), ("cpu", cpu), ("cores", "\(cores)"),
      ("memory_gib", String(format: "%.1f", memoryGiB)), ("swift", swiftVersion),
      ("configuration", configuration), ("date", date), ("preset", preset),
      ("samples", "\(samples)"),
      ("sample_ms", sampleMilliseconds > 0 ? "at least \(sampleMilliseconds)" : "one run each"),
      ("allocation_counting", "\(allocationCounting)"),
      ("load_latency_ns_before", loadLatencyBefore), ("load_latency_ns_after", loadLatencyAfter),
      ("cache_contention_mib", contention.map { "\($0)" } ?? "none"),
    ]
  }
}

#if DEBUG
let isDebugBuild = true
#else
let isDebugBuild = false
#endif

#if compiler(>=6.4)
let swiftCompilerVersion = "6.4 or later"
#elseif compiler(>=6.3)
let swiftCompilerVersion = "6.3"
#elseif compiler(>=6.2)
let swiftCompilerVersion = "6.2"
#else
let swiftCompilerVersion = "older than 6.2"
#endif
