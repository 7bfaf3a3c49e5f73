/// A benchmark scenario of `reference/anchors.md` §5.3.
protocol Scenario: Sendable {
  /// "S1" … "S10".
  var id: String { get }
  /// A dotted benchmark name, such as `Registration.fanOut`.
  var name: String { get }
  /// One line on what is measured.
  var summary: String { get }
  /// The parameter points to run at a size preset, each a list of named values.
  func points(_ preset: SizePreset) -> [[(String, Int)]]
  /// The contenders' workloads at one point.
  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload]
}

extension Scenario {
  /// The contenders the scenario measures at some point, read from its smoke-size workloads.
  var contenders: Set<Contender> {
    Set(points(.smoke).flatMap { workloads(at: $0, preset: .smoke).map(\.contender) })
  }
}

extension [(String, Int)] {
  /// The value named `name`.
  subscript(_ name: String) -> Int {
    first { $0.0 == name }!.1
  }
}

/// How large a run is.
enum SizePreset: String {
  /// Tiny sizes, every assertion, under 20 seconds in all: what CI runs.
  case smoke
  /// Smaller sizes for a quick look.
  case quick
  /// The sizes of the scenario table.
  case full

  /// Timed samples per contender and point.
  var samples: Int {
    switch self {
    case .smoke: 3
    case .quick: 7
    case .full: 15
    }
  }

  /// How long a timed sample lasts at least, in milliseconds, unless `--sample-ms` says
  /// otherwise (see `Runner.minimumSampleDuration`); 0 makes a sample one run.
  ///
  /// `anchors.md` §5.1 asks timed runs of 20–300 ms. A sample of one run of a workload sized in
  /// operations lasts from a few microseconds to a few milliseconds; taken in turn with the
  /// other contenders', whose working sets are far larger (Observation's, NotificationCenter's),
  /// it starts with caches those left, and its figure depends on which peers ran before it: in
  /// S1 at K=256, TraitKit took 2.03 ns a callback with only the floor measured and 2.26–2.33
  /// with every peer, and in S2 the floor's write took 52–56 µs against 27 µs warm.
  var sampleMilliseconds: Int {
    switch self {
    case .smoke: 0
    case .quick: 5
    case .full: 20
    }
  }

  /// Picks a size for this preset.
  func pick(smoke: Int, quick: Int, full: Int) -> Int {
    switch self {
    case .smoke: smoke
    case .quick: quick
    case .full: full
    }
  }
}
