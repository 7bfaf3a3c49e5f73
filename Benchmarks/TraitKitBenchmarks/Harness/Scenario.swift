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

  /// Picks a size for this preset.
  func pick(smoke: Int, quick: Int, full: Int) -> Int {
    switch self {
    case .smoke: smoke
    case .quick: quick
    case .full: full
    }
  }
}
