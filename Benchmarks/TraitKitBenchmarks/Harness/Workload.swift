/// The systems a scenario measures side by side.
enum Contender: String, CaseIterable, Comparable {
  /// Hand-written closure arrays doing only the necessary work.
  case floor
  /// TraitKit registrations.
  case traitkit
  /// TraitKit's legacy `traitCollectionDidChange` adapter.
  case traitkitLegacy = "traitkit-legacy"
  /// Swift Observation, `withObservationTracking` re-installed after each change.
  case observation
  /// Foundation's `NotificationCenter`, block observers, one name per trait.
  case notificationCenter = "notificationcenter"

  static func < (lhs: Contender, rhs: Contender) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// One contender's prepared work at one parameter point of a scenario.
///
/// `run` performs one sample — `operations` operations — and returns the callbacks it saw; the
/// harness checks them against `expectedCallbacks` on every sample, so a fast wrong answer fails
/// the run.
struct Workload {
  var contender: Contender
  /// What one reported nanosecond figure is per ("callback", "write", "read"…).
  var unit: String
  /// How many units one sample performs.
  var units: Int
  /// How many operations (writes, reads, registrations…) one sample performs.
  var operations: Int
  /// The callbacks one sample must see.
  var expectedCallbacks: Int
  /// Runs one sample; returns the callbacks it saw.
  var run: () -> Int
  /// A memory figure in bytes per unit, where the scenario measures memory (S10): the report
  /// shows it rounded to whole bytes, and the targets judge it as it is.
  var bytesPerUnit: Double?
  /// Whether the harness runs one more sample, untimed, to measure the heap bytes it leaves
  /// behind and reports them as its result's bytes: for workloads that end with what they
  /// started with, such as S6's, whose registrations all end.
  var retainedBytes = RetainedBytesCheck.none
  /// The callbacks of a sample that went to observers that use none of what changed, where the
  /// scenario tells them apart (`compare`).
  var wastedCallbacks: Int?
  /// Nodes visited per sample, where the contender can tell.
  var nodesVisited: (() -> Int)?
  /// Checks what a callback total cannot show, after every sample and outside its timed region:
  /// returns the callbacks counted apart from `run`'s result (added to it before the check
  /// against `expectedCallbacks`), and what was wrong, or nil; resets what it counted.
  var verify: (() -> (callbacks: Int, wrong: String?))?
  /// The counts that `verify` checks, one per observer, when the workload counts them apart.
  var observerCounts: ObserverCounts?

  init(
    _ contender: Contender,
    unit: String,
    units: Int,
    operations: Int,
    expectedCallbacks: Int,
    bytesPerUnit: Double? = nil,
    nodesVisited: (() -> Int)? = nil,
    verify: (() -> (callbacks: Int, wrong: String?))? = nil,
    run: @escaping () -> Int
  ) {
    self.contender = contender
    self.unit = unit
    self.units = max(units, 1)
    self.operations = max(operations, 1)
    self.expectedCallbacks = expectedCallbacks
    self.bytesPerUnit = bytesPerUnit
    self.nodesVisited = nodesVisited
    self.verify = verify
    self.run = run
  }
}

/// What the harness does with the heap bytes a sample leaves behind (see
/// ``Workload/retainedBytes``).
enum RetainedBytesCheck {
  /// It does not measure them.
  case none
  /// It reports them.
  case reported
  /// It reports them, and a figure other than 0 fails the run, as a wrong count does.
  case mustBeZero
}

/// Counts callbacks; every contender's observers increment one.
final class CallbackCounter {
  @exclusivity(unchecked) var count = 0

  /// Returns the count and resets it.
  func take() -> Int {
    defer { count = 0 }
    return count
  }
}

extension Workload {
  /// Checks each observer's own count in `counts` after every sample (see ``ObserverCounts``).
  init(
    _ contender: Contender,
    unit: String,
    units: Int,
    operations: Int,
    counts: ObserverCounts,
    nodesVisited: (() -> Int)? = nil,
    run: @escaping () -> Void
  ) {
    self.init(
      contender,
      unit: unit,
      units: units,
      operations: operations,
      expectedCallbacks: counts.expected.reduce(0, +),
      nodesVisited: nodesVisited,
      verify: counts.check
    ) {
      run()
      return 0
    }
    observerCounts = counts
  }
}

/// Keeps the optimizer from deleting work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
