public import CTraitKitShims

/// The record of one tracked slot of one node: its invalidation and the reads of its last run.
@usableFromInline
final class _TrackingRecord {
  // NB: `@exclusivity(unchecked)`: see the note on `TraitNode`'s state.
  //
  // NB: field order is layout (see `TraitNode`). First the state that a run of the slot reads or
  // writes, from `_beginTrackedRun` to `_endTrackedRun`, in about 90 bytes; then what only the
  // passes and the slower paths read. The count of dependencies is kept here too, so that a run
  // that ends without work does not load the list's header (traitkit-bench S7: 10.7 → 8.6 cache
  // lines touched per tracked layout, with the reordered `_TraitReadRecorder` and `TraitNode`).

  // MARK: Run state

  let slot: TraitTrackingSlot
  @exclusivity(unchecked) var invalidation: (TraitNode) -> Void = { _ in }
  /// The dependency found last, tried first (a tracked closure mostly reads its own node).
  @exclusivity(unchecked) var recentDependency: Unmanaged<_TraitReadRecorder>?
  /// Counts runs; a dependency touched in the current run carries its number.
  @exclusivity(unchecked) var run: UInt64 = 0
  /// How many dependencies the current run has touched (given its number): when that is all of
  /// them, the run's end has nothing to sweep.
  @exclusivity(unchecked) var touchedDependencies = 0
  /// `dependencies.count`.
  @exclusivity(unchecked) private(set) var dependencyCount = 0
  /// How many runs of this record are under way (more than one when a run nests another).
  @exclusivity(unchecked) var runs = 0
  /// The record this one's innermost run is nested in on its thread (an `Unmanaged` address),
  /// during a run; see `enter` for a run nested in runs of other records inside this one's.
  @exclusivity(unchecked) var enclosing: UnsafeMutableRawPointer?
  /// The pass that last ran the invalidation, until the slot runs again: a slot invalidated in
  /// a pass is not invalidated again in that pass unless it ran since.
  @exclusivity(unchecked) var invalidatedInPass: UInt64 = 0
  @exclusivity(unchecked) var isRecording = false
  /// Whether a node's collection may have changed during the current run, on this thread, or a
  /// read of the run took its value from a collection other than its recorder's baseline (see
  /// `_TraitReadRecorder.adoptValues(of:)`): then the run may have read values that its nodes
  /// no longer hold, or that no one collection holds (see `endRun`).
  @exclusivity(unchecked) var readsMayBeStale = false
  @exclusivity(unchecked) var isLive = true

  // MARK: Other state

  unowned(unsafe) let owner: TraitNode
  /// One entry per node read in the last run (usually just the owner).
  @exclusivity(unchecked) var dependencies: ContiguousArray<_TraitReadRecorder> = [] {
    didSet { dependencyCount = dependencies.count }
  }
  /// The passes that ran the invalidation before `invalidatedInPass` and may run around it.
  ///
  /// While they run, they must not run it again. Empty unless passes nest; meaningless while
  /// `invalidatedInPass` is 0 (the slot ran since).
  @exclusivity(unchecked) var invalidatedInEnclosingPasses: [UInt64] = []
  /// For each run of this record under way that began inside runs of other records, themselves
  /// inside an earlier run of this record: the record whose link that run's start redirected,
  /// and this record's link before it (see `enter`).
  @exclusivity(unchecked) var reentries:
    ContiguousArray<(redirected: Unmanaged<_TrackingRecord>, link: UnsafeMutableRawPointer?)> = []

  init(owner: TraitNode, slot: TraitTrackingSlot) {
    self.owner = owner
    self.slot = slot
  }

  /// Notes that `graph`'s pass numbered `pass` invalidates the slot, unless it did since the
  /// slot last ran; returns whether it does.
  ///
  /// A pass of another graph may run inside that pass and invalidate the slot too (R11: at most
  /// once per pass, and a nested pass is another one), so the passes that invalidated it and
  /// still run around `graph`'s are kept, and checked.
  func noteInvalidation(inPass pass: UInt64, of graph: TraitGraph) -> Bool {
    let last = invalidatedInPass
    guard last != pass else { return false }
    if last == 0 {
      // NB: the passes around kept before the slot last ran go here, not when it runs, which
      // then stays a few stores (traitkit-bench S7).
      if !invalidatedInEnclosingPasses.isEmpty { invalidatedInEnclosingPasses.removeAll() }
      invalidatedInPass = pass
      return true
    }
    // NB: passes nest on one thread, and their numbers grow: a pass numbered below `pass` that
    // still runs encloses it.
    guard invalidatedInEnclosingPasses.isEmpty, last > pass || !graph._isInsidePass(last) else {
      return noteInvalidationAmongEnclosingPasses(pass, of: graph)
    }
    invalidatedInPass = pass
    return true
  }

  /// `noteInvalidation(inPass:of:)` when the slot may have been invalidated by passes that still
  /// run around `graph`'s.
  @inline(never)
  private func noteInvalidationAmongEnclosingPasses(_ pass: UInt64, of graph: TraitGraph) -> Bool {
    guard !invalidatedInEnclosingPasses.contains(pass) else { return false }
    invalidatedInEnclosingPasses.append(invalidatedInPass)
    invalidatedInEnclosingPasses.removeAll { $0 >= pass || !graph._isInsidePass($0) }
    invalidatedInPass = pass
    return true
  }

  /// Starts a run; a run nested in a run of this same record (a tracked method that re-enters
  /// itself) continues that run, so the record keeps what either read.
  func beginRun() {
    if runs == 0 {
      run &+= 1
      touchedDependencies = 0
      readsMayBeStale = false
      // NB: the reads of this run are new: a change of one of them later in the pass that
      // invalidated the slot must invalidate it again.
      invalidatedInPass = 0
    }
    runs += 1
    isRecording = true
  }

  /// Whether the run that ends can end with `endRun()`: it is not the outermost, or it touched
  /// every dependency, as a run that read the same nodes as the one before did; and its reads
  /// cannot be stale.
  var endsWithoutWork: Bool {
    // NB: a run that read the same nodes as the one before touched every dependency, the recent
    // one among them: nothing to sweep, and the dependencies' list is not read (traitkit-bench
    // S7).
    !readsMayBeStale && (runs > 1 || touchedDependencies == dependencyCount)
  }

  /// Ends a run that leaves no work (see `endsWithoutWork`).
  func endRun() {
    runs -= 1
    guard runs == 0 else { return }
    isRecording = false
    enclosing = nil
  }

  /// Ends a run; when it was the outermost, drops the dependencies it did not touch, and
  /// returns what remains to do once the caller is done with this record: letting go of the
  /// dropped dependencies and of collections runs values' deinitializers, and marking nodes
  /// runs `onNeedsUpdate`, user code that may remove the slot and free this record.
  func endRunLeavingWork() -> _RunEndWork? {
    endRun()
    guard runs == 0 else { return nil }
    var work = _RunEndWork()
    if touchedDependencies != dependencies.count {
      work.droppedDependencies = dropUntouchedDependencies()
    }
    if readsMayBeStale { collectReadsToCheck(into: &work) }
    return work
  }

  /// Drops the dependencies that the run that ended did not touch, and returns them.
  private func dropUntouchedDependencies() -> [_TraitReadRecorder] {
    // NB: the recent dependency stays for the next run, which mostly reads the same node, unless
    // this run did not touch it (then the sweep below drops it).
    if let recent = recentDependency, recent._withUnsafeGuaranteedRef({ $0.run != run }) {
      recentDependency = nil
    }
    var kept = 0
    for position in dependencies.indices {
      if dependencies[position].run == run {
        if kept != position { dependencies.swapAt(kept, position) }
        kept += 1
      } else {
        dependencies[position].isLive = false
      }
    }
    let dropped = Array(dependencies[kept...])
    dependencies.removeLast(dependencies.count - kept)
    return dropped
  }

  /// After a run during which the tree changed, or that read a node through collections other
  /// than its baseline, adds to `work` the dependencies whose baselines may not hold what the
  /// node holds, or not all that the run read, and the baselines that reads replaced.
  private func collectReadsToCheck(into work: inout _RunEndWork) {
    readsMayBeStale = false
    // NB: an index loop, for the reason given in `_NodeTracking.recordAmongOthers`.
    for position in dependencies.indices {
      let dependency = dependencies[position]
      if !dependency.replacedBaselines.isEmpty {
        work.replacedBaselines.append(contentsOf: dependency.replacedBaselines)
        dependency.replacedBaselines.removeAll()
      }
      // NB: a dead recorder's node may be gone.
      if dependency.isLive && (dependency.readMixedValues || dependency.baselineMayBeStale) {
        work.readNodes.append((dependency.node, dependency))
      }
    }
  }

  /// Notes that a node's collection may have changed: the innermost run on this thread, if any,
  /// then checks its baselines when it ends (see `endRun`).
  @inline(__always)
  static func noteTreeChange() {
    guard let active else { return }
    active._withUnsafeGuaranteedRef { $0.readsMayBeStale = true }
  }

  func kill() {
    isLive = false
    recentDependency = nil
    isRecording = false
    for dependency in dependencies { dependency.isLive = false }
    // NB: let go of once the list is empty: a baseline's deinitializer may use this record.
    var dropped = ContiguousArray<_TraitReadRecorder>()
    swap(&dropped, &dependencies)
    invalidation = { _ in }
    withExtendedLifetime(dropped) {}
  }

  /// The recorder for reads of `node`'s traits in the current run, whose collection is
  /// `storage`.
  // NB: `storage` unretained, and the recent dependency tried inline: nearly every tracked read
  // takes that path, and a run that reads the same node as the last one starts over with it
  // (traitkit-bench S7).
  @inline(__always)
  func dependency(
    on node: TraitNode,
    storage: Unmanaged<_Storage>
  ) -> Unmanaged<_TraitReadRecorder> {
    // NB: compare identities only: a dependency's node may be gone (then it is not live).
    if let recent = recentDependency,
      recent._withUnsafeGuaranteedRef({ $0.isLive && $0.nodeID == ObjectIdentifier(node) })
    {
      if recent._withUnsafeGuaranteedRef({ $0.run != run }) { restart(recent, storage: storage) }
      return recent
    }
    return dependencyAmongOthers(on: node, storage: storage)
  }

  /// The recent dependency, when it is `node`'s and this run, which is recording, has touched it
  /// already: then a read of `node` records through it with nothing else to do.
  @inline(__always)
  func recentDependency(touchedOn node: TraitNode) -> Unmanaged<_TraitReadRecorder>? {
    guard isLive && isRecording, let recent = recentDependency,
      recent._withUnsafeGuaranteedRef({
        $0.isLive && $0.nodeID == ObjectIdentifier(node) && $0.run == run
      })
    else { return nil }
    return recent
  }

  /// Starts this run's record of the recent dependency.
  @inline(never)
  private func restart(_ dependency: Unmanaged<_TraitReadRecorder>, storage: Unmanaged<_Storage>) {
    touchedDependencies += 1
    dependency._withUnsafeGuaranteedRef { $0.reset(run: run, baseline: storage) }
  }

  /// `dependency(on:storage:)` when the recent dependency is not `node`'s: another one, or a new
  /// one.
  @inline(never)
  private func dependencyAmongOthers(
    on node: TraitNode,
    storage: Unmanaged<_Storage>
  ) -> Unmanaged<_TraitReadRecorder> {
    let id = ObjectIdentifier(node)
    for position in dependencies.indices
    where dependencies[position].isLive && dependencies[position].nodeID == id {
      let dependency = dependencies[position]
      if dependency.run != run {
        touchedDependencies += 1
        dependency.reset(run: run, baseline: storage)
      }
      recentDependency = Unmanaged.passUnretained(dependency)
      return Unmanaged.passUnretained(dependency)
    }
    let dependency = _TraitReadRecorder(
      record: self,
      node: node,
      run: run,
      baseline: storage.takeUnretainedValue()
    )
    dependencies.append(dependency)
    touchedDependencies += 1
    node._trackingState().watchers.append(dependency)
    recentDependency = Unmanaged.passUnretained(dependency)
    return Unmanaged.passUnretained(dependency)
  }

  /// Whether `recorder` is one of this record's dependencies (compared by address: it may be
  /// gone).
  private func holds(_ recorder: Unmanaged<_TraitReadRecorder>) -> Bool {
    if recentDependency?.toOpaque() == recorder.toOpaque() { return true }
    return dependencies.contains { Unmanaged.passUnretained($0).toOpaque() == recorder.toOpaque() }
  }

  /// Records a read of the trait with dense index `index` made through a collection that
  /// carries `recorder`.
  ///
  /// The recorder is followed only when a tracked closure running on this thread — the innermost
  /// or one it encloses — holds it: those records are alive (their runs are on the stack), and
  /// so are the recorders they hold. A collection read on another thread, or after its run
  /// ended, records nothing — unless its recorder is gone and a recorder made since, of a run
  /// under way, got its address: collections hold their recorder unretained, and carry no other
  /// identity of it (their storage may be any node's that shares it). Such a read then counts
  /// for that recorder's node: at worst an extra invalidation, never a missed one.
  ///
  /// `storage` is the collection's storage, from which the read takes its value.
  @inline(__always)
  static func recordRead(
    _ index: Int,
    through recorder: Unmanaged<_TraitReadRecorder>,
    of storage: Unmanaged<_Storage>
  ) {
    guard let innermost = active else { return }
    // NB: nearly every recorded read goes through the recorder that the innermost run handed
    // out last, which is its recent dependency: that case is checked inline, with no closure
    // call and no walk (traitkit-bench S7).
    let run = innermost._withUnsafeGuaranteedRef { record -> UInt64? in
      record.isRecording && record.recentDependency?.toOpaque() == recorder.toOpaque()
        ? record.run : nil
    }
    guard let run else {
      recordRead(index, through: recorder, of: storage, walkingFrom: innermost)
      return
    }
    recorder._withUnsafeGuaranteedRef { $0.record(index, run: run, of: storage) }
  }

  /// Records a comparison that read the traits `traits` names through a collection that carries
  /// `recorder`, whose storage is `storage` (see `recordRead(_:through:of:)`).
  static func recordComparison(
    _ traits: _ComparedTraits,
    through recorder: Unmanaged<_TraitReadRecorder>,
    of storage: Unmanaged<_Storage>
  ) {
    guard let innermost = active, let run = run(holding: recorder, walkingFrom: innermost) else {
      return
    }
    recorder._withUnsafeGuaranteedRef { recorder in
      storage._withUnsafeGuaranteedRef { recorder.recordComparison(traits, run: run, of: $0) }
    }
  }

  /// Records a read of the trait with dense index `index`, whose type was registered by the read
  /// (see `recordRead(_:through:of:)`): the read takes the trait's default value, which every
  /// collection holds, without touching its collection, which registering may have freed.
  @usableFromInline @inline(never)
  static func recordDefaultRead(_ index: Int, through recorder: Unmanaged<_TraitReadRecorder>) {
    recordRead(index, through: recorder, of: Unmanaged.passUnretained(_Storage.empty))
  }

  /// `recordRead(_:through:of:)` when the recorder is not the innermost run's recent dependency:
  /// the runs from the innermost out are asked in turn.
  @inline(never)
  private static func recordRead(
    _ index: Int,
    through recorder: Unmanaged<_TraitReadRecorder>,
    of storage: Unmanaged<_Storage>,
    walkingFrom innermost: Unmanaged<_TrackingRecord>
  ) {
    guard let run = run(holding: recorder, walkingFrom: innermost) else { return }
    recorder._withUnsafeGuaranteedRef { $0.record(index, run: run, of: storage) }
  }

  /// The run under way of the innermost record, from `innermost` out, that is recording and
  /// holds `recorder`; `nil` when none does.
  private static func run(
    holding recorder: Unmanaged<_TraitReadRecorder>,
    walkingFrom innermost: Unmanaged<_TrackingRecord>
  ) -> UInt64? {
    var record: Unmanaged<_TrackingRecord>? = innermost
    while let current = record {
      let run = current._withUnsafeGuaranteedRef { current in
        current.isRecording && current.holds(recorder) ? current.run : nil
      }
      if let run { return run }
      record = current._withUnsafeGuaranteedRef { $0.enclosing.map { Unmanaged.fromOpaque($0) } }
    }
    return nil
  }

  /// The innermost tracked closure running on this thread, if any (one thread-local load).
  ///
  /// A read asks only once it finds the read gate closed (see `_readGateIsOpen()`).
  @inline(__always) static var active: Unmanaged<_TrackingRecord>? {
    _ThreadLocals.activeRecord.map { Unmanaged.fromOpaque($0) }
  }

  /// Makes `record`, whose run has begun, the innermost active record of this thread; returns the
  /// one it hides.
  ///
  /// The records under way on a thread form a chain through their `enclosing` links, from the
  /// innermost out, that `recordRead` walks; each record is on it once, however many of its runs
  /// are under way, since each would answer alike.
  static func enter(_ record: _TrackingRecord) -> UnsafeMutableRawPointer? {
    ctraitkit_add_recording_scopes(1)
    let enclosing = _ThreadLocals.activeRecord
    if record.runs == 1 {
      record.enclosing = enclosing
    } else if enclosing != Unmanaged.passUnretained(record).toOpaque() {
      record.reenter(inside: enclosing)
    }
    // NB: a run nested directly in a run of the same record keeps the outer run's link: linking
    // the record to itself would make `recordRead` walk in circles.
    _ThreadLocals.activeRecord = Unmanaged.passUnretained(record).toOpaque()
    return enclosing
  }

  /// Links this record to `enclosing`, the innermost of the runs between its new run and an
  /// earlier one.
  ///
  /// It also takes the record off the chain further out: the record that links to it there
  /// links to this record's earlier link instead. A walk from here then meets the runs between,
  /// and then those outside this record's earlier run, each record once.
  @inline(never)
  private func reenter(inside enclosing: UnsafeMutableRawPointer?) {
    let this = Unmanaged.passUnretained(self).toOpaque()
    var candidate = enclosing
    while let address = candidate {
      let outer = Unmanaged<_TrackingRecord>.fromOpaque(address)
      let link = outer._withUnsafeGuaranteedRef { $0.enclosing }
      if link == this {
        outer._withUnsafeGuaranteedRef { $0.enclosing = self.enclosing }
        reentries.append((outer, self.enclosing))
        self.enclosing = enclosing
        return
      }
      candidate = link
    }
    preconditionFailure(
      "Invariant: a record re-entered inside other records is linked to from the chain"
    )
  }

  /// Undoes what `reenter(inside:)` did for the run that ends, whose start hid `enclosing`.
  ///
  /// - Precondition: Another run of this record is under way.
  func leaveReentry(hiding enclosing: UnsafeMutableRawPointer?) {
    guard enclosing != Unmanaged.passUnretained(self).toOpaque() else { return }
    let (redirected, link) = reentries.removeLast()
    redirected._withUnsafeGuaranteedRef { $0.enclosing = Unmanaged.passUnretained(self).toOpaque() }
    self.enclosing = link
  }

  /// Restores the record that `enter` hid.
  static func leave(restoring enclosing: UnsafeMutableRawPointer?) {
    _ThreadLocals.activeRecord = enclosing
    ctraitkit_add_recording_scopes(-1)
  }
}

@available(*, unavailable)
extension _TrackingRecord: Sendable {}

/// Records a read of the trait with dense index `index` made through a collection that carries
/// `recorder`, whose storage is `storage` (see `_TrackingRecord.recordRead(_:through:of:)`).
// NB: a function of its own, not the static method, which a client would call through the
// class's metadata accessor and a thunk: three calls per tracked read become one
// (traitkit-bench S7).
@usableFromInline
func _recordTrackedRead(
  _ index: Int,
  through recorder: Unmanaged<_TraitReadRecorder>,
  of storage: Unmanaged<_Storage>
) {
  _TrackingRecord.recordRead(index, through: recorder, of: storage)
}

/// Whether a tracked closure runs anywhere in the process (one relaxed atomic load).
@inline(__always)
func _isRecordingTraitReadsAnywhere() -> Bool {
  ctraitkit_is_recording_anywhere()
}

/// Whether a read may take its fast path: TraitKit opened the read gate, and no tracked closure
/// runs anywhere in the process (one relaxed atomic load).
// NB: a C11 atomic (see `CTraitKitReadGate.h`), which a client's inlined read loads with one
// instruction; a Swift `Atomic` of this module costs a client a call (traitkit-bench S8). A
// client with its own copy of the word finds the gate closed, and takes the slow path.
@inlinable @inline(__always)
func _readGateIsOpen() -> Bool {
  ctraitkit_read_gate_is_open()
}

/// What the end of a tracked run leaves to do once its record is no longer used (see
/// `_TrackingRecord.endRunLeavingWork()`).
struct _RunEndWork {
  /// The nodes the run read whose collections may not hold all it read, with their recorders.
  var readNodes: [(TraitNode, _TraitReadRecorder)] = []
  /// Baselines that reads replaced during the run, let go of last.
  var replacedBaselines: [_Storage] = []
  /// The dependencies the run did not touch, which the record dropped, let go of last.
  var droppedDependencies: [_TraitReadRecorder] = []

  /// Marks pending at each node the traits the run read whose values the node no longer holds,
  /// or every trait the run read of a node whose values it took from collections that differ:
  /// a change made during the run before the run recorded a trait marked nothing for it.
  func perform() {
    for (node, recorder) in readNodes {
      // NB: resolving a node can run values' deinitializers, which may end the recorder.
      let current = node._resolvedStorage()
      guard recorder.isLive else { continue }
      let changed =
        recorder.readMixedValues
        ? recorder.readFilter
        : recorder.readTraits(in: current, recorder.baseline) {
          !current.slotEqual(at: $0, to: recorder.baseline)
        }
      if !changed.isEmpty { node._markPending(changed) }
    }
  }
}
