/// The registration table of one node: its registrations in the order they were made.
///
/// The engine keeps no global table of callbacks. Each node that has registrations owns one of
/// these (nodes without any pay one nil pointer), and every node keeps a filter of the traits
/// observed anywhere in its subtree (``TraitNode/_subtreeObserved``). A pass descends only into
/// subtrees whose filter meets the traits that may have changed, and here checks each
/// registration's own traits against its baseline. So a change costs time in proportion to the
/// observers of the changed traits and the nodes on the paths to them.
///
/// The table is plain data on the delivery path. Entries are POD structs in the table's one
/// allocation, after its header; each owns (+1) its callee: a handler closure, kept in the entry
/// itself, or a box for the other forms (``_RegistrationBox``), which a delivery calls through a
/// guaranteed reference. Baselines are shared: registrations that were made or called at the same
/// collection point at one *snapshot*, a slot with a plain use count, so moving a registration to
/// a new baseline is two integer updates, and the change check runs once per snapshot and
/// traits rather than once per registration.
///
/// Removal leaves a tombstone, so that a delivery walking the entries never sees them shift, and
/// entries stay sorted by id for the binary search that finds a token. Outside a delivery the
/// tombstone's callee is released at once (so the closure and what it captures go with it);
/// inside one, the release waits until the delivery ends. Tombstones are compacted away once they are
/// all of the table, or half of a table of more than 32 entries, or when a full table would
/// otherwise grow, so removal costs O(log n) amortized. A token remembers its entry's position,
/// so finding the entry costs no search until a compaction moves it.
///
/// A node owns its table: it makes it on its first registration, and destroys it when it
/// deinitializes.
@dynamicMemberLookup
struct _NodeObservers {
  // NB: one allocation, aligned to a cache line: a header of two lines, then the entries, 48
  // bytes each on 64-bit platforms. The first line holds all that registering and cancelling
  // read and write, the first baseline snapshot included, and an entry's address is the table's
  // plus its position, so that cancelling loads the header and the entry at once rather than
  // one after the other (traitkit-bench S6). Growing moves the table: whoever holds it across a
  // call that may register on its node reads it from the node again.

  /// The table's allocation: a `_TableHeader`, then `capacity` entries.
  private(set) var base: UnsafeMutableRawPointer

  /// The bytes before the first entry.
  private static let headerSize = 128
  /// The alignment of the allocation: a cache line.
  private static let lineSize = 64
  /// The alignment to ask the allocator for: what it gives any allocation (two words), so that
  /// asking costs nothing.
  private static let allocatorAlignment = 2 * MemoryLayout<Int>.size
  /// The table size below which tombstones wait for a full table or an empty one: compacting
  /// reads every entry (traitkit-bench S6).
  private static let compactionFloor: Int32 = 32
  /// The capacity of a new table.
  private static let initialCapacity: Int32 = 4

  /// A table with no entries; ``destroy()`` frees it.
  static func make() -> _NodeObservers {
    let (base, offset) = allocate(capacity: initialCapacity)
    let table = _NodeObservers(base: base)
    table.header.initialize(to: _TableHeader(capacity: initialCapacity, allocationOffset: offset))
    return table
  }

  private init(base: UnsafeMutableRawPointer) {
    self.base = base
  }

  /// Room for a header and `capacity` entries at a cache-line boundary, and how far into the
  /// allocation that boundary lies.
  // NB: aligned by hand: the allocator's own aligned allocation costs several times a plain one
  // (traitkit-bench S6, owner deallocation).
  private static func allocate(capacity: Int32) -> (UnsafeMutableRawPointer, Int32) {
    precondition(
      MemoryLayout<_TableHeader>.size <= headerSize,
      "Invariant: a registration table's header fits its two lines"
    )
    let entriesSize = Int(capacity) * MemoryLayout<_Registration>.stride
    let allocation = UnsafeMutableRawPointer.allocate(
      byteCount: headerSize + entriesSize + lineSize - allocatorAlignment,
      alignment: allocatorAlignment
    )
    let offset = (lineSize - Int(bitPattern: allocation) % lineSize) % lineSize
    return (allocation + offset, Int32(offset))
  }

  /// Frees the table's memory.
  private func deallocate() {
    (base - Int(header.pointee.allocationOffset)).deallocate()
  }

  /// Releases what the table holds, and frees it.
  ///
  /// - Precondition: no delivery walks the table, and its node no longer refers to it (the
  ///   releases run deinitializers, which must not find it there).
  func destroy() {
    #if TRAITKIT_INTERNAL_CHECKS
    precondition(self.deliveryDepth == 0, "Invariant: a registration table outlives its deliveries")
    #endif
    for position in 0..<count where !entries[position].calleeReleased {
      entries[position].releaseCallee()
    }
    self.primary.storage?.release()
    for slot in 0..<Int(self.snapshotCount) { self.snapshots[slot].storage?.release() }
    if self.snapshotCapacity > 0 { self.snapshots.deallocate() }
    deallocate()
  }

  @inline(__always) private var header: UnsafeMutablePointer<_TableHeader> {
    base.assumingMemoryBound(to: _TableHeader.self)
  }

  /// The entries, tombstones included, in the order they were made.
  @inline(__always) var entries: UnsafeMutablePointer<_Registration> {
    (base + Self.headerSize).assumingMemoryBound(to: _Registration.self)
  }

  // MARK: - Header fields

  /// A field of the table's header, read and written as if it were the table's own.
  @inline(__always)
  subscript<Value>(dynamicMember field: WritableKeyPath<_TableHeader, Value>) -> Value {
    get { header.pointee[keyPath: field] }
    nonmutating set { header.pointee[keyPath: field] = newValue }
  }

  /// The number of entries, tombstones included.
  @inline(__always) var count: Int { Int(self.entryCount) }
  /// The number of entries that are not tombstones.
  @inline(__always) var liveCount: Int { Int(self.liveEntryCount) }
  /// The number of tombstones.
  @inline(__always) private var tombstones: Int32 { self.entryCount - self.liveEntryCount }

  // MARK: - Entries

  /// Appends `registration`, moving the table to a larger allocation when it is full; returns
  /// the entry's position.
  @discardableResult
  mutating func append(_ registration: _Registration) -> Int {
    if self.entryCount == self.capacity {
      // NB: a full table with tombstones to spare reuses their room. Only when compacting
      // releases nothing: a release here would run user code in the middle of registering.
      if self.tombstones * 4 >= self.capacity && self.deferredReleases == 0
        && self.deliveryDepth == 0
      {
        compact()
      }
      if self.entryCount == self.capacity { grow() }
    }
    (entries + count).initialize(to: registration)
    self.entryCount += 1
    use(registration.snapshot)
    self.liveEntryCount += 1
    if registration.observesAllTraits { self.allTraitsCount += 1 }
    self.observed |= registration.filter
    return count - 1
  }

  /// Moves the table to an allocation with twice the capacity.
  @inline(never)
  private mutating func grow() {
    let newCapacity = self.capacity * 2
    let (grownBase, offset) = Self.allocate(capacity: newCapacity)
    let grown = _NodeObservers(base: grownBase)
    let allocation = base - Int(header.pointee.allocationOffset)
    grown.header.moveInitialize(from: header, count: 1)
    grown.entries.moveInitialize(from: entries, count: count)
    allocation.deallocate()
    base = grown.base
    self.capacity = newCapacity
    header.pointee.allocationOffset = offset
  }

  /// The position of the live entry with `id`, if any, looked for first at `hint`.
  @inline(__always)
  func position(of id: UInt64, hint: Int32) -> Int? {
    let hint = Int(hint)
    if hint < count, entries[hint].id == id {
      return entries[hint].isLive ? hint : nil
    }
    return position(of: id)
  }

  /// The position of the live entry with `id`, if any.
  func position(of id: UInt64) -> Int? {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].id < id { low = middle + 1 } else { high = middle }
    }
    guard low < count, entries[low].id == id, entries[low].isLive else { return nil }
    return low
  }

  /// Makes the entry at `position` a tombstone, releasing its callee now unless a delivery is
  /// walking the entries.
  ///
  /// During a pass, pass the graph: a baseline freed now could be one that the pass is handing
  /// to a callback, so it waits in the graph's recycling list until the pass ends.
  func kill(at position: Int, recyclingInto graph: Unmanaged<TraitGraph>?) {
    let entry = entries[position]
    if entry.observesAllTraits { self.allTraitsCount -= 1 }
    let freedBaseline = dropUse(entry.snapshot)
    entries[position].isLive = false
    self.liveEntryCount -= 1
    let releasesNow = self.deliveryDepth == 0
    if releasesNow {
      entries[position].calleeReleased = true
    } else {
      self.deferredReleases += 1
    }
    compactIfIdle()
    // NB: releases last, with the table consistent: they run deinitializers, which may register
    // or unregister on this table again (a holder that cancels its token when it goes).
    if let freedBaseline {
      if let graph {
        graph._withUnsafeGuaranteedRef { $0._recycleAfterPass(freedBaseline) }
      } else {
        freedBaseline.release()
      }
    }
    if releasesNow { entry.releaseCallee() }
  }

  /// When no delivery is walking the entries: releases deferred callees, and removes tombstones once
  /// they are all of the table or half of a large one; then recomputes `observed`.
  @inline(__always)
  func compactIfIdle() {
    guard self.deliveryDepth == 0 else { return }
    if self.liveEntryCount == 0 && self.deferredReleases == 0 {
      // Every entry is a tombstone whose callee is released: nothing to walk.
      self.entryCount = 0
      self.observed = .none
      return
    }
    guard
      self.deferredReleases > 0
        || self.tombstones * 2 > Swift.max(self.entryCount, Self.compactionFloor)
    else { return }
    compact()
  }

  @inline(never)
  private func compact() {
    var kept = 0
    var filter = _TraitFilter.none
    var unreleased: [_Registration] = []
    for position in 0..<count {
      if entries[position].isLive {
        if kept != position { entries[kept] = entries[position] }
        filter |= entries[kept].filter
        kept += 1
      } else if !entries[position].calleeReleased {
        unreleased.append(entries[position])
      }
    }
    self.entryCount = Int32(kept)
    self.deferredReleases = 0
    self.observed = filter
    // NB: releases last, with the table consistent (see `kill(at:recyclingInto:)`).
    for entry in unreleased { entry.releaseCallee() }
  }

  /// Moves the entry at `position` to snapshot `slot`.
  @inline(__always) func move(_ position: Int, to slot: Int32) {
    entries[position].snapshot = slot
  }

  // MARK: - Snapshots

  /// The snapshot slot that holds `storage`, made if needed, without adding a use.
  func snapshot(for storage: _Storage) -> Int32 {
    if snapshot(0, holds: storage) { return 0 }
    var free = -1
    // NB: without other slots, the first line of the header is all there is to read.
    if self.snapshotCount > 0 {
      if self.recentSnapshot > 0, snapshot(self.recentSnapshot, holds: storage) {
        return self.recentSnapshot
      }
      for index in 0..<Int(self.snapshotCount) {
        if let snapshot = self.snapshots[index].storage {
          if snapshot._withUnsafeGuaranteedRef({ $0 === storage }) {
            self.recentSnapshot = Int32(index + 1)
            return self.recentSnapshot
          }
        } else if free < 0 {
          free = index
        }
      }
    }
    // NB: only a delivery keeps a memo that a fill invalidates.
    if self.deliveryDepth > 0 { self.snapshotFills &+= 1 }
    if self.primary.storage == nil {
      self.primary.storage = Unmanaged.passRetained(storage)
      return 0
    }
    if free < 0 {
      if Int(self.snapshotCount) == self.snapshotCapacity {
        let newCapacity = Swift.max(2, self.snapshotCapacity * 2)
        let grown = UnsafeMutablePointer<_Snapshot>.allocate(capacity: newCapacity)
        grown.moveInitialize(from: self.snapshots, count: Int(self.snapshotCount))
        if self.snapshotCapacity > 0 { self.snapshots.deallocate() }
        self.snapshots = grown
        self.snapshotCapacity = newCapacity
      }
      free = Int(self.snapshotCount)
      (self.snapshots + free).initialize(to: _Snapshot(storage: nil, uses: 0))
      self.snapshotCount += 1
    }
    self.snapshots[free].storage = Unmanaged.passRetained(storage)
    self.recentSnapshot = Int32(free + 1)
    return self.recentSnapshot
  }

  /// Whether the table has one baseline, in slot 0, which one live registration alone uses.
  @inline(__always) var hasSoleBaseline: Bool {
    self.snapshotCount == 0 && self.primary.uses == 1
  }

  /// Makes snapshot slot 0 hold `storage` instead of its collection, which it returns for the
  /// caller to release: the registration that alone uses it moves to a new baseline in place.
  ///
  /// - Precondition: ``hasSoleBaseline``.
  func rebaseSoleBaseline(to storage: _Storage) -> Unmanaged<_Storage> {
    if self.deliveryDepth > 0 { self.snapshotFills &+= 1 }
    let old = self.primary.storage.unsafelyUnwrapped
    header.pointee.primary.storage = Unmanaged.passRetained(storage)
    return old
  }

  /// Calls `body` with snapshot `slot`.
  ///
  /// - Precondition: `slot` is 0 or names a slot in `snapshots`.
  @inline(__always)
  private func withSnapshot<Result>(
    _ slot: Int32,
    _ body: (inout _Snapshot) -> Result
  ) -> Result {
    slot == 0 ? body(&header.pointee.primary) : body(&self.snapshots[Int(slot) - 1])
  }

  /// Adds a use of snapshot `slot`.
  @inline(__always) func use(_ slot: Int32) {
    withSnapshot(slot) { $0.uses += 1 }
  }

  /// Removes a use of snapshot `slot` during a delivery, freeing the snapshot when it was the
  /// last: its collection goes to `graph`, which reuses it after the pass if nobody else holds it.
  @inline(__always) func release(_ slot: Int32, recyclingInto graph: TraitGraph) {
    if let freed = dropUse(slot) { graph._recycleAfterPass(freed) }
  }

  /// Removes a use of snapshot `slot`, freeing the slot when it was the last; returns the
  /// collection the slot retained, for the caller to release.
  @inline(__always) private func dropUse(_ slot: Int32) -> Unmanaged<_Storage>? {
    withSnapshot(slot) { snapshot -> Unmanaged<_Storage>? in
      snapshot.uses -= 1
      guard snapshot.uses == 0, let reference = snapshot.storage else { return nil }
      snapshot.storage = nil
      return reference
    }
  }

  /// The number of snapshot slots, free ones included.
  var _snapshotSlotCount: Int { Int(self.snapshotCount) + 1 }

  /// The use count of snapshot `slot`, and whether it holds a storage.
  func _snapshotState(_ slot: Int32) -> (uses: Int32, isHeld: Bool) {
    withSnapshot(slot) { ($0.uses, $0.storage != nil) }
  }

  /// Whether snapshot `slot` holds `storage`; false for slot -1.
  @inline(__always) func snapshot(_ slot: Int32, holds storage: _Storage) -> Bool {
    guard slot >= 0, let snapshot = withSnapshot(slot, { $0.storage }) else { return false }
    return snapshot.toOpaque() == Unmanaged.passUnretained(storage).toOpaque()
  }

  /// The storage of snapshot `slot`, unretained.
  ///
  /// - Precondition: the slot has uses.
  @inline(__always) func baselineReference(_ slot: Int32) -> Unmanaged<_Storage> {
    withSnapshot(slot) { $0.storage.unsafelyUnwrapped }
  }
}

@available(*, unavailable)
extension _NodeObservers: Sendable {}

/// The header of a registration table (see ``_NodeObservers``).
///
/// Field order is layout: the first cache line holds what registering and cancelling touch.
struct _TableHeader {
  /// Snapshot slot 0, kept here rather than in `snapshots`: most tables have one baseline.
  var primary = _Snapshot(storage: nil, uses: 0)
  /// The number of entries, tombstones included.
  var entryCount: Int32 = 0
  var capacity: Int32
  /// The number of entries that are not tombstones.
  var liveEntryCount: Int32 = 0
  /// How many deliveries are walking the entries; compaction waits until none is.
  var deliveryDepth: Int32 = 0
  /// Tombstones whose callee's release waits for the delivery that was running when they died.
  var deferredReleases: Int32 = 0
  /// The live entries that observe every trait (legacy callbacks).
  var allTraitsCount: Int32 = 0
  /// The number of snapshot slots in `snapshots`, free ones included.
  var snapshotCount: Int32 = 0
  /// Advances whenever a snapshot slot takes a collection while a delivery walks the table, so
  /// that the delivery knows its memo of a slot's collection still holds.
  var snapshotFills: UInt32 = 0
  /// A superset of the traits the live entries observe.
  var observed = _TraitFilter.none
  // Second line: what registering, cancelling and delivering to one baseline do not need.
  /// The snapshot slot found or made last: registrations made together look it up first.
  var recentSnapshot: Int32 = -1
  /// Snapshot slots 1 and up, slot *s* at index *s* − 1: the other distinct baselines.
  ///
  /// Each slot, like `primary`, retains its storage once; a nil storage marks a free slot.
  var snapshots = UnsafeMutablePointer<_Snapshot>(bitPattern: MemoryLayout<_Snapshot>.alignment)!
  var snapshotCapacity = 0
  /// How far the table lies into its allocation (see `_NodeObservers.allocate(capacity:)`).
  var allocationOffset: Int32

  init(capacity: Int32, allocationOffset: Int32) {
    self.capacity = capacity
    self.allocationOffset = allocationOffset
  }
}

/// A shared baseline of a node's registrations.
struct _Snapshot {
  var storage: Unmanaged<_Storage>?
  var uses: Int32
}

/// One registration, as plain data.
struct _Registration {
  let id: UInt64
  /// A summary of the observed traits (all traits for a legacy callback).
  let filter: _TraitFilter
  /// Whether `filter` is exactly the observed traits (every index at most
  /// `_TraitFilter.lastExactIndex`), so that it can stand in for them on the delivery path.
  let filterIsExact: Bool
  /// Whether the callback observes every trait (the legacy adapter): it then runs after the
  /// node's other registrations and fires when any trait differs.
  let observesAllTraits: Bool
  var isLive = true
  /// Whether the table already released the callee (a tombstone killed outside a delivery).
  var calleeReleased = false
  /// The snapshot slot of the node's collection when the registration was last called, or when
  /// it was made: its baseline.
  var snapshot: Int32
  /// The callee, owned (+1) by the table: a handler closure's two words, or, for the other
  /// forms, a zero where a closure's function is (never zero) and then the box.
  // NB: one pair of words for either callee keeps an entry at 48 bytes: a register+cancel pair
  // is bound by the entry lines it touches (traitkit-bench S6).
  private let callee: _InlineHandler

  /// The callee of a registration without a box.
  ///
  /// - Precondition: `box` is nil.
  @inline(__always) var handler: _InlineHandler { callee }

  /// The callee of the other forms, and the exact traits when `filter` cannot stand for them;
  /// nil for a handler kept inline.
  @inline(__always) var box: Unmanaged<_RegistrationBox>? {
    guard callee.bits.0 == 0, let box = UnsafeRawPointer(bitPattern: callee.bits.1) else {
      return nil
    }
    return Unmanaged.fromOpaque(box)
  }

  /// A registration that calls `handler`, whose traits `filter` summarizes exactly; the entry
  /// takes over the handler's reference.
  init(id: UInt64, handler: _InlineHandler, traits: _TraitIndexSet, snapshot: Int32) {
    self.id = id
    self.filter = traits.filter
    self.filterIsExact = true
    self.observesAllTraits = false
    self.snapshot = snapshot
    self.callee = handler
  }

  /// A registration that calls `box`.
  init(
    id: UInt64,
    box: _RegistrationBox,
    traits: _TraitIndexSet,
    snapshot: Int32,
    observesAllTraits: Bool
  ) {
    self.id = id
    self.filter = observesAllTraits ? .all : traits.filter
    self.filterIsExact = !observesAllTraits && traits.isSummarizedExactly
    self.observesAllTraits = observesAllTraits
    self.snapshot = snapshot
    self.callee = _InlineHandler(
      bits: (0, UInt(bitPattern: Unmanaged.passRetained(box).toOpaque()))
    )
  }

  /// Calls the registration for `node`; returns `false` when its target is gone.
  ///
  /// - Precondition: the callee is not released.
  @inline(__always)
  func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    guard let box else {
      handler(node, previous)
      return true
    }
    return box._withUnsafeGuaranteedRef { $0.call(node, previous) }
  }

  /// Releases the callee.
  func releaseCallee() {
    if let box { box.release() } else { handler.release() }
  }

  /// Whether the values this registration observes differ between `baseline` and `current`.
  func sawChange(in current: _Storage, from baseline: _Storage) -> Bool {
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
    return box.unsafelyUnwrapped._withUnsafeGuaranteedRef { box in
      box.traitList.unsafelyUnwrapped.set.contains { !current.slotEqual(at: $0, to: baseline) }
    }
  }
}
