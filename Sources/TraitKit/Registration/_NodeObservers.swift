/// The registration table of one node: its registrations in the order they were made.
///
/// The engine keeps no global table of callbacks. Each node that has registrations owns one of
/// these (nodes without any pay one nil pointer), and every node keeps a filter of the traits
/// observed anywhere in its subtree (``TraitNode/_subtreeObserved``). A pass descends only into
/// subtrees whose filter meets the traits that may have changed, and here checks each
/// registration's own traits against its baseline. So a change costs time in proportion to the
/// observers of the changed traits and the nodes on the paths to them.
///
/// The table is plain data on the delivery path. Entries are POD structs in a buffer this
/// object manages; each owns (+1) its callee: a handler closure, kept in the entry itself, or a
/// box for the other forms (``_RegistrationBox``), which a delivery calls through a guaranteed
/// reference. Baselines are shared: registrations that were made or called at the same
/// collection point at one *snapshot*, a slot with a plain use count, so moving a registration to
/// a new baseline is two integer updates, and the change check runs once per snapshot and
/// traits rather than once per registration.
///
/// Removal leaves a tombstone, so that a delivery walking the entries never sees them shift, and
/// entries stay sorted by id for the binary search that finds a token. Outside a delivery the
/// tombstone's callee is released at once (so the closure and what it captures go with it);
/// inside one, the release waits until the delivery ends. Tombstones are compacted away once they are
/// half the table, so removal costs O(log n) amortized.
final class _NodeObservers {
  // NB: `@exclusivity(unchecked)`: see the note on `TraitNode`'s state.
  // NB: field order is layout. The first 64 bytes, with the object header, hold all that
  // unregistering reads and writes, the first baseline snapshot included, so that cancelling a
  // registration touches as few cache lines of this object as its allocation's alignment allows
  // (one or two: objects are 16-byte aligned) (traitkit-bench S6).
  @exclusivity(unchecked) private(set) var entries: UnsafeMutablePointer<_Registration>
  /// Snapshot slot 0, kept here rather than in `snapshots`: most tables have one baseline.
  @exclusivity(unchecked) private var primary = _Snapshot(storage: nil, uses: 0)
  @exclusivity(unchecked) private var entryCount: Int32 = 0
  @exclusivity(unchecked) private var capacity: Int32 = 0
  @exclusivity(unchecked) private var liveEntryCount: Int32 = 0
  @exclusivity(unchecked) private var tombstones: Int32 = 0
  /// How many deliveries are walking `entries`; compaction waits until none is.
  @exclusivity(unchecked) var deliveryDepth: Int32 = 0
  /// Tombstones whose callee's release waits for the delivery that was running when they died.
  @exclusivity(unchecked) private var deferredReleases: Int32 = 0
  /// The snapshot slot found or made last: registrations made together look it up first.
  @exclusivity(unchecked) private var recentSnapshot: Int32 = -1

  /// A superset of the traits the live entries observe.
  @exclusivity(unchecked) private(set) var observed = _TraitFilter.none
  /// Advances whenever a snapshot slot takes a collection, so that a delivery knows its memo of
  /// a slot's collection still holds.
  @exclusivity(unchecked) private(set) var snapshotFills: UInt32 = 0
  /// The live entries that observe every trait (legacy callbacks).
  @exclusivity(unchecked) private(set) var allTraitsCount = 0
  /// Snapshot slots 1 and up, slot *s* at index *s* − 1: the other distinct baselines.
  ///
  /// Each slot, like `primary`, retains its storage once; a nil storage marks a free slot.
  @exclusivity(unchecked) private var snapshots: UnsafeMutablePointer<_Snapshot>
  @exclusivity(unchecked) private var snapshotCount = 0
  @exclusivity(unchecked) private var snapshotCapacity = 0

  /// The number of entries, tombstones included.
  @inline(__always) var count: Int { Int(entryCount) }
  /// The number of entries that are not tombstones.
  @inline(__always) var liveCount: Int { Int(liveEntryCount) }

  init() {
    entries = UnsafeMutablePointer(bitPattern: MemoryLayout<_Registration>.alignment)!
    snapshots = UnsafeMutablePointer(bitPattern: MemoryLayout<_Snapshot>.alignment)!
  }

  deinit {
    #if TRAITKIT_INTERNAL_CHECKS
    precondition(deliveryDepth == 0, "Invariant: a registration table outlives its deliveries")
    #endif
    for position in 0..<count where !entries[position].calleeReleased {
      entries[position].releaseCallee()
    }
    primary.storage?.release()
    for slot in 0..<snapshotCount { snapshots[slot].storage?.release() }
    if capacity > 0 { entries.deallocate() }
    if snapshotCapacity > 0 { snapshots.deallocate() }
  }

  // MARK: - Entries

  func append(_ registration: _Registration) {
    if entryCount == capacity {
      let newCapacity = Swift.max(4, capacity * 2)
      let grown = UnsafeMutablePointer<_Registration>.allocate(capacity: Int(newCapacity))
      grown.moveInitialize(from: entries, count: count)
      if capacity > 0 { entries.deallocate() }
      entries = grown
      capacity = newCapacity
    }
    (entries + count).initialize(to: registration)
    entryCount += 1
    use(registration.snapshot)
    liveEntryCount += 1
    if registration.observesAllTraits { allTraitsCount += 1 }
    observed |= registration.filter
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
    if entry.observesAllTraits { allTraitsCount -= 1 }
    let freedBaseline = dropUse(entry.snapshot)
    entries[position].isLive = false
    liveEntryCount -= 1
    tombstones += 1
    let releasesNow = deliveryDepth == 0
    if releasesNow {
      entries[position].calleeReleased = true
    } else {
      deferredReleases += 1
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
  /// they are half the table or all of it; then recomputes `observed`.
  @inline(__always)
  func compactIfIdle() {
    guard deliveryDepth == 0 else { return }
    if liveEntryCount == 0 && deferredReleases == 0 {
      // Every entry is a tombstone whose callee is released: nothing to walk.
      entryCount = 0
      tombstones = 0
      observed = .none
      return
    }
    guard deferredReleases > 0 || tombstones * 2 > Swift.max(entryCount, 8) else { return }
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
    entryCount = Int32(kept)
    tombstones = 0
    deferredReleases = 0
    observed = filter
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
    if recentSnapshot > 0, snapshot(recentSnapshot, holds: storage) { return recentSnapshot }
    var free = -1
    for index in 0..<snapshotCount {
      if let snapshot = snapshots[index].storage {
        if snapshot._withUnsafeGuaranteedRef({ $0 === storage }) {
          recentSnapshot = Int32(index + 1)
          return recentSnapshot
        }
      } else if free < 0 {
        free = index
      }
    }
    snapshotFills &+= 1
    if primary.storage == nil {
      primary.storage = Unmanaged.passRetained(storage)
      return 0
    }
    if free < 0 {
      if snapshotCount == snapshotCapacity {
        let newCapacity = Swift.max(2, snapshotCapacity * 2)
        let grown = UnsafeMutablePointer<_Snapshot>.allocate(capacity: newCapacity)
        grown.moveInitialize(from: snapshots, count: snapshotCount)
        if snapshotCapacity > 0 { snapshots.deallocate() }
        snapshots = grown
        snapshotCapacity = newCapacity
      }
      free = snapshotCount
      (snapshots + free).initialize(to: _Snapshot(storage: nil, uses: 0))
      snapshotCount += 1
    }
    snapshots[free].storage = Unmanaged.passRetained(storage)
    recentSnapshot = Int32(free + 1)
    return recentSnapshot
  }

  /// Calls `body` with snapshot `slot`.
  ///
  /// - Precondition: `slot` is 0 or names a slot in `snapshots`.
  @inline(__always)
  private func withSnapshot<Result>(
    _ slot: Int32,
    _ body: (inout _Snapshot) -> Result
  ) -> Result {
    slot == 0 ? body(&primary) : body(&snapshots[Int(slot) - 1])
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
  var _snapshotSlotCount: Int { snapshotCount + 1 }

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
  /// The callee of a registration without a box, owned (+1) by the table.
  let handler: _InlineHandler
  /// The callee of the other forms, and the exact traits when `filter` cannot stand for them,
  /// owned (+1) by the table; nil for a handler kept inline.
  let box: Unmanaged<_RegistrationBox>?

  /// A registration that calls `handler`, whose traits `filter` summarizes exactly; the entry
  /// takes over the handler's reference.
  init(handler: _InlineHandler, traits: _TraitIndexSet, snapshot: Int32) {
    self.id = TraitChangeRegistration.nextID()
    self.filter = traits.filter
    self.filterIsExact = true
    self.observesAllTraits = false
    self.snapshot = snapshot
    self.handler = handler
    self.box = nil
  }

  /// A registration that calls `box`.
  init(
    box: _RegistrationBox,
    traits: _TraitIndexSet,
    snapshot: Int32,
    observesAllTraits: Bool
  ) {
    self.id = TraitChangeRegistration.nextID()
    self.filter = observesAllTraits ? .all : traits.filter
    self.filterIsExact = !observesAllTraits && traits.isSummarizedExactly
    self.observesAllTraits = observesAllTraits
    self.snapshot = snapshot
    self.handler = _InlineHandler()
    self.box = Unmanaged.passRetained(box)
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
