/// A 128-bit summary of a set of traits: trait `i` sets bit `i` for `i < 127`, and every later
/// trait sets the shared overflow bit 127.
///
/// Exact for the first 127 trait types of a process and a superset beyond, which is all a
/// summary needs: the engine uses filters to skip subtrees and registrations that cannot be
/// affected, and always confirms with exact values before calling anyone. Only exact bits (those
/// of indices up to ``lastExactIndex``) may be *removed* from a summary, as the pass does when an
/// override shields a subtree.
@usableFromInline
struct _TraitFilter: Equatable, Sendable {
  @usableFromInline var low: UInt64
  @usableFromInline var high: UInt64

  @usableFromInline static let none = _TraitFilter(low: 0, high: 0)
  static let all = _TraitFilter(low: ~0, high: ~0)

  @inlinable
  init(low: UInt64, high: UInt64) {
    self.low = low
    self.high = high
  }

  /// The highest trait index whose bit stands for it alone.
  static let lastExactIndex = 126

  @inline(__always)
  init(index: Int) {
    let bit = Swift.min(index, 127)
    self.init(low: bit < 64 ? 1 << UInt64(bit) : 0, high: bit >= 64 ? 1 << UInt64(bit - 64) : 0)
  }

  @inlinable @inline(__always) var isEmpty: Bool { (low | high) == 0 }

  @inline(__always) func intersects(_ other: _TraitFilter) -> Bool {
    (low & other.low) | (high & other.high) != 0
  }

  @inline(__always) func contains(_ other: _TraitFilter) -> Bool {
    (other.low & ~low) | (other.high & ~high) == 0
  }

  @inline(__always) static func | (lhs: _TraitFilter, rhs: _TraitFilter) -> _TraitFilter {
    _TraitFilter(low: lhs.low | rhs.low, high: lhs.high | rhs.high)
  }

  @inline(__always) static func & (lhs: _TraitFilter, rhs: _TraitFilter) -> _TraitFilter {
    _TraitFilter(low: lhs.low & rhs.low, high: lhs.high & rhs.high)
  }

  @inline(__always) static func ^ (lhs: _TraitFilter, rhs: _TraitFilter) -> _TraitFilter {
    _TraitFilter(low: lhs.low ^ rhs.low, high: lhs.high ^ rhs.high)
  }

  @inline(__always) static prefix func ~ (filter: _TraitFilter) -> _TraitFilter {
    _TraitFilter(low: ~filter.low, high: ~filter.high)
  }

  @inline(__always) static func |= (lhs: inout _TraitFilter, rhs: _TraitFilter) {
    lhs.low |= rhs.low
    lhs.high |= rhs.high
  }
}

// MARK: - 64-bit summaries

// NB: a registration keeps a 64-bit summary rather than a filter, which keeps an entry at 32
// bytes, two to a cache line (traitkit-bench S6).
extension _TraitFilter {
  /// The highest trait index whose bit stands for it alone in a 64-bit summary.
  static let lastSummarizedIndex = 62

  /// This filter in 64 bits: bits 0–62 as they are, and bit 63 for trait 63 and every later one.
  @inline(__always)
  var summary: UInt64 {
    high == 0 ? low : low | 1 << 63
  }

  /// The filter a 64-bit summary stands for: its bit 63 widens to trait 63 and every later one.
  @inline(__always)
  init(summary: UInt64) {
    self.init(low: summary, high: UInt64(bitPattern: Int64(bitPattern: summary) >> 63))
  }
}

/// An exact set of dense trait indices; the first 64 are stored inline.
@usableFromInline
struct _TraitIndexSet: Equatable, Sequence, Sendable {
  @usableFromInline var first: UInt64 = 0
  @usableFromInline var rest: [UInt64] = []

  @inlinable
  init() {}

  init(_ indices: some Sequence<Int>) {
    for index in indices { insert(index) }
  }

  @inline(__always)
  var isEmpty: Bool { first == 0 && (rest.isEmpty || restIsZero) }

  /// Empties the set, keeping its capacity.
  @inline(__always)
  mutating func removeAll() {
    first = 0
    if !rest.isEmpty { rest.removeAll(keepingCapacity: true) }
  }

  /// Whether the set holds an index past `_TraitFilter.lastExactIndex`, which a filter does not
  /// tell apart.
  // NB: a plain loop over the words, which a debug build runs without allocating
  // (ZeroAllocationTests).
  var containsPastExactFilter: Bool {
    var index = 0
    while index < rest.count {
      if rest[index] & (index == 0 ? 1 << 63 : ~0) != 0 { return true }
      index += 1
    }
    return false
  }

  /// Makes this set hold the indices of `other`, in words of its own: it shares none of
  /// `other`'s, and allocates only when it needs more of them than it has.
  mutating func copyWords(of other: _TraitIndexSet) {
    first = other.first
    if rest.count != other.rest.count {
      rest = [UInt64](repeating: 0, count: other.rest.count)
    }
    for index in other.rest.indices { rest[index] = other.rest[index] }
  }

  /// The summary of this set.
  @inline(__always)
  var filter: _TraitFilter {
    rest.isEmpty ? _TraitFilter(low: first, high: 0) : filterBeyondFirstWord
  }

  @inline(never)
  private var filterBeyondFirstWord: _TraitFilter {
    reduce(into: .none) { $0 |= _TraitFilter(index: $1) }
  }

  /// Whether the 64-bit summary of ``filter`` stands for this set exactly: no index is beyond
  /// `_TraitFilter.lastSummarizedIndex`.
  @inline(__always)
  var isSummarizedExactly: Bool {
    first >> 63 == 0 && (rest.isEmpty || restIsZero)
  }

  /// Whether no index beyond the first 64 is in the set: every word of `rest` is 0.
  // NB: an index loop, not a generic algorithm such as `allSatisfy` or `contains(where:)`:
  // unspecialized (-Onone), a generic algorithm reads each element through a coroutine that
  // allocates its frame, one allocation per word, and a node's refresh asks whether its
  // overrides are empty, and a delivery whether a legacy registration's interesting traits are
  // (ZeroAllocationTests).
  @inline(never)
  private var restIsZero: Bool {
    for word in rest.indices where rest[word] != 0 { return false }
    return true
  }

  @inlinable @inline(__always)
  func contains(_ index: Int) -> Bool {
    if index < 64 { return first & (1 << UInt64(index)) != 0 }
    let word = index / 64 - 1
    return word < rest.count && rest[word] & (1 << UInt64(index % 64)) != 0
  }

  @inline(__always)
  mutating func insert(_ index: Int) {
    if index < 64 {
      first |= 1 << UInt64(index)
    } else {
      insertBeyondFirstWord(index)
    }
  }

  @inline(never)
  private mutating func insertBeyondFirstWord(_ index: Int) {
    let word = index / 64 - 1
    // NB: one word at a time, not `append(contentsOf:)`, for the reason given in
    // `TraitGraph._takeSpareStorage`: re-tracking a read beyond the first 64 traits appends here.
    while word >= rest.count { rest.append(0) }
    rest[word] |= 1 << UInt64(index % 64)
  }

  mutating func remove(_ index: Int) {
    if index < 64 {
      first &= ~(1 << UInt64(index))
    } else if index / 64 - 1 < rest.count {
      rest[index / 64 - 1] &= ~(1 << UInt64(index % 64))
    }
  }

  /// The indices in increasing order.
  @usableFromInline
  func makeIterator() -> Iterator { Iterator(set: self) }

  /// Calls `body` with each index in the set, in increasing order.
  // NB: without an iterator, which holds a copy of the set and so retains `rest` (traitkit-bench
  // S1: a node's refresh goes through its overrides' indices).
  @inline(__always)
  func forEachIndex(_ body: (Int) -> Void) {
    var bits = first
    while bits != 0 {
      body(bits.trailingZeroBitCount)
      bits &= bits &- 1
    }
    guard !rest.isEmpty else { return }
    for word in rest.indices {
      var bits = rest[word]
      while bits != 0 {
        body((word &+ 1) &* 64 &+ bits.trailingZeroBitCount)
        bits &= bits &- 1
      }
    }
  }

  @usableFromInline
  struct Iterator: IteratorProtocol {
    let set: _TraitIndexSet
    var word = -1
    var bits: UInt64

    init(set: _TraitIndexSet) {
      self.set = set
      self.bits = set.first
    }

    @usableFromInline
    mutating func next() -> Int? {
      while bits == 0 {
        word += 1
        guard word < set.rest.count else { return nil }
        bits = set.rest[word]
      }
      let bit = bits.trailingZeroBitCount
      bits &= bits - 1
      return (word + 1) * 64 + bit
    }
  }

  @usableFromInline
  static func == (lhs: _TraitIndexSet, rhs: _TraitIndexSet) -> Bool {
    guard lhs.first == rhs.first else { return false }
    let count = Swift.max(lhs.rest.count, rhs.rest.count)
    for word in 0..<count
    where (word < lhs.rest.count ? lhs.rest[word] : 0)
      != (word < rhs.rest.count ? rhs.rest[word] : 0)
    {
      return false
    }
    return true
  }
}
