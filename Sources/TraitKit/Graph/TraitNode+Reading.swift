import Synchronization

// A node's collection: the cell a read checks and follows, and its refresh when a value or the
// tree changed.

extension TraitNode {
  // NB: inlinable, with an out-of-line slow path, so that a read in a client is the epoch check
  // and the load (traitkit-bench S8).
  /// The node's traits: its parent's collection with the node's overrides applied.
  ///
  /// Always current: it reflects every override and move made so far, before or after the update
  /// pass. Reading it costs one comparison while nothing has changed.
  @inlinable
  public final var traitCollection: TraitCollection {
    // NB: an addressor, not a getter: a client that reads a trait from the result borrows the
    // collection in place and retains nothing; a getter returns its result retained, two atomic
    // operations on the storage per read (traitkit-bench S8). The fast path calls nothing that
    // may release, and the slow path is one call: a client then retains the node only on the
    // slow path. A tracked read's cell is one per thread: this relies on the compiler copying
    // a value out of an addressor before it evaluates anything else, as it does for any value
    // it cannot prove unchanged (InPlaceReadLifetimeTests checks two reads in one expression).
    @inline(__always) unsafeAddress {
      if _resolvedIsCurrent && _readGateIsOpen() {
        return _resolvedCollection
      }
      return _traitCollectionSlowPath()
    }
  }

  /// `traitCollection` when the cache is stale, the node is detached, or a tracked closure runs.
  ///
  /// The address is the storage's own collection cell, which the tree keeps until its next
  /// change, or, for a read a tracked closure records, this thread's tracked-read cell, valid
  /// until the thread's next tracked read.
  @usableFromInline
  final func _traitCollectionSlowPath() -> UnsafePointer<TraitCollection> {
    // NB: first, nearly every tracked read: one of a current node that the innermost tracked
    // closure has read already in this run. Nothing on that path can release anything, so the
    // collection needs no second look, and it calls nothing (traitkit-bench S7).
    if _resolvedIsCurrent, let record = _TrackingRecord.active,
      let recorder = record._withUnsafeGuaranteedRef({ $0.recentDependency(touchedOn: self) })
    {
      return _ThreadLocals.trackedRead(_resolvedRef, recorder: recorder)
    }
    return _traitCollectionResolvingSlowPath()
  }

  /// `_traitCollectionSlowPath()` when the node may need to be resolved again, or a tracked read
  /// may need to start or find its recorder.
  @inline(never)
  final func _traitCollectionResolvingSlowPath() -> UnsafePointer<TraitCollection> {
    while true {
      let storage = _resolvedReference()
      guard _isRecordingTraitReadsAnywhere(), let recorder = _recorderForRead() else {
        return storage._withUnsafeGuaranteedRef { $0._collection }
      }
      // NB: `_recorderForRead` may release a recorder's old baseline, whose values'
      // deinitializers may change the tree: yield the storage only if it is still current.
      if _resolvedRef.toOpaque() == storage.toOpaque() && _resolvedEpoch == _currentEpoch {
        return _ThreadLocals.trackedRead(storage, recorder: recorder)
      }
    }
  }

  /// The resolved collection, valid while `_resolvedEpoch` equals the tree's epoch.
  ///
  /// A node with overrides owns it (`_ownsResolved`, one retain). A node without shares its
  /// parent's, unretained — ultimately the collection of the nearest ancestor with overrides or
  /// of the graph's base traits. Every read validates the epoch first, and any change to that
  /// owner advances the epoch, so a shared reference is never followed after its owner let go.
  /// Sharing costs no reference counting, which matters on a pass down a long chain.
  @inlinable final var _resolvedRef: Unmanaged<_Storage> {
    @inline(__always) get { _resolvedCell.storage }
    @inline(__always) set {
      _resolvedCell = (
        newValue, TraitCollection._countWord(newValue._withUnsafeGuaranteedRef { $0.count })
      )
    }
  }

  /// The node's resolved collection cell, as a collection: valid while the node lives, and
  /// current while `_resolvedIsCurrent` holds.
  @inlinable @inline(__always)
  final var _resolvedCollection: UnsafePointer<TraitCollection> {
    // NB: the address of the stored cell itself, used after the closure returns. The language
    // promises that address only inside the closure; it holds here because the property is
    // final, stored, without observers, in a module built without library evolution, so the
    // compiler accesses it in place, and `@exclusivity(unchecked)` leaves no access to end.
    // Keep it so. InPlaceReadTests checks that the address lies inside the node, stays put,
    // and has a TraitCollection's layout.
    withUnsafeMutablePointer(to: &_resolvedCell) {
      UnsafeRawPointer($0).assumingMemoryBound(to: TraitCollection.self)
    }
  }

  /// Whether `_resolvedRef` is current: the node is in a graph whose epoch it was resolved at.
  @inlinable @inline(__always)
  final var _resolvedIsCurrent: Bool {
    guard let graph = _graphRef else { return false }
    return _resolvedEpoch == graph._withUnsafeGuaranteedRef { $0._epoch }
  }

  /// Whether another node may resolve to the same collection as this node: it has children,
  /// which share it while they have no overrides, or it has a parent whose collection it shares.
  @inline(__always) final var _mayShareResolved: Bool {
    _children.count != 0 || (!_ownsResolved && _parentRef != nil)
  }

  /// The recorder for a read of this node's collection inside a tracked closure running on this
  /// thread, if any.
  ///
  /// - Precondition: `_resolvedRef` is current (the caller revalidated it).
  @inline(__always)
  final func _recorderForRead() -> Unmanaged<_TraitReadRecorder>? {
    // NB: a record removed while it runs records nothing: its dependencies would never be
    // swept from the nodes they watch.
    guard let record = _TrackingRecord.active,
      record._withUnsafeGuaranteedRef({ $0.isLive && $0.isRecording })
    else { return nil }
    let storage = _resolvedRef
    return record._withUnsafeGuaranteedRef { $0.dependency(on: self, storage: storage) }
  }

  /// The resolved storage, recomputed when something changed since the last read.
  @inline(__always) final func _resolvedStorage() -> _Storage {
    _resolvedReference().takeUnretainedValue()
  }

  /// The resolved storage, recomputed when something changed since the last read, unretained:
  /// the tree keeps it until its next change.
  @inline(__always) final func _resolvedReference() -> Unmanaged<_Storage> {
    var epoch = _currentEpoch
    // NB: a refresh releases what it replaces, which may run a value's deinitializer that
    // changes the tree: revalidate until the node is current.
    while _resolvedEpoch != epoch {
      _revalidate(epoch: epoch)
      epoch = _currentEpoch
    }
    return _resolvedRef
  }

  @inline(__always) final var _currentEpoch: UInt64 {
    guard let graph = _graphRef else { return TraitNode._detachedEpoch.load(ordering: .relaxed) }
    return graph._withUnsafeGuaranteedRef { $0._epoch }
  }

  /// Brings this node and its stale ancestors up to date, top-down, without recursion.
  // NB: the common case first, in a function that needs no saved registers: a node without
  // overrides or a collection of its own, under a current parent, shares the parent's
  // collection (traitkit-bench S2, S3: a pass refreshes each node it visits this way; 38 → 16
  // instructions for such a node, S3 at D=1024 −7% per write).
  @inline(never)
  final func _revalidate(epoch: UInt64) {
    if _overrides == nil, !_ownsResolved, let parent = _parentRef {
      let parentState = parent._withUnsafeGuaranteedRef { ($0._resolvedEpoch, $0._resolvedCell) }
      if parentState.0 == epoch {
        _resolvedCell = parentState.1
        _resolvedEpoch = epoch
        return
      }
    }
    _revalidateInFull(epoch: epoch)
  }

  /// Brings this node and its stale ancestors up to date, top-down, without recursion (see
  /// ``_revalidate(epoch:)``).
  @inline(never)
  private final func _revalidateInFull(epoch: UInt64) {
    guard let parent = _parentRef else {
      _refresh(inheriting: _baseCell, epoch: epoch)
      return
    }
    let parentState = parent._withUnsafeGuaranteedRef { ($0._resolvedEpoch, $0._resolvedCell) }
    if parentState.0 == epoch {
      _refresh(inheriting: parentState.1, epoch: epoch)
      return
    }
    _revalidateStaleChain(epoch: epoch)
  }

  /// Brings this node and its stale ancestors up to date, top-down, without recursion, when the
  /// parent is stale too.
  // NB: out of line, apart from the refresh from a current parent: its stack buffer costs a
  // stack-protector check and a larger frame on every call.
  @inline(never)
  private final func _revalidateStaleChain(epoch: UInt64) {
    // NB: the stale ancestors are collected on the native stack when there are few (a pass
    // revalidates each observing node it visits, usually a few levels below a current ancestor),
    // and continue in the graph's scratch array beyond that (traitkit-bench S2, S3).
    /// The stale parent of `node`, if any: the next node to refresh before it.
    func staleParent(of node: Unmanaged<TraitNode>) -> Unmanaged<TraitNode>? {
      guard let parent = node._withUnsafeGuaranteedRef({ $0._parentRef }),
        parent._withUnsafeGuaranteedRef({ $0._resolvedEpoch != epoch })
      else { return nil }
      return parent
    }
    // NB: each refresh lets go of what it replaced last, which can run a value's deinitializer,
    // and that can read and change the tree (helper-66's review, `ChainRefreshDeinitializerTests`):
    // - A read there may bring nodes of the chain up to date. Such a node is skipped: refreshed
    //   again after an override of a value it already has, it would make its collection anew
    //   and let go of the one that the nodes the read refreshed below it share unretained.
    // - A change of a value or of the tree ends the chain: a write to a current node above
    //   applies itself at once and lets go of the collection a node refreshed before shares
    //   unretained, and a node of the chain may be gone. The caller, `_resolvedReference()`,
    //   revalidates from the new epoch.
    let graph = _graphRef
    /// Refreshes `node`, unless it is current; false, without looking at it, when a value or the
    /// tree changed since the chain was collected.
    func refresh(_ node: Unmanaged<TraitNode>) -> Bool {
      guard _graphRef?.toOpaque() == graph?.toOpaque(), _currentEpoch == epoch else {
        return false
      }
      node._withUnsafeGuaranteedRef {
        if $0._resolvedEpoch != epoch { $0._refresh(fromParentAt: epoch) }
      }
      return true
    }
    withUnsafeTemporaryAllocation(of: Unmanaged<TraitNode>.self, capacity: 16) { buffer in
      var count = 0
      var next: Unmanaged<TraitNode>? = Unmanaged.passUnretained(self)
      while let node = next, count < buffer.count {
        buffer[count] = node
        count += 1
        next = staleParent(of: node)
      }
      if next != nil {
        // More than fits: the rest, from the 17th node up, in the scratch array.
        var chain = _graph?._takeScratch() ?? []
        while let node = next {
          chain.append(node)
          next = staleParent(of: node)
        }
        var stopped = false
        for node in chain.reversed() where !refresh(node) {
          stopped = true
          break
        }
        _graph?._returnScratch(&chain)
        if stopped { return }
      }
      for position in stride(from: count - 1, through: 0, by: -1) where !refresh(buffer[position]) {
        return
      }
    }
  }

  /// Applies the node's overrides, which a write just changed, to its parent's collection (or
  /// its graph's base traits), and makes the node and its ancestors current at `epoch`, the
  /// epoch the write began; runs no user code.
  ///
  /// The write changed nothing above the node, so the ancestors' collections, current before
  /// it, are still right: a node is current only while its ancestors are (each refresh brings
  /// the stale ones up to date first), and marking them current again keeps that so. A node that
  /// applied its own write ahead of a stale parent could not trust the collection it had
  /// inherited: the parent's refresh may make its collection anew, with equal values, and let go
  /// of the old one.
  ///
  /// - Returns: The collections the node let go of, its own and the inherited one it kept, for
  ///   the caller to release once the node took the change: a release can run a trait value's
  ///   deinitializer.
  /// - Precondition: the node and its ancestors were current at the epoch before `epoch`, the
  ///   node has overrides' memory, and no in-place access of its overrides is under way.
  final func _applyOwnWrite(
    epoch: UInt64
  ) -> (replaced: Unmanaged<_Storage>?, inherited: Unmanaged<_Storage>?) {
    let released = _install(&_overrides.unsafelyUnwrapped.pointee, over: _parentOrBaseCell)
    _overridesChanged = false
    _resolvedEpoch = epoch
    var ancestor = _parentRef
    while let node = ancestor {
      ancestor = node._withUnsafeGuaranteedRef {
        #if TRAITKIT_INTERNAL_CHECKS
        precondition(
          $0._resolvedEpoch == epoch &- 1,
          "Invariant: the ancestors of a node current before a write were current too"
        )
        #endif
        $0._resolvedEpoch = epoch
        return $0._parentRef
      }
    }
    return released
  }

  /// Recomputes `_resolvedRef` from the parent's (current) collection, or from the base traits.
  @inline(__always) private final func _refresh(fromParentAt epoch: UInt64) {
    _refresh(inheriting: _parentOrBaseCell, epoch: epoch)
  }

  /// The cell of the collection this node inherits: its parent's, which the caller knows to be
  /// current, or its graph's base traits'.
  @inline(__always)
  private final var _parentOrBaseCell: (storage: Unmanaged<_Storage>, word: UInt) {
    _parentRef.map { $0._withUnsafeGuaranteedRef { $0._resolvedCell } } ?? _baseCell
  }

  /// What a parentless node inherits, as a collection cell: its graph's base traits, or the
  /// defaults when detached.
  final var _baseCell: (storage: Unmanaged<_Storage>, word: UInt) {
    guard let graph = _graphRef else {
      return (Unmanaged.passUnretained(_Storage.empty), TraitCollection._countWord(0))
    }
    return graph._withUnsafeGuaranteedRef {
      (Unmanaged.passUnretained($0._baseTraits._storage), $0._baseTraits._word)
    }
  }

  /// Recomputes `_resolvedRef` from `inherited`, the cell of the collection it inherits, when
  /// that or the overrides changed.
  @inline(__always) private final func _refresh(
    inheriting inheritedCell: (storage: Unmanaged<_Storage>, word: UInt),
    epoch: UInt64
  ) {
    // NB: the inherited cell's words are copied, not recomputed, when this node shares its
    // collection: a pass down a long chain loads no collection header (traitkit-bench S3).
    let inherited = inheritedCell.storage
    // NB: the collections this replaces are released last, once the node is current: a release
    // can run a trait value's deinitializer, which may read this node again.
    var replaced: Unmanaged<_Storage>?
    var replacedInherited: Unmanaged<_Storage>?
    // NB: an early return for the node with nothing to apply, the common one, rather than an
    // if-else around both cases: the pass down a chain refreshes it per node, and that shape
    // compiles to 6% fewer instructions there (traitkit-bench S3).
    // NB: an in-place access of the overrides holds their memory until it ends: their fields
    // are read only when none is under way.
    guard let overrides = _overrides,
      _overridesAccessed || !overrides.pointee._specified.isEmpty || _overridesChanged
    else {
      // No overrides to apply (a node that never wrote them has no storage for them): share.
      if _ownsResolved {
        replaced = _resolvedRef
        _ownsResolved = false
      }
      _resolvedCell = inheritedCell
      _resolvedEpoch = epoch
      if let replaced { _recycleReplaced(replaced) }
      return
    }
    if _overridesAccessed {
      return _refreshDuringOverridesAccess(inheriting: inheritedCell, epoch: epoch)
    }
    if inherited.toOpaque() != Unmanaged.passUnretained(_inherited).toOpaque()
      || _overridesChanged
    {
      (replaced, replacedInherited) = _install(&overrides.pointee, over: inheritedCell)
      _overridesChanged = false
    }
    _resolvedEpoch = epoch
    if let replaced { _recycleReplaced(replaced) }
    if let replacedInherited { _recycleReplaced(replacedInherited) }
  }

  /// Makes the node's collection the collection of `inheritedCell` with `overrides` applied, or
  /// that collection itself, shared, when they change nothing, and keeps the inherited one it
  /// was made from (the empty one when there are no overrides).
  ///
  /// - Returns: The collections the node let go of, its own and the inherited one it kept, for
  ///   the caller to release once the node is current: a release can run a trait value's
  ///   deinitializer, which may read this node again.
  // NB: the overrides are applied in place, through the caller's pointer, not a copy that would
  // retain and release each of their fields (traitkit-bench S1).
  @inline(__always) private final func _install(
    _ overrides: inout TraitOverrides,
    over inheritedCell: (storage: Unmanaged<_Storage>, word: UInt)
  ) -> (replaced: Unmanaged<_Storage>?, inherited: Unmanaged<_Storage>?) {
    let inherited = inheritedCell.storage
    let needed = Swift.max(
      inherited._withUnsafeGuaranteedRef { $0.count },
      overrides._storage.count
    )
    let result = overrides.applied(to: inherited, reusingSpareOf: _graphRef, capacity: needed)
    let replaced = _ownsResolved ? _resolvedRef : nil
    if let result {
      _resolvedRef = result
      _ownsResolved = true
    } else {
      _resolvedCell = inheritedCell
      _ownsResolved = false
    }
    let newInherited =
      overrides._specified.isEmpty ? Unmanaged.passUnretained(_Storage.empty) : inherited
    // NB: most often the same one, when only the overrides changed (traitkit-bench S1).
    guard newInherited.toOpaque() != Unmanaged.passUnretained(_inherited).toOpaque() else {
      return (replaced, nil)
    }
    let replacedInherited = Unmanaged.passRetained(_inherited)
    _inherited = newInherited.takeUnretainedValue()
    return (replaced, replacedInherited)
  }

  /// Applies the overrides at `overrides` to the collection the node inherited when it was last
  /// refreshed, which a node that applies overrides keeps (`_inherited`), rather than to its
  /// parent's current one, which may take refreshing its ancestors; for the start of an in-place
  /// access of the overrides (see `_prepareOverridesAccess(_:)`).
  ///
  /// The node stays stale: only the values of the traits it overrides are sure to be right.
  /// Its next refresh makes the collection anew unless it inherits that same collection, which
  /// this one is then right for. A node that applied no overrides before kept the empty
  /// collection there, of the defaults, which is right under the same rule.
  ///
  /// - Returns: The collection the node owned before, for the caller to let go of.
  /// - Precondition: the node's collection is not current.
  final func _applyOverridesToStaleCollection(
    _ overrides: UnsafeMutablePointer<TraitOverrides>
  ) -> Unmanaged<_Storage>? {
    let inherited = Unmanaged.passUnretained(_inherited)
    let needed = Swift.max(
      inherited._withUnsafeGuaranteedRef { $0.count },
      overrides.pointee._storage.count
    )
    let replaced = _ownsResolved ? _resolvedRef : nil
    if let result = overrides.pointee.applied(
      to: inherited,
      reusingSpareOf: _graphRef,
      capacity: needed
    ) {
      _resolvedRef = result
      _ownsResolved = true
    } else {
      // NB: `_inherited` keeps it.
      _resolvedRef = inherited
      _ownsResolved = false
    }
    _overridesChanged = false
    return replaced
  }

  /// Makes the node hold the collection it reads, when it shares one it holds no reference to
  /// (its parent's, or its base traits'), by keeping it as the collection it inherited; for the
  /// start of an in-place access of the overrides (see `_prepareOverridesAccess(_:)`), whose
  /// reads may take values from it after its owner let go of it.
  ///
  /// The node's overrides changed no value since it last applied them: the collection it
  /// shares is the one it inherited, and its next refresh makes it anew.
  ///
  /// - Returns: The collection the node kept as inherited before, for the caller to let go of.
  final func _holdSharedCollection() -> Unmanaged<_Storage>? {
    guard !_ownsResolved, _resolvedRef.toOpaque() != Unmanaged.passUnretained(_inherited).toOpaque()
    else { return nil }
    let previous = Unmanaged.passRetained(_inherited)
    _inherited = _resolvedRef.takeUnretainedValue()
    return previous
  }

  /// `_refresh(inheriting:epoch:)` for a node whose overrides an in-place access holds, and which
  /// must not read them: it applies the overrides from before the access, which are the node's
  /// until the access ends.
  ///
  /// Their values are the node's collection's for the traits they override: the access made
  /// sure, when it began, that the collection held them, and each refresh since kept them (see
  /// `_prepareOverridesAccess(_:)`). Those traits are the shield's, or the ones the access copied
  /// aside when the shield does not hold them all.
  @inline(never) private final func _refreshDuringOverridesAccess(
    inheriting inheritedCell: (storage: Unmanaged<_Storage>, word: UInt),
    epoch: UInt64
  ) {
    let shield = _shield
    var replaced: Unmanaged<_Storage>?
    var replacedInherited: Unmanaged<_Storage>?
    let copied =
      _overridesAccessWord & Self._copiedBit != 0 ? _overridesCopiedTraits : nil
    #if TRAITKIT_INTERNAL_CHECKS
    precondition(
      (shield.isEmpty && copied == nil) || _ownsResolved
        || _resolvedRef.toOpaque() == Unmanaged.passUnretained(_inherited).toOpaque(),
      "Invariant: a node whose overrides an access holds keeps the collection it reads them from"
    )
    #endif
    if shield.isEmpty, copied == nil {
      if _ownsResolved { replaced = _resolvedRef }
      _resolvedCell = inheritedCell
      _ownsResolved = false
    } else if inheritedCell.storage.toOpaque() != Unmanaged.passUnretained(_inherited).toOpaque() {
      // NB: only from another inherited collection, as the ordinary refresh: the node's
      // collection is the overrides from before the access applied to the one it keeps. A read
      // from a deinitializer in the middle of a refresh of the node's subtree may refresh the
      // node again before the outer refresh reaches it, and children refreshed in between share
      // what it made then, without a reference (helper-58's review: made anew, it was let go of
      // under them).
      var before = TraitOverrides()
      if let copied {
        before._specified = copied.pointee
      } else {
        for word in 0..<2 {
          var bits = word == 0 ? shield.low : shield.high
          while bits != 0 {
            before._specified.insert(word * 64 + bits.trailingZeroBitCount)
            bits &= bits - 1
          }
        }
      }
      var last = 0
      before._specified.forEachIndex { last = Swift.max(last, $0) }
      before._storage = _resolvedRef.takeUnretainedValue()
      if before._storage.count <= last { before._storage = before._storage.copy(count: last + 1) }
      (replaced, replacedInherited) = _install(&before, over: inheritedCell)
    }
    _resolvedEpoch = epoch
    if let replaced { _recycleReplaced(replaced) }
    if let replacedInherited { _recycleReplaced(replacedInherited) }
  }

  /// Lets go of `replaced`, a collection the caller stopped using and holds a reference to,
  /// recycling it if that was its last reference: one a refresh replaced (the node's own, or the
  /// parent's it was made from), or the baseline of a registration cancelled outside a pass.
  ///
  /// A change nobody observes is the case it serves: no registration holds the node's previous
  /// collection as its baseline, so a node's reference is the last, and the next change fills it
  /// again instead of allocating one.
  @inline(never)
  final func _recycleReplaced(_ replaced: Unmanaged<_Storage>) {
    var storage = replaced.takeRetainedValue()
    // NB: the common case first, without looking for a running pass: a registration still
    // holds the collection, or the node does (traitkit-bench S1, S6).
    guard isKnownUniquelyReferenced(&storage) else { return }
    _recycle(&storage)
  }

  /// Hands `replaced`, a collection the caller stopped using, to be recycled if the caller's
  /// reference is the last: to the recycling list of the pass running on this thread, or else,
  /// outside any pass, straight to the spares of this node's graph.
  final func _recycle(_ replaced: inout _Storage) {
    if let running = _CurrentCell.activeGraph {
      running._withUnsafeGuaranteedRef { $0._recycleIfLast(&replaced) }
    } else if let graph = _graphRef {
      graph._withUnsafeGuaranteedRef { $0._keepSpareIfLast(&replaced) }
    }
  }
}
