/// The registration table of one node: its registrations in the order they were made.
///
/// The engine keeps no global table of callbacks. Each node that has registrations owns one of
/// these (nodes without any pay one nil pointer), and every node keeps a filter of the traits
/// observed anywhere in its subtree (``TraitNode/_subtreeObserved``). A pass descends only into
/// subtrees whose filter meets the traits that may have changed, and here checks each
/// registration's own traits against its baseline. So a change costs time in proportion to the
/// observers of the changed traits and the nodes on the paths to them.
///
/// Removal during delivery must not shift the entries being walked, so an unregistered entry is
/// first made a tombstone — its closure and baseline released at once — and tombstones are
/// compacted away when no delivery is walking the table. Entries stay sorted by id, so a token is
/// found by binary search.
final class _NodeObservers {
  // NB: `@exclusivity(unchecked)`: see the note on `TraitNode`'s state.
  @exclusivity(unchecked) var entries: ContiguousArray<_Registration> = []
  /// The number of entries that are not tombstones.
  @exclusivity(unchecked) var liveCount = 0
  /// A superset of the traits the live entries observe.
  @exclusivity(unchecked) var observed = _TraitFilter.none
  /// How many deliveries are walking `entries`; compaction waits until none is.
  @exclusivity(unchecked) var deliveryDepth = 0
  @exclusivity(unchecked) var tombstones = 0
  /// The live entries that observe every trait (legacy callbacks).
  @exclusivity(unchecked) var allTraitsCount = 0

  func append(_ registration: _Registration) {
    entries.append(registration)
    liveCount += 1
    if registration.observesAllTraits { allTraitsCount += 1 }
    observed |= registration.filter
  }

  /// The position of the live entry with `id`, if any.
  func position(of id: UInt64) -> Int? {
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].id < id { low = middle + 1 } else { high = middle }
    }
    guard low < entries.count, entries[low].id == id, entries[low].isLive else { return nil }
    return low
  }

  /// Makes the entry at `position` a tombstone, releasing what it holds.
  func kill(at position: Int) {
    if entries[position].observesAllTraits { allTraitsCount -= 1 }
    entries[position].kill()
    liveCount -= 1
    tombstones += 1
    compactIfIdle()
  }

  /// Removes tombstones when no delivery is walking the entries, and recomputes `observed`.
  func compactIfIdle() {
    guard deliveryDepth == 0, tombstones > 0 else { return }
    entries.removeAll { !$0.isLive }
    tombstones = 0
    observed = entries.reduce(into: .none) { $0 |= $1.filter }
  }
}

@available(*, unavailable)
extension _NodeObservers: Sendable {}

/// One registration: the traits it observes, its baseline and its callback.
struct _Registration {
  let id: UInt64
  /// The observed traits; for a registration that observes every trait, the traits its owner
  /// declared interesting (used only to count wasted legacy calls).
  let traits: _TraitIndexSet
  let filter: _TraitFilter
  /// Whether `filter` is exactly `traits` (every index below 128), so that it can stand in for
  /// them on the delivery path.
  let filterIsExact: Bool
  /// The node's collection when the registration was last called, or when it was made.
  var baseline: _Storage
  /// Calls the handler; returns `false` when the registration's target is gone.
  var callback: _TraitChangeCallback
  /// Whether the callback observes every trait (the legacy adapter): it then runs after the
  /// node's other registrations and fires when any trait differs.
  let observesAllTraits: Bool
  private(set) var isLive = true

  init(
    traits: _TraitIndexSet,
    baseline: _Storage,
    observesAllTraits: Bool,
    callback: @escaping _TraitChangeCallback
  ) {
    self.id = TraitChangeRegistration.next().id
    self.traits = traits
    self.filter = observesAllTraits ? .all : traits.filter
    self.filterIsExact = !observesAllTraits && traits.allSatisfy { $0 < 128 }
    self.baseline = baseline
    self.callback = callback
    self.observesAllTraits = observesAllTraits
  }

  mutating func kill() {
    isLive = false
    callback = _Registration.noCallback
    baseline = .empty
  }

  /// Whether the values this registration observes differ between its baseline and `current`.
  func sawChange(in current: _Storage) -> Bool {
    if baseline === current { return false }
    if observesAllTraits { return !baseline.isEqual(to: current) }
    if filterIsExact {
      var low = filter.low
      while low != 0 {
        if !current.slotEqual(at: low.trailingZeroBitCount, to: baseline) { return true }
        low &= low &- 1
      }
      var high = filter.high
      while high != 0 {
        if !current.slotEqual(at: 64 + high.trailingZeroBitCount, to: baseline) { return true }
        high &= high &- 1
      }
      return false
    }
    return traits.contains { !current.slotEqual(at: $0, to: baseline) }
  }

  private static func noCallback(_: TraitNode, _: TraitCollection) -> Bool { false }
}

/// A type-erased trait change callback: the observed node and the previous collection.
typealias _TraitChangeCallback = (TraitNode, TraitCollection) -> Bool
