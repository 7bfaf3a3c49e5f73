import Synchronization

/// A pass's memory of change checks: whether the traits of a filter differ between two
/// collections.
///
/// After a change high in the tree, every node without overrides shares the same old and new
/// collections, so thousands of registrations ask the same question; the cache answers it once.
/// It is a small direct-mapped table keyed by the two collections' addresses and the filter.
///
/// It retains nothing. An address could name another collection only after the first was freed
/// and a new one allocated there, and every allocation of a collection advances
/// ``_Storage/allocations``; the cache forgets everything when that counter moved since its
/// answers were made, and at the end of each pass (``clear()``, O(1)). A spare collection is
/// refilled in place without an allocation, but a collection becomes a spare only after the
/// outermost pass ended, or when no pass runs (see `TraitGraph._spareStorages`): never while a
/// pass that compared it runs.
struct _ChangeCache {
  private struct Entry {
    var baseline: UInt = 0
    var current: UInt = 0
    var filter = _TraitFilter.none
    var changed = false
    /// The cache's `stamp` when the entry was made; another stamp marks it empty.
    var stamp: UInt64 = 0
  }

  private static let size = 64
  /// The table, allocated on first use; the graph frees it (`deallocate()`).
  private var entries: UnsafeMutablePointer<Entry>?
  /// Advances to forget every entry.
  private var stamp: UInt64 = 1
  /// ``_Storage/allocations`` when the current entries were made.
  private var allocations: UInt64 = 0

  /// Whether `registration`'s traits, summarized exactly by its filter, differ between
  /// `baseline` and `current`.
  mutating func sawChange(
    _ registration: _Registration,
    in current: _Storage,
    from baseline: _Storage
  ) -> Bool {
    if entries == nil {
      entries = .allocate(capacity: Self.size)
      entries.unsafelyUnwrapped.initialize(repeating: Entry(), count: Self.size)
    }
    let entries = entries.unsafelyUnwrapped
    let allocated = _Storage.allocations.load(ordering: .relaxed)
    if allocated != allocations {
      allocations = allocated
      stamp &+= 1
    }
    let baselineAddress = UInt(bitPattern: ObjectIdentifier(baseline))
    let currentAddress = UInt(bitPattern: ObjectIdentifier(current))
    let filter = registration.filter
    // NB: a multiplicative mix of both addresses and the filter, not `Hasher`: SipHash cost 6%
    // of a pass (callgrind, S2). The filter is mixed too: registrations of one node's subtree
    // share the two addresses and differ by their traits.
    let key =
      (UInt64(baselineAddress) &* 0x9E37_79B9_7F4A_7C15)
      ^ (UInt64(currentAddress) &* 0xC2B2_AE3D_27D4_EB4F)
      ^ ((filter.low ^ (filter.high &<< 1 | filter.high &>> 63)) &* 0xD6E8_FEB8_6659_FD93)
    let slot = Int(truncatingIfNeeded: key &>> 58)
    if entries[slot].stamp == stamp, entries[slot].baseline == baselineAddress,
      entries[slot].current == currentAddress, entries[slot].filter == filter
    {
      return entries[slot].changed
    }
    let changed = registration.sawChange(in: current, from: baseline)
    entries[slot] = Entry(
      baseline: baselineAddress,
      current: currentAddress,
      filter: filter,
      changed: changed,
      stamp: stamp
    )
    return changed
  }

  /// Forgets every answer.
  mutating func clear() {
    stamp &+= 1
  }

  /// Frees the table; the cache is unusable afterwards.
  func deallocate() {
    entries?.deallocate()
  }
}
