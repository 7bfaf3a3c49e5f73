/// The reads of one node's traits recorded by one tracked slot in its last run.
///
/// Collections obtained inside a tracked closure carry their recorder, so that reads made
/// through them are recorded too.
@usableFromInline
final class _TraitReadRecorder: @unchecked Sendable {
  // NB: `@unchecked`: collections carrying a recorder may cross threads, but only the thread
  // running the tracked closure follows it (`_TrackingRecord.recordRead`).
  // NB: field order is layout (see `TraitNode`): first what a tracked read and the start of a
  // run read or write, then the rest (traitkit-bench S7).

  // MARK: Read state

  let nodeID: ObjectIdentifier
  @exclusivity(unchecked) var run: UInt64
  /// The node's collection when the traits were read, or when the invalidation last ran.
  @exclusivity(unchecked) var baseline: _Storage
  @exclusivity(unchecked) var traits = _TraitIndexSet()
  @exclusivity(unchecked) var filter = _TraitFilter.none
  /// False once the slot's record, the read node, or the run that made it is gone.
  @exclusivity(unchecked) var isLive = true
  /// Whether the run read values that no one collection holds.
  ///
  /// A trait read from the node's collection before a change, another after it: any later
  /// collection then differs from one of them, so the next pass that meets the recorder runs the
  /// invalidation.
  @exclusivity(unchecked) var readMixedValues = false
  /// What comparisons through collections of the node read in this run beyond `traits`.
  @exclusivity(unchecked) var compared = _ComparedTraits.none

  // MARK: Other state

  /// The slot's record, unretained: a dependency never outlives its use by a live record.
  let record: Unmanaged<_TrackingRecord>
  unowned(unsafe) let node: TraitNode
  /// Baselines that reads from a newer collection of the node replaced during the run, kept
  /// until the run ends: letting go of one can run a value's deinitializer, which a read must
  /// not.
  @exclusivity(unchecked) var replacedBaselines: [_Storage] = []

  init(record: _TrackingRecord, node: TraitNode, run: UInt64, baseline: _Storage) {
    self.record = Unmanaged.passUnretained(record)
    self.node = node
    self.nodeID = ObjectIdentifier(node)
    self.run = run
    self.baseline = baseline
  }

  /// Whether the baseline may not be the node's collection: the recorder is live, and the node's
  /// collection is another, or must be resolved again.
  var baselineMayBeStale: Bool {
    guard isLive else { return false }
    let baseline = Unmanaged.passUnretained(baseline).toOpaque()
    return Unmanaged.passUnretained(node)._withUnsafeGuaranteedRef { node in
      !node._resolvedIsCurrent || node._resolvedRef.toOpaque() != baseline
    }
  }

  /// Starts recording a new run: the exact traits start over; the filter, a summary the pass
  /// uses to find this dependency, keeps the bits it has (a superset is harmless), so that
  /// re-tracking the same reads publishes nothing up the tree.
  func reset(run: UInt64, baseline: Unmanaged<_Storage>) {
    self.run = run
    // NB: the traits start over before the old baseline goes: letting go of it can run a boxed
    // value's deinitializer, whose reads of this node in the tracked closure must be kept.
    traits.removeAll()
    readMixedValues = false
    // NB: a comparison's filter, every trait, would keep every change above the node coming to
    // it: the run starts it over, and the pass that next meets the recorder narrows what the
    // node observes.
    if compared != .none {
      compared = .none
      filter = .none
    }
    // NB: re-tracking an unchanged node keeps its baseline without reference counting, the new
    // one unretained until then (traitkit-bench S7).
    if ObjectIdentifier(self.baseline) != ObjectIdentifier(baseline.takeUnretainedValue()) {
      var replaced = baseline.takeUnretainedValue()
      swap(&replaced, &self.baseline)
      // NB: a slot that re-tracks after each pass lets go here of the collection it read in the
      // run before; recycled, it is the buffer the next pass's refresh of an overriding node
      // fills, so a steady state of invalidations and re-tracking allocates nothing
      // (traitkit-bench S7).
      node._recycle(&replaced)
    }
  }

  /// Records a read of the trait with dense index `index` in run `run` of this recorder's
  /// record, from a collection whose storage is `storage`.
  ///
  /// - Precondition: The record is running on this thread (see `_TrackingRecord.recordRead`).
  @inline(__always)
  func record(_ index: Int, run: UInt64, of storage: Unmanaged<_Storage>) {
    guard isLive, self.run == run else { return }
    if Unmanaged.passUnretained(baseline).toOpaque() != storage.toOpaque() {
      storage._withUnsafeGuaranteedRef { adoptValue(at: index, of: $0) }
    }
    // NB: the first 64 traits, in one word of the set and the filter alike, with masking shifts:
    // a tracked read of one of them is two tests and an OR (traitkit-bench S7).
    guard index < 64 else {
      if !traits.contains(index) { recordFirstRead(index) }
      return
    }
    let bit = UInt64(1) &<< UInt64(truncatingIfNeeded: index)
    guard traits.first & bit == 0 else { return }
    traits.first |= bit
    // NB: re-tracking the same reads ends here: the filter keeps the bits of earlier runs.
    guard filter.low & bit == 0 else { return }
    recordNewTrait(_TraitFilter(low: bit, high: 0))
  }

  /// Makes the baseline hold, at `index`, the value of `other`, another collection of the node,
  /// which a read takes it from: a tracked closure that changes traits and reads the node again
  /// reads a newer collection than its first read did.
  ///
  /// When the traits recorded so far hold the same values in both, `other` becomes the
  /// baseline; otherwise the run read values that no one collection holds. Slots are compared
  /// by their stored words, which runs no user code: equal values stored differently count as
  /// different, which costs at most an extra invalidation.
  @inline(never)
  private func adoptValue(at index: Int, of other: _Storage) {
    guard baseline.rawSlot(at: index).word != other.rawSlot(at: index).word else { return }
    adoptValues(of: other)
  }

  /// Makes `other`, another collection of the node, the baseline when the traits read so far
  /// hold the same stored words in both; otherwise notes that the run read values that no one
  /// collection holds.
  private func adoptValues(of other: _Storage) {
    record._withUnsafeGuaranteedRef { $0.readsMayBeStale = true }
    let baseline = self.baseline
    let readDiffer = readTraits(in: baseline, other) {
      baseline.rawSlot(at: $0).word != other.rawSlot(at: $0).word
    }
    guard readDiffer.isEmpty else {
      readMixedValues = true
      return
    }
    replacedBaselines.append(baseline)
    self.baseline = other
  }

  /// Records, in run `run` of this recorder's record, a comparison that read the traits
  /// `traits` names from a collection whose storage is `storage`.
  ///
  /// The filter becomes every trait: which of them the comparison covers is decided when a pass
  /// meets the recorder, so that a trait type registered later counts too.
  func recordComparison(_ traits: _ComparedTraits, run: UInt64, of storage: _Storage) {
    guard isLive, self.run == run else { return }
    // NB: before the comparison's traits join those read: `storage` holds all that it reads.
    if baseline !== storage { adoptValues(of: storage) }
    compared = Swift.max(compared, traits)
    guard filter != .all else { return }
    recordNewTrait(.all)
  }

  /// Whether a trait the run read holds a value in `current`, a collection of the node, other
  /// than in the baseline.
  @inline(__always)
  func readTraitDiffers(in current: _Storage) -> Bool {
    guard baseline !== current else { return false }
    return traits.contains(where: { !current.slotEqual(at: $0, to: baseline) })
      // NB: comparisons in tracked closures are rare: their traits are looked at out of line
      // (traitkit-bench S7).
      || (compared != .none && comparedTraitDiffers(in: current))
  }

  /// Whether a trait that a comparison read holds a value in `current`, a collection of the
  /// node, other than in the baseline.
  @inline(never)
  private func comparedTraitDiffers(in current: _Storage) -> Bool {
    let baseline = self.baseline
    for index in 0..<Swift.max(current.count, baseline.count) where compared.includes(index) {
      if !current.slotEqual(at: index, to: baseline) { return true }
    }
    return false
  }

  /// The traits the run read: every trait after a comparison.
  var readFilter: _TraitFilter {
    compared == .none ? traits.filter : .all
  }

  /// The traits the run read, between collections `lhs` and `rhs` of the node, for which
  /// `differs` holds: those read by themselves, and those that a comparison read (beyond the
  /// slots of both, every trait holds its default in both).
  func readTraits(in lhs: _Storage, _ rhs: _Storage, where differs: (Int) -> Bool) -> _TraitFilter {
    var found = _TraitFilter.none
    for index in traits where differs(index) { found |= _TraitFilter(index: index) }
    guard compared != .none else { return found }
    for index in 0..<Swift.max(lhs.count, rhs.count) where compared.includes(index) {
      if differs(index) { found |= _TraitFilter(index: index) }
    }
    return found
  }

  /// Records the first read in this run of the trait with dense index `index`, one beyond the
  /// first 64.
  @inline(never)
  private func recordFirstRead(_ index: Int) {
    traits.insert(index)
    let bit = _TraitFilter(index: index)
    // NB: re-tracking the same reads ends here: the filter keeps the bits of earlier runs.
    guard !filter.contains(bit) else { return }
    recordNewTrait(bit)
  }

  /// Publishes a trait this recorder never recorded before.
  @inline(never)
  private func recordNewTrait(_ bit: _TraitFilter) {
    filter |= bit
    node._trackingState().observed |= bit
    node._observedHere |= bit
    node._propagateObserved(bit)
  }
}
