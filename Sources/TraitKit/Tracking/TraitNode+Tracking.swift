extension TraitNode {
  // NB: inlinable, around two calls that begin and end the run: a client calls `body` in place,
  // with no generic entry point and no reabstraction thunk between (traitkit-bench S7).
  /// Runs `body` while recording every trait it reads through a node's ``traitCollection``, so
  /// that a later change of one of those traits runs `invalidation`.
  ///
  /// The counterpart of UIKit's automatic trait tracking. The record is kept per (node, slot) and
  /// each run replaces the slot's previous one, so the dependencies are exactly those of the
  /// last run. Reads made through a collection obtained inside `body` count too, and so do reads
  /// of other nodes of the same tree: a change of a recorded trait on the node it was read from
  /// runs `invalidation` during the next update pass, before that node's registrations, at most
  /// once per pass — once more if the slot runs again during that pass and a trait it reads
  /// then changes later in it. Nested tracked closures record into the innermost slot only; a
  /// slot run again from inside its own run continues that run. Reads outside any tracked
  /// closure record nothing; while no tracked closure runs anywhere in the process, a read checks
  /// for one with a single relaxed atomic load.
  ///
  /// A host wraps the methods it tracks; a view's layout looks like this:
  ///
  /// ```swift
  /// final class MyView: TraitNode {
  ///   var needsLayout = true
  ///
  ///   func layoutIfNeeded() {
  ///     guard needsLayout else { return }
  ///     needsLayout = false
  ///     withTraitTracking(slot: .layout, invalidation: { ($0 as! MyView).needsLayout = true }) {
  ///       layoutSubviews()
  ///     }
  ///   }
  ///
  ///   func layoutSubviews() {
  ///     if traitCollection.horizontalSizeClass == .compact {
  ///       // Apply compact layout.
  ///     } else {
  ///       // Apply regular layout.
  ///     }
  ///   }
  /// }
  /// ```
  ///
  /// Re-running a slot that reads the same traits as last time allocates nothing, as long as
  /// `invalidation` captures nothing: it receives the node, so it need not.
  ///
  /// - Parameters:
  ///   - slot: The tracked method's slot.
  ///   - invalidation: Called with this node when a recorded trait changes.
  ///   - body: The code whose reads to record.
  /// - Returns: What `body` returns.
  @inlinable
  public final func withTraitTracking<R>(
    slot: TraitTrackingSlot,
    invalidation: @escaping (TraitNode) -> Void,
    _ body: () throws -> R
  ) rethrows -> R {
    let run = _beginTrackedRun(slot: slot, invalidation: invalidation)
    defer { _endTrackedRun(run) }
    return try body()
  }

  /// Starts a run of `slot`'s tracked closure on this thread: the slot's record, made on first
  /// use, takes `invalidation` and becomes the thread's innermost.
  @usableFromInline
  final func _beginTrackedRun(
    slot: TraitTrackingSlot,
    invalidation: @escaping (TraitNode) -> Void
  ) -> _TrackedRun {
    // NB: nothing is retained: the node keeps its tracking state until it deinitializes, and the
    // state keeps the record for the run even if the body removes the slot.
    let record = _trackingStateReference._withUnsafeGuaranteedRef {
      $0.record(for: slot, owner: self)
    }
    let enclosing = record._withUnsafeGuaranteedRef { record in
      record.invalidation = invalidation
      record.beginRun()
      return _TrackingRecord.enter(record)
    }
    return _TrackedRun(record: record, enclosing: enclosing)
  }

  /// Ends `run`, which `_beginTrackedRun` started on this node: the enclosing run becomes the
  /// thread's innermost again.
  @usableFromInline
  final func _endTrackedRun(_ run: _TrackedRun) {
    _TrackingRecord.leave(restoring: run.enclosing)
    // NB: a run that leaves work — a change of the tree during it, dependencies to drop — ends
    // out of line (traitkit-bench S7).
    guard run.record._withUnsafeGuaranteedRef({ $0.endsWithoutWork }) else {
      _endTrackedRunLeavingWork(run)
      return
    }
    run.record._withUnsafeGuaranteedRef { record in
      if record.runs > 1 { record.leaveReentry(hiding: run.enclosing) }
      record.endRun()
      if !record.isLive {
        _trackingStateReference._withUnsafeGuaranteedRef { $0.runDidEnd(afterRemoving: record) }
      }
    }
  }

  /// Ends `run` when it leaves work: it may have read values that its nodes no longer hold, or
  /// that no one collection holds, so the nodes it read are checked once the run is over; or it
  /// did not touch dependencies of the run before, which go.
  @inline(never)
  private final func _endTrackedRunLeavingWork(_ run: _TrackedRun) {
    // NB: retained: the work runs user code, which may remove the slot and free its record.
    let record = run.record.takeUnretainedValue()
    // A change during this run took place during the enclosing one too.
    if record.readsMayBeStale, let enclosing = run.enclosing {
      Unmanaged<_TrackingRecord>.fromOpaque(enclosing)._withUnsafeGuaranteedRef {
        $0.readsMayBeStale = true
      }
    }
    if record.runs > 1 { record.leaveReentry(hiding: run.enclosing) }
    let work = record.endRunLeavingWork()
    if !record.isLive {
      _trackingStateReference._withUnsafeGuaranteedRef { $0.runDidEnd(afterRemoving: record) }
    }
    work?.perform()
  }

  /// Drops the record of `slot`: its invalidation will not run again until the slot is tracked
  /// anew.
  ///
  /// - Parameter slot: The slot to forget.
  public final func removeTraitTracking(slot: TraitTrackingSlot) {
    _tracking?.removeRecord(for: slot)
  }

  final func _trackingState() -> _NodeTracking {
    _trackingStateReference.takeUnretainedValue()
  }

  /// The node's tracking state, created on first use, unretained.
  final var _trackingStateReference: Unmanaged<_NodeTracking> {
    if let tracking = _tracking { return Unmanaged.passUnretained(tracking) }
    let tracking = _NodeTracking()
    _tracking = tracking
    return Unmanaged.passUnretained(tracking)
  }
}

/// A tracked closure's run under way: its slot's record, and the record its start hid.
@usableFromInline
struct _TrackedRun {
  /// Unretained: the node's tracking state keeps it for the run (see `_beginTrackedRun`).
  @usableFromInline let record: Unmanaged<_TrackingRecord>
  @usableFromInline let enclosing: UnsafeMutableRawPointer?

  @usableFromInline
  init(record: Unmanaged<_TrackingRecord>, enclosing: UnsafeMutableRawPointer?) {
    self.record = record
    self.enclosing = enclosing
  }
}
