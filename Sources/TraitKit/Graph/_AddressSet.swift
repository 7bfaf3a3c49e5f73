/// The addresses of the collections a pass listed for recycling, so that each is listed once
/// (see `TraitGraph._recycleAfterPass`).
///
/// An open-addressing table of 64 entries, probed linearly from a multiplicative hash of the
/// address. Emptied in O(1) at the end of each pass: an entry counts only while it carries the
/// set's current stamp. It holds at most 48 addresses, so that a probe always ends at an entry
/// that does not count; beyond that, `insert` records nothing and answers as for a new address,
/// which only lets a duplicate into the list.
///
/// It retains nothing: the list holds the collections whose addresses it has.
struct _AddressSet {
  private struct Entry {
    var address: UInt = 0
    /// The set's `stamp` when the entry was made; another stamp marks it empty.
    var stamp: UInt64 = 0
  }

  /// The number of entries, a power of two.
  private static let size = 64
  /// The most addresses the set records between two `removeAll()`s.
  static let capacity = 48

  /// The table, allocated on first use; the graph frees it (`deallocate()`).
  private var entries: UnsafeMutablePointer<Entry>?
  /// Advances to empty the set.
  private var stamp: UInt64 = 1
  /// The addresses recorded since the last `removeAll()`.
  private var count = 0

  /// Adds `address`, unless the set holds it or is full; returns whether it did not hold it.
  @inline(__always) mutating func insert(_ address: UInt) -> Bool {
    let entries = entries ?? makeEntries()
    var slot = Self.slot(address)
    // NB: ends, because at most `capacity` of the `size` entries carry the current stamp.
    while entries[slot].stamp == stamp {
      if entries[slot].address == address { return false }
      slot = (slot &+ 1) & (Self.size &- 1)
    }
    guard count < Self.capacity else { return true }
    entries[slot] = Entry(address: address, stamp: stamp)
    count &+= 1
    return true
  }

  /// Forgets every address.
  @inline(__always) mutating func removeAll() {
    stamp &+= 1
    count = 0
  }

  /// Frees the table; the set is unusable afterwards.
  func deallocate() {
    entries?.deallocate()
  }

  /// The entry where the probe for `address` starts.
  @inline(__always) private static func slot(_ address: UInt) -> Int {
    // NB: in 64 bits on every platform, as the registry's hash (a 32-bit `UInt` cannot hold the
    // constant); the top bits index the table.
    let shift = UInt64(64 &- size.trailingZeroBitCount)
    return Int(truncatingIfNeeded: (UInt64(address) &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  private mutating func makeEntries() -> UnsafeMutablePointer<Entry> {
    let allocated = UnsafeMutablePointer<Entry>.allocate(capacity: Self.size)
    allocated.initialize(repeating: Entry(), count: Self.size)
    entries = allocated
    return allocated
  }
}
