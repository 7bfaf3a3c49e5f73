import CTraitKitShims

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
/// The table numbers its registrations in order, and a token carries the number, the table's
/// serial and the entry's position. Removal leaves a tombstone, so that a delivery walking the
/// entries never sees them shift, and entries stay sorted by number for the binary search that
/// finds a token whose entry a compaction moved. Outside a delivery the tombstone's callee is
/// released at once (so the closure and what it captures go with it); inside one, the release
/// waits until the delivery ends. Tombstones are compacted away once they are all of the table,
/// or half of a table of more than 32 entries, or when a full table would otherwise grow, so
/// removal costs O(log n) amortized.
///
/// A node owns its table: it makes it on its first registration, and destroys it when it
/// deinitializes.
@dynamicMemberLookup
struct _NodeObservers {
  // NB: one allocation, aligned to a cache line: a header of two lines, then the entries, 32
  // bytes each on 64-bit platforms, two to a line. The first line holds all that registering
  // and cancelling read and write, the first baseline snapshot included, and an entry's
  // address is the table's plus its position, so that cancelling loads the header and the
  // entry at once rather than one after the other (traitkit-bench S6). Growing moves the
  // table: whoever holds it across a call that may register on its node reads it from the
  // node again.

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
  /// The capacity below which a full table grows by two entries rather than by half.
  private static let additiveGrowthLimit: Int32 = 16
  /// The free snapshot slots above which an idle table removes them, once they are more than
  /// half of its slots (see `compactSnapshots()`).
  private static let snapshotCompactionFloor: Int32 = 8
  /// The fewest users a baseline has for a delivery to call them in a run: below it, starting
  /// and ending a run costs more than moving them one by one saves (traitkit-bench S5).
  static let minimumRunLength: Int32 = 8
  /// The most entries a table holds: an entry numbers its snapshot slot in
  /// `_Registration.snapshotBits` (27) bits, and a table has at most two slots more than
  /// entries.
  private static let maximumCapacity: Int32 = 1 << (_Registration.snapshotBits - 1)

  /// A table with no entries; ``destroy()`` frees it.
  static func make() -> _NodeObservers {
    let (base, offset) = allocate(capacity: initialCapacity)
    let table = _NodeObservers(base: base)
    table.header.initialize(
      to: _TableHeader(
        capacity: initialCapacity,
        allocationOffset: offset,
        serial: TraitChangeRegistration.nextSerial()
      )
    )
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
      MemoryLayout<_TableHeader>.size <= headerSize
        && MemoryLayout<_TableHeader>.offset(of: \.recentSnapshot)! <= lineSize,
      "Invariant: a registration table's header fits its two lines, and what registering and "
        + "cancelling touch fits its first"
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
    self.renumberings?.release()
    for slot in 0..<Int(self.snapshotCount) { self.snapshots[slot].storage?.release() }
    if self.snapshotCapacity > 0 { self.snapshots.deallocate() }
    deallocate()
  }

  /// Starts loading the header's first line, which registering reads first.
  @inline(__always) func prefetchHeader() {
    ctraitkit_prefetch(base)
  }

  @inline(__always) private var header: UnsafeMutablePointer<_TableHeader> {
    base.assumingMemoryBound(to: _TableHeader.self)
  }

  /// The entries, tombstones included, in the order they were made.
  @inline(__always) var entries: UnsafeMutablePointer<_Registration> {
    (base + Self.headerSize).assumingMemoryBound(to: _Registration.self)
  }

  /// Where entry `position` lies in the table, in bytes from its start: a run's positions
  /// (`_RunFrame.calledOffset`, `_RunFrame.limit`), which stay valid when the table moves.
  @inline(__always) static func entryOffset(_ position: Int) -> Int {
    headerSize &+ position &* MemoryLayout<_Registration>.stride
  }

  /// The position of the entry at byte offset `offset` (see ``entryOffset(_:)``).
  @inline(__always) static func entryPosition(atOffset offset: Int) -> Int {
    (offset &- headerSize) / MemoryLayout<_Registration>.stride
  }

  /// The entry at byte offset `offset` (see ``entryOffset(_:)``).
  @inline(__always) func entry(atOffset offset: Int) -> _Registration {
    (base + offset).assumingMemoryBound(to: _Registration.self).pointee
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
  /// A superset of the traits the live entries observe.
  @inline(__always) var observed: _TraitFilter { _TraitFilter(summary: self.summary) }

  // MARK: - Entries

  /// Appends `registration` with the table's next number, moving the table to a larger
  /// allocation when it is full; returns the registration's token.
  @discardableResult @inline(__always)
  mutating func append(_ registration: _Registration) -> TraitChangeRegistration {
    if self.entryCount == self.capacity || self.nextSequence == .max { makeRoom() }
    let sequence = self.nextSequence
    self.nextSequence = sequence + 1
    (entries + count).initialize(to: registration)
    entries[count].sequence = sequence
    if registration.filterIsExact, hasPredecessorSummary(at: count) {
      entries[count].continuesTraits = true
    }
    self.entryCount += 1
    use(registration.snapshot)
    self.liveEntryCount += 1
    if registration.observesAllTraits { self.allTraitsCount += 1 }
    self.summary |= registration.summary
    return TraitChangeRegistration(
      serial: self.serial,
      sequence: sequence,
      positionHint: self.entryCount - 1
    )
  }

  /// Makes room for one more entry, and a number for it: compacts or grows a full table, and
  /// numbers the entries again when the numbers have run out.
  @inline(never)
  private mutating func makeRoom() {
    if self.entryCount == self.capacity {
      // NB: a full table with tombstones to spare reuses their room. Only when compacting
      // releases nothing: a release here would run user code in the middle of registering.
      if self.tombstones * 4 >= self.capacity || self.capacity == Self.maximumCapacity,
        self.deferredReleases == 0 && self.deliveryDepth == 0
      {
        compact()
      }
      if self.entryCount == self.capacity { grow() }
    }
    if self.nextSequence == .max { renumber() }
  }

  /// Moves the table to a larger allocation (see ``grownCapacity(from:)``).
  @inline(never)
  private mutating func grow() {
    let newCapacity = Self.grownCapacity(from: self.capacity)
    let (grownBase, offset) = Self.allocate(capacity: newCapacity)
    let grown = _NodeObservers(base: grownBase)
    let allocation = base - Int(header.pointee.allocationOffset)
    grown.header.moveInitialize(from: header, count: 1)
    grown.entries.moveInitialize(from: entries, count: count)
    allocation.deallocate()
    base = grown.base
    self.capacity = newCapacity
    header.pointee.allocationOffset = offset
    // NB: a run's loop holds the table it started with: it stops before its next step, and its
    // delivery goes on from the table where it is now.
    self.runFrame?.pointee.limit = 0
  }

  // MARK: - Numbers and tokens

  /// The position of the live registration that `token` stands for, if it is in this table.
  @inline(__always)
  func position(of token: TraitChangeRegistration) -> Int? {
    guard token.serial == self.serial else {
      guard let renumberings = self.renumberings,
        let sequence = renumberings._withUnsafeGuaranteedRef({ $0.sequence(of: token) })
      else { return nil }
      return position(of: sequence, hint: token.positionHint)
    }
    return position(of: token.sequence, hint: token.positionHint)
  }

  /// The position of the live entry numbered `sequence`, if any, looked for first at `hint`.
  @inline(__always)
  private func position(of sequence: UInt32, hint: Int32) -> Int? {
    let hint = Int(hint)
    if hint < count, entries[hint].sequence == sequence {
      return entries[hint].isLive ? hint : nil
    }
    return position(of: sequence)
  }

  /// The position of the live entry numbered `sequence`, if any.
  private func position(of sequence: UInt32) -> Int? {
    let position = _firstPosition(notBelow: sequence, count: count) { entries[$0].sequence }
    guard position < count, entries[position].sequence == sequence, entries[position].isLive
    else { return nil }
    return position
  }

  /// Numbers the entries again from zero under a new serial, when the numbers have run out
  /// (after 2^32 registrations on the node), keeping the old numbers for the old tokens.
  ///
  /// The entries keep their positions, so a delivery may be walking them.
  @inline(never)
  private func renumber() {
    var sequences = [UInt32]()
    sequences.reserveCapacity(count)
    for position in 0..<count {
      sequences.append(entries[position].sequence)
      entries[position].sequence = UInt32(position)
    }
    let renumberings =
      self.renumberings ?? Unmanaged.passRetained(_Renumberings())
    renumberings._withUnsafeGuaranteedRef { $0.retire(serial: self.serial, sequences: sequences) }
    self.renumberings = renumberings
    self.serial = TraitChangeRegistration.nextSerial()
    self.nextSequence = UInt32(count)
  }

  /// The capacity a full table of `capacity` entries grows to: two entries more up to
  /// `additiveGrowthLimit`, half as much again above it, at most `maximumCapacity`.
  ///
  /// - Precondition: `capacity` is below `maximumCapacity`, the most registrations a node
  ///   holds (live, or, while a delivery runs on it, cancelled and not yet reclaimed).
  static func grownCapacity(from capacity: Int32) -> Int32 {
    _requireAPI(
      capacity < maximumCapacity,
      "A node holds at most \(maximumCapacity) registrations, counting, while a delivery runs on "
        + "it, those cancelled and not yet reclaimed"
    )
    // NB: most tables hold a few registrations, so their unused room is most of what a table
    // wastes (traitkit-bench S10). Growing a small table by two entries wastes at most one on
    // average, and moving at most `additiveGrowthLimit` entries costs less than the cache misses
    // of the registering. Above it, half as much again, not twice: growing stays amortized O(1).
    guard capacity >= additiveGrowthLimit else { return capacity + 2 }
    return Swift.min(capacity + capacity / 2, maximumCapacity)
  }

  /// Makes the table's next registration take the number `sequence`, so that tests reach the end
  /// of the numbers without 2^32 registrations.
  ///
  /// - Precondition: `sequence` is at least every number the table gave.
  func _setNextSequence(_ sequence: UInt32) {
    // NB: kept in release builds with its message, as the exit test checks it.
    _requireAPI(
      sequence >= self.nextSequence,
      "Invariant: a table numbers its registrations in increasing order"
    )
    self.nextSequence = sequence
  }

  /// Makes the entry at `position` a tombstone, releasing its callee now unless a delivery is
  /// walking the entries.
  ///
  /// During a pass, pass the graph: a baseline freed now could be one that the pass is handing
  /// to a callback, so it waits in the graph's recycling list until the pass ends. Outside a
  /// pass, a baseline the entry alone held is returned, for the caller to let go of or keep.
  @inline(__always)
  func kill(
    at position: Int,
    recyclingInto graph: Unmanaged<TraitGraph>?
  ) -> Unmanaged<_Storage>? {
    let entry = entries[position]
    if entry.observesAllTraits { self.allTraitsCount -= 1 }
    let freedBaseline = dropUse(entry.snapshot)
    entries[position].isLive = false
    self.liveEntryCount -= 1
    let releasesNow = self.deliveryDepth == 0
    if releasesNow {
      entries[position].calleeReleased = true
      // NB: a run's extent that covers the entry no longer holds; one found later covers it as
      // a tombstone, and silences its handler then.
      noteEdit()
    } else {
      self.deferredReleases += 1
      // NB: the extent of a run, active or not, may cover the entry: its handler now answers the
      // run's call as not called, and the extent still holds.
      silenceHandler(at: position)
    }
    compactIfIdle()
    // NB: releases last, with the table consistent: they run deinitializers, which may register
    // or unregister on this table again (a holder that cancels its token when it goes).
    guard let freedBaseline, let graph else {
      if releasesNow { entry.releaseCallee() }
      return freedBaseline
    }
    graph._withUnsafeGuaranteedRef { $0._recycleAfterPass(freedBaseline) }
    if releasesNow { entry.releaseCallee() }
    return nil
  }

  /// Silences the handler of the tombstone at `position`, if it keeps one inline (see
  /// `_Registration.silenceHandler()`).
  // NB: out of line: cancelling during a delivery is the uncommon case, and cancelling outside
  // one then keeps the entry's callee in registers (traitkit-bench S6).
  @inline(never)
  private func silenceHandler(at position: Int) {
    if entries[position].keepsHandlerInline { entries[position].silenceHandler() }
  }

  /// When no delivery is walking the entries: releases deferred callees, and removes tombstones
  /// once they are all of the table or half of a large one; then recomputes `summary`.
  @inline(__always)
  func compactIfIdle() {
    guard self.deliveryDepth == 0 else { return }
    // NB: `snapshotCount` first: it is on the header's first line, and bounds `freeSnapshots`,
    // which is on the second, so that cancelling reads that line only when a table has more
    // slots than the floor, not on every cancel (helper-64: traitkit-bench S6, 12.3 → 11.3 L1
    // misses a register+cancel, no instruction more).
    if self.snapshotCount > Self.snapshotCompactionFloor,
      self.freeSnapshots > Self.snapshotCompactionFloor,
      self.freeSnapshots * 2 > self.snapshotCount
    {
      compactSnapshots()
    }
    if self.liveEntryCount == 0 && self.deferredReleases == 0 {
      // Every entry is a tombstone whose callee is released: nothing to walk.
      self.entryCount = 0
      self.summary = 0
      noteEdit()
      return
    }
    guard
      self.deferredReleases > 0
        || self.tombstones * 2 > Swift.max(self.entryCount, Self.compactionFloor)
    else { return }
    compact()
  }

  /// Removes the free snapshot slots, renumbering the others and the entries that use them.
  ///
  /// Looking up a baseline then reads only the slots in use, not every one the node ever had. A
  /// free slot 0 takes the first slot in use, so that a table left with one baseline has it
  /// there (see ``hasSoleBaseline``).
  ///
  /// - Precondition: no delivery walks the entries (no run is active).
  @inline(never)
  private func compactSnapshots() {
    let slotCount = Int(self.snapshotCount)
    withUnsafeTemporaryAllocation(of: Int32.self, capacity: slotCount + 1) { renumbered in
      renumbered[0] = 0
      var primaryIsFree = self.primary.storage == nil
      var kept = 0
      for index in 0..<slotCount {
        guard self.snapshots[index].storage != nil else {
          renumbered[index + 1] = -1
          continue
        }
        if primaryIsFree {
          self.primary = self.snapshots[index]
          primaryIsFree = false
          renumbered[index + 1] = 0
          continue
        }
        if kept != index { self.snapshots[kept] = self.snapshots[index] }
        kept += 1
        renumbered[index + 1] = Int32(kept)
      }
      for position in 0..<count where entries[position].isLive && entries[position].snapshot > 0 {
        entries[position].snapshot = renumbered[Int(entries[position].snapshot)]
      }
      if self.recentSnapshot > 0 { self.recentSnapshot = renumbered[Int(self.recentSnapshot)] }
      self.snapshotCount = Int32(kept)
      self.freeSnapshots = 0
      noteEdit()
    }
  }

  @inline(never)
  private func compact() {
    var kept = 0
    var summary: UInt64 = 0
    var unreleased: [_Registration] = []
    for position in 0..<count {
      if entries[position].isLive {
        if kept != position { entries[kept] = entries[position] }
        if entries[kept].filterIsExact {
          entries[kept].continuesTraits = hasPredecessorSummary(at: kept)
        }
        summary |= entries[kept].summary
        kept += 1
      } else if !entries[position].calleeReleased {
        unreleased.append(entries[position])
      }
    }
    self.entryCount = Int32(kept)
    self.deferredReleases = 0
    self.summary = summary
    noteEdit()
    // NB: releases last, with the table consistent (see `kill(at:recyclingInto:)`).
    for entry in unreleased { entry.releaseCallee() }
  }

  /// Moves the entry at `position` to snapshot `slot`.
  @inline(__always) func move(_ position: Int, to slot: Int32) {
    entries[position].snapshot = slot
    noteEdit()
  }

  // MARK: - Snapshots

  /// The snapshot slot that holds `storage`, made if needed, without adding a use, as
  /// ``snapshot(for:)``, with the cases of a table with one slot inline.
  // NB: for registering, which finds the node's collection in slot 0, or slot 0 free in a table
  // whose registrations all went (traitkit-bench S6).
  @inline(__always) func snapshotInline(for storage: _Storage) -> Int32 {
    if snapshot(0, holds: storage) { return 0 }
    if self.snapshotCount == 0, self.primary.storage == nil { return fillPrimary(with: storage) }
    return snapshot(for: storage)
  }

  /// Makes the primary slot, free, hold `storage`; returns its number, 0.
  @inline(__always) private func fillPrimary(with storage: _Storage) -> Int32 {
    if self.deliveryDepth > 0 { noteFill() }
    self.primary.storage = Unmanaged.passRetained(storage)
    return 0
  }

  /// Records that a slot takes a collection while a delivery walks the table, which invalidates
  /// the delivery's memo of a slot's collection, but not a run's extent.
  // NB: only a delivery keeps a memo that a fill invalidates. Out of line: registering, which
  // fills slots outside deliveries, inlines the fill's code (traitkit-bench S6).
  @inline(never) private func noteFill() {
    if self.extentEdits == self.edits { self.extentEdits &+= 1 }
    noteEdit()
  }

  /// Advances `edits`: an entry may no longer be what the kept extent found it to be, or a slot
  /// took a collection during a delivery.
  ///
  /// The edit that wraps the count to 0 also drops the kept extent: after 2³² edits the count
  /// would match the extent's again, and every way back to it passes 0 (helper-68).
  @inline(__always) private func noteEdit() {
    self.edits &+= 1
    if self.edits == 0 { self.extentSlot = -1 }
  }

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
    if self.primary.storage == nil { return fillPrimary(with: storage) }
    if self.deliveryDepth > 0 { noteFill() }
    if free >= 0 {
      self.freeSnapshots -= 1
    } else {
      if self.snapshotCount == self.snapshotCapacity {
        let newCapacity = Swift.max(2, self.snapshotCapacity * 2)
        let grown = UnsafeMutablePointer<_Snapshot>.allocate(capacity: Int(newCapacity))
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
  func rebaseSoleBaseline(to storage: Unmanaged<_Storage>) -> Unmanaged<_Storage> {
    // NB: a fill that also drops a run's extent, which a table of one live registration has no
    // use for.
    if self.deliveryDepth > 0 { noteEdit() }
    let old = self.primary.storage.unsafelyUnwrapped
    header.pointee.primary.storage = storage.retain()
    return old
  }

  // MARK: - Runs

  // NB: a delivery that finds a registration about to see a change, followed by others of the
  // same baseline and traits, calls them one after another, each with the baseline, and does not
  // move them to the new collection one by one, which costs a use count on each slot and a write
  // of the entry per callback (traitkit-bench S1). When they turn out to be all of the
  // baseline's users, the slot takes the new collection in place; otherwise those called move
  // to it then.
  //
  // The run's loop calls the handlers of an *extent* without looking at the entries: a stretch
  // of users known to continue the run, which the table keeps from one pass to the next. The
  // run's state lives in a frame that the header points to (`runFrame`), so that a delivery
  // nested in one of its callbacks (the node moved to another graph whose pass runs) ends it
  // first; and so that a handler's change of a value or of the tree (`interruptRun()`), or a
  // registration that moves the table, stops it: each makes the frame's limit 0, so that the
  // loop compares its position with the limit alone after each call. A registration that dies
  // within an extent keeps its place there, and answers the loop's call as not called.

  /// Whether the entry at `position` has the summary of the entry before it: what an exact
  /// registration's `continuesTraits` records.
  @inline(__always) func hasPredecessorSummary(at position: Int) -> Bool {
    position > 0 && entries[position - 1].summary == entries[position].summary
  }

  /// Whether a run of snapshot `slot`'s users may start at `position`: the slot has at least
  /// `minimumRunLength` users, and the entry after `position`, before `end`, is one of them
  /// that continues its traits.
  ///
  /// - Precondition: the entry at `position` is a live registration whose summary stands for its
  ///   traits exactly.
  @inline(__always)
  func mayRun(of slot: Int32, from position: Int, end: Int) -> Bool {
    guard withSnapshot(slot, { $0.uses }) >= Self.minimumRunLength, position + 1 < end else {
      return false
    }
    return entries[position + 1].isLiveRegistrationContinuingTraits(using: slot)
  }

  /// Starts a run of snapshot `slot`'s users, whose loop keeps its state in `frame`.
  ///
  /// - Precondition: no run is active, and the frame, and the collection it holds, outlive the
  ///   run's loop.
  func beginRun(of slot: Int32, frame: UnsafeMutablePointer<_RunFrame>) {
    self.runSlot = slot
    self.runFrame = frame
  }

  /// The end of the extent of snapshot `slot`'s users that continue traits `summary` from
  /// `position` (see `_TableHeader.extentStart`), as a byte offset (see ``entryOffset(_:)``):
  /// the one the table keeps, when it covers `position`, or one found now, which the table then
  /// keeps.
  ///
  /// The tombstones found among them answer a run's call as not called
  /// (`_Registration.silenceHandler()`).
  ///
  /// - Precondition: the entry before `position` is one of the run's users, or a tombstone of
  ///   its traits.
  // NB: kept, so that a run looks at each entry's state once, not at every pass (traitkit-bench
  // S1: a loop that looked at each entry's state before calling it took 1.61 times the floor's
  // time a callback at K=256, 1.30 without; a scan at every pass, 1.70).
  func extent(of slot: Int32, summary: UInt64, from position: Int) -> Int {
    let start = Int32(truncatingIfNeeded: position)
    if self.extentSlot == slot, self.extentEdits == self.edits, self.extentStart <= start,
      start < self.extentEnd
    {
      return Self.entryOffset(Int(self.extentEnd))
    }
    var end = position
    while end < count {
      if entries[end].isHandlerTombstone(of: summary) {
        if !entries[end].isSilenced { entries[end].silenceHandler() }
      } else if !entries[end].isLiveHandlerContinuingTraits(using: slot) {
        break
      }
      end += 1
    }
    self.extentSlot = slot
    self.extentStart = start
    self.extentEnd = Int32(truncatingIfNeeded: end)
    self.extentEdits = self.edits
    return Self.entryOffset(end)
  }

  /// The bit that `interruptRun()` sets in `runSlot`, above any slot's number.
  private static let runInterruptedFlag: Int32 = 1 << 30

  /// Marks the active run, if any, as interrupted: a handler changed a value or the tree, so its
  /// next users must compare with the node's collection as it is now. The run's loop then finds
  /// its limit 0 and stops, as it does when a nested delivery ended the run; `finishRun` finds
  /// the flag in `runSlot`.
  // NB: no run active leaves -1 as it is (every bit set), and no frame.
  @inline(__always) func interruptRun() {
    self.runSlot |= Self.runInterruptedFlag
    self.runFrame?.pointee.limit = 0
  }

  /// Ends the run of snapshot `slot`, unless a nested delivery ended it.
  ///
  /// When the run called `called` users, and they are all of the slot's users — no registration
  /// was made or cancelled on the node since the table had `entryCount` entries, `liveCount`
  /// live — and no other slot holds the run's collection, the slot takes it in place, and its
  /// old collection is returned, for the caller to keep alive until the pass ends. Otherwise the
  /// users called, up to the one at byte offset `lastCalled`, move to the snapshot that holds
  /// the run's collection. Returns too the slot that holds the run's collection, or -1 when none
  /// is known to.
  ///
  /// - Precondition: the run's loop ended, and `frame` is its state.
  func finishRun(
    of slot: Int32,
    called: Int32,
    frame: _RunFrame,
    entryCount: Int32,
    liveCount: Int32,
    recyclingInto graph: TraitGraph
  ) -> (replaced: Unmanaged<_Storage>?, holder: Int32) {
    if self.runSlot == slot | Self.runInterruptedFlag { self.runSlot = slot }
    guard self.runSlot == slot else { return (nil, -1) }
    // NB: a registration made since the change, before the pass, has the run's collection as
    // its baseline already: its slot stays the only one that holds it.
    guard called == withSnapshot(slot, { $0.uses }), entryCount == self.entryCount,
      liveCount == self.liveEntryCount,
      !snapshot(otherThan: slot, holds: frame.storage)
    else {
      return (nil, endRun(frame, recyclingInto: graph))
    }
    self.runSlot = -1
    let previous = baselineReference(slot)
    withSnapshot(slot) { $0.storage = frame.storage.retain() }
    // NB: the slot's users keep their slot: the extent found still holds.
    noteFill()
    return (previous, slot)
  }

  /// Ends the active run, if any, from a delivery nested in one of its callbacks: the users it
  /// called move to a snapshot that holds the run's collection, which they have seen.
  func endRun(recyclingInto graph: TraitGraph) {
    guard self.runSlot >= 0 else { return }
    #if TRAITKIT_INTERNAL_CHECKS
    precondition(self.runFrame != nil, "Invariant: a run is ended from within its loop")
    #endif
    let frame = self.runFrame.unsafelyUnwrapped
    // NB: the loop stops at its next step: a nested delivery reaches the node only after a
    // change of the tree, which interrupted the run already, but the run stops here whatever
    // ended it.
    frame.pointee.limit = 0
    endRun(frame.pointee, recyclingInto: graph)
  }

  /// Ends the active run, whose loop's state is `frame`: the users it called, up to the one at
  /// `frame.calledOffset`, move to a snapshot that holds the run's collection, which they have
  /// seen.
  ///
  /// Returns that snapshot's slot, or -1 when the run had none left to move.
  @discardableResult
  private func endRun(_ frame: _RunFrame, recyclingInto graph: TraitGraph) -> Int32 {
    let slot = self.runSlot & ~Self.runInterruptedFlag
    self.runSlot = -1
    let lastCalled = Self.entryPosition(atOffset: frame.calledOffset)
    var target: Int32 = -1
    for position in Int(frame.start)..<lastCalled &+ 1
    where entries[position].isLive(using: slot) {
      if target < 0 {
        target = frame.storage._withUnsafeGuaranteedRef { snapshot(for: $0) }
      }
      use(target)
      release(slot, recyclingInto: graph)
      entries[position].snapshot = target
    }
    // NB: the users moved are before the rest of the extent, which still holds.
    if self.extentSlot == slot, self.extentStart <= Int32(truncatingIfNeeded: lastCalled) {
      self.extentStart = Int32(truncatingIfNeeded: lastCalled &+ 1)
    }
    return target
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
    let freed = withSnapshot(slot) { snapshot -> Unmanaged<_Storage>? in
      snapshot.uses -= 1
      guard snapshot.uses == 0, let reference = snapshot.storage else { return nil }
      snapshot.storage = nil
      return reference
    }
    if freed != nil, slot != 0 { self.freeSnapshots += 1 }
    return freed
  }

  /// The number of snapshot slots, free ones included.
  var _snapshotSlotCount: Int { Int(self.snapshotCount) + 1 }

  /// The use count of snapshot `slot`, and whether it holds a storage.
  func _snapshotState(_ slot: Int32) -> (uses: Int32, isHeld: Bool) {
    withSnapshot(slot) { ($0.uses, $0.storage != nil) }
  }

  /// Whether a snapshot slot other than `slot` holds `storage`.
  private func snapshot(otherThan slot: Int32, holds storage: Unmanaged<_Storage>) -> Bool {
    let address = storage.toOpaque()
    if slot != 0, self.primary.storage?.toOpaque() == address { return true }
    for index in 0..<Int(self.snapshotCount)
    where index + 1 != Int(slot) && self.snapshots[index].storage?.toOpaque() == address {
      return true
    }
    return false
  }

  /// Whether snapshot `slot` holds `storage`; false for slot -1.
  @inline(__always) func snapshot(_ slot: Int32, holds storage: _Storage) -> Bool {
    snapshot(slot, holds: Unmanaged.passUnretained(storage))
  }

  /// Whether snapshot `slot` holds `storage`, given unretained; false for slot -1.
  @inline(__always) func snapshot(_ slot: Int32, holds storage: Unmanaged<_Storage>) -> Bool {
    guard slot >= 0, let snapshot = withSnapshot(slot, { $0.storage }) else { return false }
    return snapshot.toOpaque() == storage.toOpaque()
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
