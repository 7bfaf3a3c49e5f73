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
  /// A count of the table's edits.
  ///
  /// It advances whenever a snapshot slot takes a collection while a delivery walks the table,
  /// so that the delivery knows its memo of a slot's collection still holds; and whenever an
  /// entry may no longer be what the run's extent (`extentStart`) found it to be: a registration
  /// moves to another baseline outside a run, or dies outside a delivery, or a compaction moves
  /// entries or renumbers slots. The edit that wraps it to 0 drops the kept extent (see
  /// `_NodeObservers.noteEdit()`).
  var edits: UInt32 = 0
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
  /// The snapshot slot of the registrations `extentStart..<extentEnd`, or -1 for none.
  var extentSlot: Int32 = -1
  /// The state of the active run's loop, in the frame of the delivery that runs it; nil outside
  /// the loop.
  ///
  /// The frame outlives every use: only the run's own callees, and deliveries nested in them,
  /// reach it through the header.
  // NB: on the stack, not in the header: the loop stores its position before each call, and a
  // store to the header's second line, which the loop read after the call, took about 2 cycles
  // a callback or none, from one process to the next with the same binary (S1 at K=4096: 2.51
  // ns a callback in 29 of 47 runs, 1.86 in the others; on the stack, 2.51 in 11 of 36 runs of
  // three builds, which also differ in where the loop lies).
  var runFrame: UnsafeMutablePointer<_RunFrame>?
  /// The first position of the last extent a run found.
  ///
  /// An extent is a stretch of registrations, each live, with a handler kept inline, whose
  /// baseline is snapshot `extentSlot` and whose traits continue the entry before
  /// (`_Registration.continuesTraits`), or tombstones of such, whose handler counts them as not
  /// called (see `_NodeObservers.extent(of:summary:from:)`). It holds while `edits` is
  /// `extentEdits`.
  var extentStart: Int32 = 0
  /// The position after the last extent a run found.
  var extentEnd: Int32 = 0
  /// The value of `edits` when the extent was found.
  var extentEdits: UInt32 = 0

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

/// The state of a run's loop (see `_NodeObservers.beginRun`), kept in the frame of the delivery
/// that runs it, where the loop reads and writes it around each call, and where the run's own
/// callees, and deliveries nested in them, reach it through the table's `runFrame`.
struct _RunFrame {
  /// The byte offset (see `_NodeObservers.entryOffset(_:)`) of the user called last, or being
  /// called.
  // NB: an offset, so that the loop stores its position as it is: it keeps one offset that
  // addresses the entry, where a position also needs its offset in a register of its own
  // (traitkit-bench S1).
  var calledOffset: Int
  /// The byte offset before which the loop calls users without looking at their state: the end
  /// of the extent it is in, or of the delivery's entries if sooner; 0 once the run must stop —
  /// a handler changed a value or the tree, a nested delivery ended the run, or a registration
  /// moved the table.
  var limit: Int
  /// The tombstones among the users the run stepped over, which count as not called.
  var uncalled: Int32
  /// The position of the run's first user.
  let start: Int32
  /// The collection the run's users see, unretained: the running delivery keeps it.
  let storage: Unmanaged<_Storage>
}
