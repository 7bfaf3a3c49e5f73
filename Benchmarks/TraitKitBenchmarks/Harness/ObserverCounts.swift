/// Each observer's callbacks, counted apart, for the targets that hold every observer to an
/// exact count ("exactly one call per observer per pass"), which a total cannot show: one
/// observer called twice and another never add up right.
///
/// An observer increments its own slot, which costs what incrementing a shared counter costs;
/// the runner checks every slot after every sample, outside the timed region (see
/// ``Workload/verify``).
final class ObserverCounts {
  private let counts: UnsafeMutableBufferPointer<Int>
  /// The callbacks each observer must see in one sample, by slot.
  let expected: [Int]

  init(expected: [Int]) {
    self.expected = expected
    counts = .allocate(capacity: max(expected.count, 1))
    counts.initialize(repeating: 0)
  }

  /// One slot that every observer shares, and no expected count: a plain total.
  convenience init() {
    self.init(expected: [])
  }

  deinit {
    counts.deallocate()
  }

  /// The slot of observer `index`, for its callback to increment.
  func slot(_ index: Int) -> ObserverCountSlot {
    require(counts.indices.contains(index), "No slot \(index)")
    return ObserverCountSlot(pointer: counts.baseAddress.unsafelyUnwrapped + index)
  }

  /// The callbacks seen since the last take, in all; resets the counts.
  func take() -> Int {
    var total = 0
    for index in counts.indices {
      total += counts[index]
      counts[index] = 0
    }
    return total
  }

  /// The callbacks seen since the last check, in all, and the first observer whose own count is
  /// not its expected count, described; resets the counts.
  func check() -> (callbacks: Int, wrong: String?) {
    var wrong: String?
    for (index, expected) in expected.enumerated() where counts[index] != expected {
      wrong = "observer \(index) saw \(counts[index]) callbacks in a sample, expected \(expected)"
      break
    }
    return (take(), wrong)
  }
}

/// One observer's count in an ``ObserverCounts``.
///
/// NB: `@unchecked Sendable` so that NotificationCenter's `@Sendable` blocks can capture it; the
/// benchmark posts and observes on one thread.
struct ObserverCountSlot: @unchecked Sendable {
  let pointer: UnsafeMutablePointer<Int>

  /// Counts one callback.
  @inline(__always)
  func hit() {
    pointer.pointee += 1
  }
}
