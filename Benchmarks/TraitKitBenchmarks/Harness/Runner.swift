/// The measured figures of one contender at one parameter point of one scenario.
struct PointResult {
  let scenarioID: String
  let scenarioName: String
  let params: [(String, Int)]
  let contender: Contender
  let unit: String
  /// The runs of the workload that each timed sample repeated (see
  /// `Runner.minimumSampleDuration`).
  var runsPerSample = 1
  /// Nanoseconds per unit, one per sample, sorted.
  let nanoseconds: [Double]
  /// The callbacks a sample made per operation, as counted over the timed samples: the expected
  /// count when every sample made it.
  let callbacksPerOperation: Double
  let allocationsPerOperation: Double?
  let bytes: Int?
  let nodesVisitedPerOperation: Double?
  var ratioToFloor: Double?
  /// Of `callbacksPerOperation`, those to observers that use none of what changed (`compare`).
  var wastedCallbacksPerOperation: Double?
  /// `bytes` before it was rounded, where it is a figure per unit (S10).
  var bytesPerUnit: Double?

  var median: Double { percentile(50) }

  /// The `p`th percentile of the samples (nearest rank).
  func percentile(_ p: Double) -> Double {
    guard !nanoseconds.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(nanoseconds.count)).rounded(.up)) - 1
    return nanoseconds[min(max(rank, 0), nanoseconds.count - 1)]
  }

  var paramsDescription: String {
    params.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
  }
}

/// Runs scenarios: warm-up, then samples taken round-robin across contenders, each round
/// starting one contender further on, each sample repeating its contender's run until it lasts
/// `minimumSampleDuration`, every run's callback count checked.
struct Runner {
  let preset: SizePreset
  let samples: Int
  let progress: (String) -> Void
  /// The contenders to measure; all when empty.
  var contenders: Set<Contender> = []
  /// How long a timed sample lasts at least (`--sample-ms`).
  ///
  /// A sample repeats its workload's run as many times as a warm run says it takes to last that
  /// long. Zero makes every sample one run.
  var minimumSampleDuration: Duration
  private(set) var results: [PointResult] = []
  private(set) var failures: [String] = []

  /// The heap bytes in use, for ``Workload/retainedBytes``.
  let heapBytesInUse: () -> Int

  init(
    preset: SizePreset,
    samples: Int? = nil,
    heapBytesInUse: @escaping () -> Int = { Allocations.bytesInUse },
    progress: @escaping (String) -> Void
  ) {
    self.preset = preset
    self.samples = samples ?? preset.samples
    self.minimumSampleDuration = .milliseconds(preset.sampleMilliseconds)
    self.heapBytesInUse = heapBytesInUse
    self.progress = progress
  }

  mutating func run(_ scenario: any Scenario) {
    for point in scenario.points(preset) {
      let label =
        "\(scenario.id) \(scenario.name) \(point.map { "\($0.0)=\($0.1)" }.joined(separator: " "))"
      progress(label)
      let workloads = scenario.workloads(at: point, preset: preset).filter {
        contenders.isEmpty || contenders.contains($0.contender)
      }
      var allocations: [Contender: Double] = [:]
      var nodesVisited: [Contender: Double] = [:]
      var retainedBytes: [Contender: Int] = [:]
      for workload in workloads {
        for _ in 0..<2 { check(workload.run(), workload, label) }
        var seen = 0
        let count = Allocations.counting { seen = workload.run() }
        check(seen, workload, label)
        if Allocations.isCounting {
          allocations[workload.contender] = Double(count) / Double(workload.operations)
        }
        if workload.retainedBytes != .none {
          let (bytes, seen) = Allocations.retainedBytes(measuredBy: heapBytesInUse) {
            workload.run()
          }
          check(seen, workload, label)
          retainedBytes[workload.contender] = bytes
          if bytes != 0, workload.retainedBytes == .mustBeZero {
            record(
              "\(label) [\(workload.contender.rawValue)]: a sample left \(bytes) bytes of heap "
                + "behind, expected 0"
            )
          }
        }
        if let visited = workload.nodesVisited {
          nodesVisited[workload.contender] = Double(visited()) / Double(workload.operations)
          // The replayed sample's own counts are not checked; reset them.
          _ = workload.verify?()
        }
      }
      let clock = ContinuousClock()
      let runs = workloads.map { runsPerSample($0, label, clock) }
      var times = [[Double]](repeating: [], count: workloads.count)
      // NB: the callbacks the timed samples made, so that a report shows what a run saw, not
      // what it expected, when the two differ.
      var callbacks = [Int](repeating: 0, count: workloads.count)
      for round in 0..<samples {
        // NB: each round starts one contender further on, so that no contender always runs
        // first, or right after the same other one, whose leftovers in the caches and the heap
        // it would always inherit.
        for offset in workloads.indices {
          let index = (round + offset) % workloads.count
          let workload = workloads[index]
          // NB: each run's count checked after it, outside the time: a sample of several runs
          // is held to every run's count, as a sample of one is.
          var elapsed = Duration.zero
          for _ in 0..<runs[index] {
            var seen = 0
            elapsed += clock.measure { seen = workload.run() }
            callbacks[index] += check(seen, workload, label)
          }
          times[index].append(elapsed.nanoseconds / Double(workload.units * runs[index]))
        }
      }
      var pointResults = workloads.enumerated().map { index, workload in
        PointResult(
          scenarioID: scenario.id,
          scenarioName: scenario.name,
          params: point,
          contender: workload.contender,
          unit: workload.unit,
          runsPerSample: runs[index],
          nanoseconds: times[index].sorted(),
          callbacksPerOperation: Double(callbacks[index])
            / Double(max(times[index].count, 1) * runs[index] * workload.operations),
          allocationsPerOperation: allocations[workload.contender],
          bytes: workload.bytesPerUnit.map { Int($0.rounded()) }
            ?? retainedBytes[workload.contender],
          nodesVisitedPerOperation: nodesVisited[workload.contender],
          wastedCallbacksPerOperation: workload.wastedCallbacks.map {
            Double($0) / Double(workload.operations)
          },
          bytesPerUnit: workload.bytesPerUnit
        )
      }
      if let floor = pointResults.first(where: { $0.contender == .floor }) {
        for index in pointResults.indices {
          pointResults[index].ratioToFloor = pointResults[index].median / floor.median
        }
      }
      results += pointResults
    }
  }

  /// The runs of `workload` that a timed sample repeats so as to last at least
  /// `minimumSampleDuration`, reckoned from one warm run timed now (its count checked too): 1
  /// when one run lasts that long, or when there is no minimum.
  private mutating func runsPerSample(
    _ workload: Workload,
    _ label: String,
    _ clock: ContinuousClock
  ) -> Int {
    guard minimumSampleDuration > .zero else { return 1 }
    var seen = 0
    let once = clock.measure { seen = workload.run() }
    check(seen, workload, label)
    guard once < minimumSampleDuration else { return 1 }
    let runs = (minimumSampleDuration.nanoseconds / max(once.nanoseconds, 1)).rounded(.up)
    return Int(min(runs, Double(Self.maximumRunsPerSample)))
  }

  /// The most runs a sample repeats, whatever a run's time: a run too quick for the clock to
  /// time would otherwise ask for an endless sample.
  static let maximumRunsPerSample = 1_000_000

  /// Checks the sample just run: its callbacks, and what the workload's `verify` checks;
  /// returns the callbacks it made.
  @discardableResult
  private mutating func check(_ seen: Int, _ workload: Workload, _ label: String) -> Int {
    var seen = seen
    if let verify = workload.verify {
      let (callbacks, wrong) = verify()
      seen += callbacks
      if let wrong { record("\(label) [\(workload.contender.rawValue)]: \(wrong)") }
    }
    guard seen != workload.expectedCallbacks else { return seen }
    record(
      "\(label) [\(workload.contender.rawValue)]: saw \(seen) callbacks in a sample, "
        + "expected \(workload.expectedCallbacks)"
    )
    return seen
  }

  private mutating func record(_ failure: String) {
    if !failures.contains(failure) { failures.append(failure) }
  }
}

extension Duration {
  var nanoseconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
  }
}
