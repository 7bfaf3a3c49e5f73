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
  /// The number the next registration takes.
  var nextSequence: UInt32 = 0
  /// The 64-bit summary (`_TraitFilter.summary`) of a superset of the traits the live entries
  /// observe.
  var summary: UInt64 = 0
  /// The serial that the tokens of this table's numbering carry.
  var serial: UInt64
  // Second line: what registering, cancelling and delivering to one baseline do not need.
  /// The snapshot slot found or made last: registrations made together look it up first.
  var recentSnapshot: Int32 = -1
  /// How far the table lies into its allocation (see `_NodeObservers.allocate(capacity:)`).
  var allocationOffset: Int32
  /// Snapshot slots 1 and up, slot *s* at index *s* − 1: the other distinct baselines.
  ///
  /// Each slot, like `primary`, retains its storage once; a nil storage marks a free slot.
  var snapshots = UnsafeMutablePointer<_Snapshot>(bitPattern: MemoryLayout<_Snapshot>.alignment)!
  var snapshotCapacity: Int32 = 0
  /// The free slots among `snapshots`' first `snapshotCount`.
  var freeSnapshots: Int32 = 0
  /// The numberings the table retired when its numbers ran out (retained); nil until then.
  var renumberings: Unmanaged<_Renumberings>?
  /// The snapshot slot of the active run, with `_NodeObservers.runInterruptedFlag` once a
  /// handler changed a value or the tree, or -1 (see `_NodeObservers.beginRun`).
  var runSlot: Int32 = -1
  /// The position of the run's first user.
  var runStart: Int32 = 0
  /// Where the active run's loop keeps the position of the last user it called, or is calling,
  /// as a byte offset into the table (see `_NodeObservers.entryOffset(_:)`); nil outside the
  /// loop.
  ///
  /// The place is a variable in the frame of the delivery that runs the loop, which outlives
  /// every read: only a delivery nested in one of the loop's callbacks reads it.
  // NB: a whole word, and an offset, so that the run loop stores its position as it is: the
  // loop keeps one offset that addresses the entry, where a position also needs its offset in a
  // register of its own (traitkit-bench S1). And on the stack, not in the header: the loop
  // stores its position before each call, and a store to the header's second line, which the
  // loop reads after the call, took about 2 cycles a callback or none, from one process to the
  // next with the same binary (S1 at K=4096: 2.51 ns a callback in 29 of 47 runs, 1.86 in the
  // others; on the stack, 2.51 in 11 of 36 runs of three builds, which also differ in where
  // the loop lies).
  var runCalled: UnsafeMutablePointer<Int>?
  /// The collection the run's users see, unretained: the running delivery keeps it.
  var runStorage: Unmanaged<_Storage>?
  /// The byte offset (see `_NodeObservers.entryOffset(_:)`) before which the active run may
  /// call users: that of the end of the entries its delivery walks, or 0 once a handler changed
  /// a value or the tree, or a nested delivery ended the run.
  var runLimit = 0

  init(capacity: Int32, allocationOffset: Int32, serial: UInt64) {
    self.capacity = capacity
    self.allocationOffset = allocationOffset
    self.serial = serial
  }
}

/// A shared baseline of a node's registrations.
struct _Snapshot {
  var storage: Unmanaged<_Storage>?
  var uses: Int32
}
