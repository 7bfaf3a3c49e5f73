@testable import TraitKitBenchmarks

extension Host {
  /// A fixed host for report tests, with `samples` timed samples per point.
  static func fixture(samples: Int) -> Host {
    Host(
      hostname: "ci",
      cpu: "Test CPU",
      cores: 2,
      memoryGiB: 24,
      swiftVersion: "6.3",
      configuration: "release",
      date: "2026-11-30T10:00:00Z",
      preset: "full",
      samples: samples,
      allocationCounting: true
    )
  }
}
