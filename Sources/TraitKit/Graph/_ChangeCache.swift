/// A pass's memory of change checks: whether the traits of a filter differ between two
/// collections.
///
/// After a change high in the tree, every node without overrides shares the same old and new
/// collections, so thousands of registrations ask the same question; the cache answers it once.
/// It is a small direct-mapped table whose entries retain their two collections (so an address
/// cannot be reused while the answer is kept) and is emptied at the end of each pass.
struct _ChangeCache {
  private struct Entry {
    var baseline: _Storage?
    var current: _Storage?
    var filter = _TraitFilter.none
    var changed = false
  }

  private static let size = 16
  private var entries: [Entry] = []

  /// Whether `registration`'s traits, summarized exactly by its filter, differ between
  /// `baseline` and `current`.
  mutating func sawChange(
    _ registration: _Registration,
    in current: _Storage,
    from baseline: _Storage
  ) -> Bool {
    if entries.isEmpty { entries = Array(repeating: Entry(), count: Self.size) }
    // NB: a multiplicative mix of the two addresses and the filter, not `Hasher`: SipHash cost
    // 6% of a pass (callgrind, S2).
    let key =
      (UInt(bitPattern: ObjectIdentifier(baseline)) &* 0x9E37_79B9_7F4A_7C15)
      ^ (UInt(bitPattern: ObjectIdentifier(current)) &* 0xC2B2_AE3D_27D4_EB4F)
      ^ UInt(truncatingIfNeeded: registration.filter.low &+ registration.filter.high)
    let slot = Int(truncatingIfNeeded: (key &>> 58) & UInt(Self.size - 1))
    if entries[slot].baseline === baseline, entries[slot].current === current,
      entries[slot].filter == registration.filter
    {
      return entries[slot].changed
    }
    let changed = registration.sawChange(in: current, from: baseline)
    entries[slot] = Entry(
      baseline: baseline,
      current: current,
      filter: registration.filter,
      changed: changed
    )
    return changed
  }

  /// Forgets every answer, releasing the collections.
  mutating func clear() {
    guard !entries.isEmpty else { return }
    for slot in entries.indices where entries[slot].baseline != nil { entries[slot] = Entry() }
  }
}
