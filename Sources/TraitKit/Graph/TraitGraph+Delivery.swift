// The update pass at one node: tracking invalidations, then registrations in the order they
// were made, then legacy callbacks; each called at most once per round.

extension TraitGraph {
  /// Delivers, at one node, what `pending` may have changed: tracking invalidations first, then
  /// registrations, then legacy callbacks.
  ///
  /// `pending` grows by the traits that the node's own handlers change here, so that the node's
  /// later registrations and its subtree hear of them in this round.
  func _visit(_ reference: Unmanaged<TraitNode>, pending: inout _TraitFilter) {
    _lastPass.nodesVisited += 1
    guard reference._withUnsafeGuaranteedRef({ pending.intersects($0._observedHere) }) else {
      // NB: the walk visits a node for the observers below it, whose collections are made from
      // its own: brought up to date now, in pre-order, each refresh finds its parent current,
      // rather than the first observer below collecting the stale chain above it
      // (traitkit-bench S2, S3, `compare`: up to 4% fewer instructions in the pass).
      reference._withUnsafeGuaranteedRef { _ = $0._resolvedReference() }
      return
    }
    // NB: the node, its registration table and its tracking state unretained: the tree keeps
    // the node for the pass (or, once detached, the graveyard does), and the node keeps the other
    // two until it deinitializes (traitkit-bench S2).
    reference._withUnsafeGuaranteedRef { node in
      _visitWidening = .none
      _visitPending = pending
      defer {
        // What handlers changed here, or above, during the visit reaches the subtree this round.
        pending |= node._pending | (_visitWidening & ~node._shield)
        _visitWidening = .none
        _visitPending = .none
      }
      defer { node._observedHere = node._ownObserved }
      // NB: the node's collection unretained: its owner (the node, an ancestor or the base
      // traits) keeps it until a value or the tree changes, and from then on the pass does
      // (`_valuesDidChange()`). A retain here cost two atomic operations per visited node
      // (traitkit-bench S1, `compare`).
      var storage = node._resolvedReference()
      // NB: the epoch `storage` was resolved at: an invalidation or a handler that changes values
      // makes the registrations after it compare with, and see, the node's collection as it is.
      var storageEpoch = _epoch
      _currentCell.storage = storage
      _currentCell.node = reference
      defer {
        _currentCell.storage = nil
        _currentCell.node = nil
      }
      if let tracking = node._tracking.map(Unmanaged.passUnretained),
        tracking._withUnsafeGuaranteedRef({ pending.intersects($0.observed) })
      {
        _lastPass.invalidationsDelivered += tracking._withUnsafeGuaranteedRef { tracking in
          storage._withUnsafeGuaranteedRef {
            tracking.invalidate(node, current: $0, pass: _passNumber, recyclingInto: self)
          }
        }
        // R10, R11: an invalidation that took the node out of this graph ended its slots'
        // invalidations here, before some were compared: what this visit had to tell them waits
        // at the node for a pass of the graph it is in then, as `_deliver` keeps it for
        // registrations. The move marks only the moved subtree's root, and an override between
        // that root and the node keeps from the node a change that this visit took (one that
        // the node's own move under that override made): a slot compared before that move
        // missed its invalidation.
        if _epoch != storageEpoch, !node._isIn(self) {
          node._keepPending(pending)
          return
        }
      }
      guard let observers = node._observers, pending.intersects(observers.observed) else {
        return
      }
      observers.deliveryDepth += 1
      let end = observers.count
      if end == 1, observers.deliveryDepth == 1, _epoch == storageEpoch,
        observers.hasSoleBaseline, observers.entries[0].isLiveExactRegistration(using: 0),
        pending.intersects(observers.entries[0].filter)
      {
        _deliverSole(node, observers, storage: storage)
      } else {
        _deliver(node, &storage, at: &storageEpoch, pending: &pending, end: end, allTraits: false)
      }
      // NB: the table read from the node again: a handler that registered there may have moved
      // it.
      if node._observers.unsafelyUnwrapped.allTraitsCount > 0 {
        _deliver(node, &storage, at: &storageEpoch, pending: &pending, end: end, allTraits: true)
      }
      let table = node._observers.unsafelyUnwrapped
      table.deliveryDepth -= 1
      table.compactIfIdle()
    }
  }

  /// Delivers at a node whose table holds one registration — live, observing exactly the traits
  /// its summary stands for, some of them pending, the table's only baseline its own — as
  /// `_deliver` does, without its loop: when its traits changed from its baseline to `storage`,
  /// the baseline's slot takes `storage` and the registration is called with the baseline.
  ///
  /// - Precondition: the delivery is not nested in another at the node, and no value or the
  ///   tree changed since `storage` was resolved.
  // NB: most observing nodes of a tree have one registration; `_deliver`'s loop, memo and
  // checks cost about 200 instructions a call of it (traitkit-bench S2).
  private func _deliverSole(
    _ node: TraitNode,
    _ observers: _NodeObservers,
    storage: Unmanaged<_Storage>
  ) {
    let entry = observers.entries[0]
    let previous = observers.baselineReference(0)
    guard _sawExactChange(entry, at: node, in: storage, from: previous) else { return }
    _recycleAfterPass(observers.rebaseSoleBaseline(to: storage))
    // NB: the callee stays alive until compaction, which waits for this delivery to end.
    let alive = previous._withUnsafeGuaranteedRef { previous in
      entry.call(node, TraitCollection(_storage: previous))
    }
    guard alive else {
      _cancelIfLive(node, at: 0)
      return
    }
    _lastPass.callbacksDelivered += 1
  }

  /// Calls, in order, the registrations among the node's first `end` whose traits changed.
  ///
  /// `storage` is the node's collection as resolved at `epoch`; a handler that changes the node's
  /// traits makes the next registrations compare with, and see, the new collection.
  private func _deliver(
    _ node: TraitNode,
    _ storage: inout Unmanaged<_Storage>,
    at epoch: inout UInt64,
    pending: inout _TraitFilter,
    end: Int,
    allTraits: Bool
  ) {
    // Registrations made or called together share a snapshot and usually their traits: look up
    // the snapshot and compare once for all of them.
    var current: Int32 = -1
    var memoSnapshot: Int32 = -1
    var memoEdits = node._observers.unsafelyUnwrapped.edits
    // NB: the baseline unretained: a snapshot keeps it, and a snapshot released during the pass
    // leaves it in the recycling list of the outermost pass until that ends (traitkit-bench S2).
    var previous = storage
    // NB: the summary of the traits compared last, 0 for none.
    var memoSummary: UInt64 = 0
    var memoChanged = false
    var callbacks = 0
    var legacyCallbacks = 0
    var wastedLegacyCallbacks = 0
    // A delivery nested in a callback of another's run ends that run first: the users it called
    // move to the collection they saw, which this delivery compares with.
    // NB: a delivery reads the run's fields, on the header's second line, only here when
    // nested, and in a run of its own.
    if node._observers.unsafelyUnwrapped.deliveryDepth > 1 {
      node._observers.unsafelyUnwrapped.endRun(recyclingInto: self)
    }
    defer {
      _lastPass.callbacksDelivered += callbacks
      _lastPass.legacyCallbacksDelivered += legacyCallbacks
      _lastPass.wastedLegacyCallbacks += wastedLegacyCallbacks
    }
    var next = 0
    while next < end {
      let position = next
      next += 1
      if _epoch != epoch {
        // A handler changed values or the tree: see the node's collection as it is now, and
        // deliver the traits it changed here to the later registrations too. A node a handler
        // detached, or moved to another graph, hears of nothing more from this pass (R10).
        guard node._isIn(self) else {
          // What this visit had to tell it waits for a pass of the graph it is in then.
          node._keepPending(pending)
          return
        }
        epoch = _epoch
        pending |= node._pending | (_visitWidening & ~node._shield)
        let fresh = node._resolvedReference()
        if fresh.toOpaque() != storage.toOpaque() {
          storage = fresh
          _currentCell.storage = storage
          memoSummary = 0
        }
      }
      // NB: the table read from the node at each step, after anything that may have run user
      // code: a handler or a deinitializer that registered on the node may have moved it.
      let observers = node._observers.unsafelyUnwrapped
      guard position < observers.count else { return }
      let entry = observers.entries[position]
      guard entry.isLive, entry.observesAllTraits == allTraits, pending.intersects(entry.filter)
      else { continue }
      if entry.snapshot == current, observers.snapshot(current, holds: storage) { continue }
      // NB: the memo holds while the table counted no edit since, such as a slot that took a
      // collection: a slot freed and filled again during the delivery holds another one.
      if entry.snapshot != memoSnapshot || observers.edits != memoEdits {
        memoSnapshot = entry.snapshot
        memoEdits = observers.edits
        let baseline = observers.baselineReference(entry.snapshot)
        if baseline.toOpaque() != previous.toOpaque() {
          previous = baseline
          memoSummary = 0
        }
      }
      let changed: Bool
      if entry.filterIsExact, memoSummary == entry.summary, memoSummary != 0 {
        changed = memoChanged
      } else if entry.filterIsExact {
        changed = _sawExactChange(entry, at: node, in: storage, from: previous)
        memoSummary = entry.summary
        memoChanged = changed
      } else {
        changed = storage._withUnsafeGuaranteedRef { storage in
          previous._withUnsafeGuaranteedRef { entry.sawChange(in: storage, from: $0) }
        }
      }
      guard changed else { continue }
      if observers.hasSoleBaseline {
        // NB: the registration alone uses the table's one baseline: the slot takes the
        // collection in place, so that such a table never needs a second slot (traitkit-bench
        // S1, S9).
        _recycleAfterPass(observers.rebaseSoleBaseline(to: storage))
        current = 0
      } else if !allTraits, entry.filterIsExact,
        // NB: once an entry moved to a slot that holds the collection, no run starts until the
        // collection changes: the slot that holds it stays the only one.
        !observers.snapshot(current, holds: storage),
        observers.mayRun(of: entry.snapshot, from: position, end: end)
      {
        // The next users of this baseline see the same change: call them in a run
        // (traitkit-bench S1).
        (next, current) = storage._withUnsafeGuaranteedRef {
          _deliverRun(
            node,
            from: position,
            end: end,
            slot: entry.snapshot,
            summary: entry.summary,
            storage: $0,
            baseline: previous,
            callbacks: &callbacks
          )
        }
        continue
      } else {
        if !observers.snapshot(current, holds: storage) {
          current = storage._withUnsafeGuaranteedRef { observers.snapshot(for: $0) }
        }
        observers.use(current)
        observers.release(entry.snapshot, recyclingInto: self)
        observers.move(position, to: current)
      }
      // NB: judged before the call, which may change the node's collection.
      let wasted =
        allTraits
        && entry.box.unsafelyUnwrapped._withUnsafeGuaranteedRef { box in
          guard let interesting = box.traitList?.set, !interesting.isEmpty else { return false }
          return storage._withUnsafeGuaranteedRef { storage in
            previous._withUnsafeGuaranteedRef { previous in
              !interesting.contains { !storage.slotEqual(at: $0, to: previous) }
            }
          }
        }
      // NB: the callee stays alive until compaction, which waits for this delivery to end.
      let alive = previous._withUnsafeGuaranteedRef { previous in
        entry.call(node, TraitCollection(_storage: previous))
      }
      guard alive else {
        _cancelIfLive(node, at: position)
        continue
      }
      if allTraits {
        legacyCallbacks += 1
        if wasted { wastedLegacyCallbacks += 1 }
      } else {
        callbacks += 1
      }
    }
  }

  /// Calls, as a run (see `_NodeObservers.beginRun`), the registrations from `position` on that
  /// use snapshot `slot` and observe exactly the traits `summary` stands for, while they follow
  /// one another and nothing changes; returns the position after the last one called, and the
  /// snapshot slot that holds `storage` then, or -1 when none is known to.
  ///
  /// Each sees the change the first saw, from `baseline`, the slot's collection, to `storage`.
  ///
  /// - Precondition: the registration at `position` is one of them and sees a change.
  // NB: out of line, in a loop of its own that reads no more than a user needs: the delivery
  // loop stays as lean as it was for tables without runs (traitkit-bench S1, S9).
  @inline(never)
  private func _deliverRun(
    _ node: TraitNode,
    from position: Int,
    end: Int,
    slot: Int32,
    summary: UInt64,
    storage: _Storage,
    baseline: Unmanaged<_Storage>,
    callbacks: inout Int
  ) -> (next: Int, holder: Int32) {
    let first = node._observers.unsafelyUnwrapped
    let (entryCount, liveCount) = (first.entryCount, first.liveEntryCount)
    #if TRAITKIT_INTERNAL_CHECKS
    precondition(_runNode == nil, "Invariant: a graph runs one run at a time")
    let epoch = _epoch
    precondition(
      first.entries[position].isLiveExactRegistration(using: slot)
        && first.entries[position].summary == summary,
      "Invariant: a run starts at one of its users"
    )
    #endif
    _runNode = Unmanaged.passUnretained(node)
    // NB: the baseline retained once for the run, and the loop in this function's body rather
    // than in a closure, where its counts would live in memory (traitkit-bench S1).
    let previous = TraitCollection(_storage: baseline.takeUnretainedValue())
    let stride = MemoryLayout<_Registration>.stride
    let endOffset = _NodeObservers.entryOffset(end)
    var frame = _RunFrame(
      calledOffset: _NodeObservers.entryOffset(position),
      limit: endOffset,
      uncalled: 0,
      start: Int32(truncatingIfNeeded: position),
      storage: Unmanaged.passUnretained(storage)
    )
    // NB: one position, of the next entry to look at, advanced past a user or a tombstone once
    // the entry is known to be one, so that the entry that ends the run needs no step back.
    // The position is the entry's byte offset in the table, as the frame holds it: the loop
    // then keeps one register for it, where an index also needs the offset it addresses the
    // entry by (S1: 24.4 → 22.4 instructions per callback at K=4096).
    var offset = frame.calledOffset &+ stride
    withUnsafeMutablePointer(to: &frame) { frame in
      first.beginRun(of: slot, frame: frame)
      if !first.entries[position].call(node, previous) {
        _runUserDied(of: node, at: position, uncalled: &frame.pointee.uncalled)
      }
      // NB: the limit read before each step, and the entry only then: 0 once a handler changed
      // a value or the tree, a nested delivery ended the run, or a registration moved the table.
      while frame.pointee.limit != 0, offset < endOffset {
        // The table where it is now, which stays there until the limit is 0.
        let table = node._observers.unsafelyUnwrapped
        let next = _NodeObservers.entryPosition(atOffset: offset)
        frame.pointee.limit = Swift.min(
          table.extent(of: slot, summary: summary, from: next),
          endOffset
        )
        // NB: the extent's handlers called without a look at their entries, nor at the node's
        // table again: its users, and tombstones of them, whose handler counts them as not
        // called (traitkit-bench S1).
        while offset < frame.pointee.limit {
          #if TRAITKIT_INTERNAL_CHECKS
          _checkRunStep(node, table, offset: offset, slot: slot, summary: summary, epoch: epoch)
          #endif
          let entry = table.entry(atOffset: offset)
          frame.pointee.calledOffset = offset
          offset &+= stride
          entry.handler(node, previous)
        }
        guard frame.pointee.limit != 0, offset < endOffset else { break }
        // An entry the extent does not cover: another form of registration among the users,
        // a tombstone of one, or the end of the run.
        let entry = table.entry(atOffset: offset)
        if entry.isLiveRegistrationContinuingTraits(using: slot) {
          frame.pointee.calledOffset = offset
          offset &+= stride
          if !entry.call(node, previous) {
            let user = _NodeObservers.entryPosition(atOffset: offset) &- 1
            _runUserDied(of: node, at: user, uncalled: &frame.pointee.uncalled)
          }
        } else if entry.isLive || entry.summary != summary {
          // Another baseline or other traits, or a tombstone of other traits, after which the
          // next entry may continue those.
          break
        } else {
          offset &+= stride
          frame.pointee.uncalled &+= 1
        }
      }
      node._observers.unsafelyUnwrapped.runFrame = nil
    }
    let user = _NodeObservers.entryPosition(atOffset: offset)
    _runNode = nil
    let called = Int32(truncatingIfNeeded: user &- position) &- frame.uncalled
    callbacks += Int(called)
    let (replaced, holder) = node._observers.unsafelyUnwrapped.finishRun(
      of: slot,
      called: called,
      frame: frame,
      entryCount: entryCount,
      liveCount: liveCount,
      recyclingInto: self
    )
    if let replaced { _recycleAfterPass(replaced) }
    return (user, holder)
  }

  #if TRAITKIT_INTERNAL_CHECKS
  /// Checks that the entry at byte offset `offset` of `table`, which a run's loop is about to
  /// call without looking at it, is one of its users or a tombstone of one whose handler counts
  /// it as not called; that the table is still the node's; and that no value changed.
  @inline(never)
  private func _checkRunStep(
    _ node: TraitNode,
    _ table: _NodeObservers,
    offset: Int,
    slot: Int32,
    summary: UInt64,
    epoch: UInt64
  ) {
    let current = node._observers.unsafelyUnwrapped
    let entry = table.entry(atOffset: offset)
    precondition(current.base == table.base, "Invariant: a run's table stays where it is")
    precondition(
      entry.isLiveHandlerContinuingTraits(using: slot) && entry.summary == summary
        || entry.isHandlerTombstone(of: summary) && entry.isSilenced,
      "Invariant: a run's extent covers its users, and silenced tombstones of them"
    )
    precondition(
      _NodeObservers.entryPosition(atOffset: offset) < current.count && current.runSlot == slot,
      "Invariant: a run's users stay in its node's table while it runs"
    )
    precondition(_epoch == epoch, "Invariant: a change of values or of the tree stops a run")
  }
  #endif

  /// Counts the registration at `position` of `node`, a run's user whose callee found its
  /// observed object gone, as not called, and cancels it unless its handler did.
  // NB: out of line, so that the run loop keeps no more than a call needs (traitkit-bench S1).
  @inline(never)
  private func _runUserDied(of node: TraitNode, at position: Int, uncalled: inout Int32) {
    uncalled &+= 1
    _cancelIfLive(node, at: position)
  }

  /// Whether the traits of `entry`, a registration of `node` whose summary stands for its traits
  /// exactly, differ between `previous` and `storage`.
  // NB: the pass's cache only where another node may ask the same question: nodes share a
  // collection only down a chain of nodes without overrides, so a leaf that owns its
  // collection, or a root without children, is the one node to compare with it
  // (traitkit-bench S1: about 50 instructions a write).
  @inline(__always)
  private func _sawExactChange(
    _ entry: _Registration,
    at node: TraitNode,
    in storage: Unmanaged<_Storage>,
    from previous: Unmanaged<_Storage>
  ) -> Bool {
    storage._withUnsafeGuaranteedRef { storage in
      previous._withUnsafeGuaranteedRef { previous in
        node._mayShareResolved
          ? _changeCache.sawChange(entry, in: storage, from: previous)
          : entry.sawChange(in: storage, from: previous)
      }
    }
  }

  /// Cancels the registration at `position` of `node`, whose callee found its observed object
  /// gone, unless its handler did.
  // NB: the table read from the node again: a handler that registered there may have moved it.
  // Entries keep their positions while a delivery walks them (compaction waits).
  @inline(__always)
  private func _cancelIfLive(_ node: TraitNode, at position: Int) {
    let table = node._observers.unsafelyUnwrapped
    if table.entries[position].isLive { node._killRegistration(at: position, in: table) }
  }
}
