/// A node's automatic-tracking state: the slots it tracks, and the recorded reads of its traits
/// (by its own slots or other nodes').
final class _NodeTracking {
  /// The node's tracked slots.
  @exclusivity(unchecked) var records: ContiguousArray<_TrackingRecord> = []
  /// The record found last, tried first (most nodes track one slot, or run one at a time);
  /// unretained: `records` holds it, and removing it from there clears this.
  @exclusivity(unchecked) var recentRecord: Unmanaged<_TrackingRecord>?
  /// The recorded reads of this node's traits; dead ones are purged when met.
  @exclusivity(unchecked) var watchers: ContiguousArray<_TraitReadRecorder> = []
  /// A superset of the traits the live watchers recorded.
  @exclusivity(unchecked) var observed = _TraitFilter.none
  /// How many calls of `invalidate` are walking `watchers`.
  ///
  /// More than one when an invalidation runs a pass of another graph that visits the node. Only
  /// the outermost purges dead watchers, so that each call further out keeps its position.
  @exclusivity(unchecked) var invalidationDepth = 0

  /// Records removed while they were running, kept alive until their run ends.
  @exclusivity(unchecked) var retired: ContiguousArray<_TrackingRecord> = []

  // NB: the recent record tried inline: a tracked run then reads this object and the record,
  // not the list between them (traitkit-bench S7).
  /// The record of `slot`, made on first use; unretained: this object keeps it until the slot is
  /// removed, and a removal during a run keeps it until the run ends (`retired`).
  @inline(__always)
  func record(for slot: TraitTrackingSlot, owner: TraitNode) -> Unmanaged<_TrackingRecord> {
    if let recent = recentRecord, recent._withUnsafeGuaranteedRef({ $0.slot == slot }) {
      return recent
    }
    return recordAmongOthers(for: slot, owner: owner)
  }

  /// `record(for:owner:)` when the recent record is another slot's, or there is none.
  @inline(never)
  private func recordAmongOthers(
    for slot: TraitTrackingSlot,
    owner: TraitNode
  ) -> Unmanaged<_TrackingRecord> {
    // NB: an index loop, not `first(where:)`: a closure that captures `slot` is allocated in a
    // debug build, and re-tracking must allocate nothing there too (ZeroAllocationTests).
    var position = 0
    while position < records.count, records[position].slot != slot { position += 1 }
    if position == records.count {
      records.append(_TrackingRecord(owner: owner, slot: slot))
    }
    let record = Unmanaged.passUnretained(records[position])
    recentRecord = record
    return record
  }

  func removeRecord(for slot: TraitTrackingSlot) {
    guard let position = records.firstIndex(where: { $0.slot == slot }) else { return }
    let record = records.remove(at: position)
    if recentRecord?.toOpaque() == Unmanaged.passUnretained(record).toOpaque() {
      recentRecord = nil
    }
    if record.runs > 0 { retired.append(record) }
    record.kill()
  }

  /// Lets go of `record`, removed during the run that just ended.
  func runDidEnd(afterRemoving record: _TrackingRecord) {
    guard record.runs == 0, let position = retired.firstIndex(where: { $0 === record }) else {
      return
    }
    retired.remove(at: position)
  }

  /// Runs the invalidation of every slot that read a trait of `node` that now differs; returns
  /// how many ran.
  ///
  /// `current` is the node's collection as the pass's visit found it. An invalidation that
  /// changes values or the tree makes the slots after it compare with the node's collection as
  /// it is then; one that detaches the node or moves it to another graph ends the node's
  /// invalidations in this pass (R10, R11): the visit keeps what it had to deliver pending at
  /// the node (see `TraitGraph._visit`), so its other slots hear of the change once, in the pass
  /// of the graph the node is in.
  ///
  /// A baseline that a slot stops using, when the slot held its last reference, goes to the
  /// recycling list of `graph`, the graph whose pass runs, and becomes a spare when the pass
  /// ends (traitkit-bench S7).
  func invalidate(
    _ node: TraitNode,
    current: _Storage,
    pass: UInt64,
    recyclingInto graph: TraitGraph
  ) -> Int {
    var invalidations = 0
    var position = 0
    // NB: unretained, as the visit holds it: a change of values or of the tree makes the pass
    // keep the collection of `_currentCell`, which this follows (see
    // `TraitGraph._valuesDidChange()`). A retained copy cost a retain and a release per node
    // (traitkit-bench S7).
    var current = Unmanaged.passUnretained(current)
    var epoch = graph._epoch
    invalidationDepth += 1
    defer { invalidationDepth -= 1 }
    while position < watchers.count {
      if graph._epoch != epoch {
        guard node._isIn(graph) else { break }
        epoch = graph._epoch
        current = node._resolvedReference()
        // NB: `TraitCollection.current` follows, as it does for registrations (`_deliver`).
        graph._currentCell.storage = current
      }
      let watcher = watchers[position]
      guard watcher.isLive else {
        // NB: a nested call leaves dead watchers in place: removing one below the position of a
        // call further out would move the next watcher onto a position that call has passed,
        // and that call would skip it (`ReenteredInvalidationTests`).
        if invalidationDepth == 1 { watchers.remove(at: position) } else { position += 1 }
        continue
      }
      position += 1
      if !watcher.readMixedValues {
        guard current._withUnsafeGuaranteedRef({ watcher.readTraitDiffers(in: $0) }) else {
          continue
        }
      }
      watcher.readMixedValues = false
      var replaced = current.takeUnretainedValue()
      swap(&replaced, &watcher.baseline)
      graph._recycleIfLast(&replaced)
      let record = watcher.record.takeUnretainedValue()
      guard record.noteInvalidation(inPass: pass, of: graph) else { continue }
      invalidations += 1
      record.invalidation(record.owner)
    }
    // NB: after the calls: an invalidation that re-runs its slot records reads that count.
    // NB: a loop, not `reduce(into:)`, for the reason given in `TraitGraph._takeSpareStorage`.
    var union = _TraitFilter.none
    for position in watchers.indices where watchers[position].isLive {
      union |= watchers[position].filter
    }
    observed = union
    return invalidations
  }

  func nodeWillDeinit(_ node: TraitNode) {
    for record in records { record.kill() }
    for watcher in watchers { watcher.isLive = false }
  }
}

@available(*, unavailable)
extension _NodeTracking: Sendable {}
