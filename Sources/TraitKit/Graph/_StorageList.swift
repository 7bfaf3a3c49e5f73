/// Collections each retained once by the list: those a pass listed for recycling, and a graph's
/// spares.
///
/// A plain buffer that the graph owns and reuses, like `_WalkStack`: appending costs no
/// uniqueness check and no allocation in the steady state, and emptying it hands each collection
/// on with the list's reference, where an array's `removeAll(keepingCapacity:)` would release
/// them all through the generic path (traitkit-bench S1: about 230 instructions per pass), and
/// its `remove(at:)` is not inlined (about 60 per spare taken).
struct _StorageList {
  private var base: UnsafeMutablePointer<Unmanaged<_Storage>>?
  private(set) var count = 0
  private var capacity = 0

  var isEmpty: Bool { count == 0 }

  /// Appends `storage`, taking over the caller's reference.
  @inline(__always) mutating func append(_ storage: Unmanaged<_Storage>) {
    if count == capacity { grow(toHold: count + 1) }
    (base.unsafelyUnwrapped + count).initialize(to: storage)
    count += 1
  }

  /// The collection at `position`, unretained.
  ///
  /// - Precondition: `position < count`.
  @inline(__always) subscript(position: Int) -> Unmanaged<_Storage> {
    base.unsafelyUnwrapped[position]
  }

  /// Removes the collection at `position` and returns it with the list's reference, moving the
  /// ones after it down.
  ///
  /// - Precondition: `position < count`.
  @inline(__always) mutating func remove(at position: Int) -> Unmanaged<_Storage> {
    let base = base.unsafelyUnwrapped
    let removed = base[position]
    count -= 1
    (base + position).moveInitialize(from: base + position + 1, count: count - position)
    return removed
  }

  /// Releases every collection the list holds, in order, and empties it.
  mutating func releaseAll() {
    for listed in removeAll() { listed.release() }
  }

  /// Moves every collection of `other` to the end of this list, in order, with its reference;
  /// `other` is left empty.
  mutating func append(takingAllOf other: inout _StorageList) {
    guard other.count > 0 else { return }
    if count + other.count > capacity { grow(toHold: count + other.count) }
    (base.unsafelyUnwrapped + count).moveInitialize(
      from: other.base.unsafelyUnwrapped,
      count: other.count
    )
    count += other.count
    other.count = 0
  }

  /// Empties the list and returns its collections, in order, each with the list's reference
  /// for the caller to take over once.
  ///
  /// - Precondition: nothing appends to the list until the caller has taken them all (the
  ///   buffer is the list's).
  @inline(__always) mutating func removeAll() -> UnsafeBufferPointer<Unmanaged<_Storage>> {
    let listed = UnsafeBufferPointer(start: base, count: count)
    count = 0
    return listed
  }

  /// Releases what the list holds and frees its buffer; the list is unusable afterwards.
  func deallocate() {
    for position in 0..<count { base.unsafelyUnwrapped[position].release() }
    base?.deallocate()
  }

  @inline(never)
  private mutating func grow(toHold needed: Int) {
    let newCapacity = Swift.max(16, capacity * 2, needed)
    let grown = UnsafeMutablePointer<Unmanaged<_Storage>>.allocate(capacity: newCapacity)
    if let base {
      grown.moveInitialize(from: base, count: count)
      base.deallocate()
    }
    base = grown
    capacity = newCapacity
  }
}

@available(*, unavailable)
extension _StorageList: Sendable {}
