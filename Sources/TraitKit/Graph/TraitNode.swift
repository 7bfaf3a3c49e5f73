import Synchronization

/// A node of the trait tree: it inherits traits from its parent and overrides some for its
/// subtree.
///
/// The counterpart of UIKit's trait environments (`UIView`, `UIViewController`, `UIWindow`,
/// `UIWindowScene`, `UIPresentationController`). A node's ``traitCollection`` is its parent's
/// collection with the node's ``traitOverrides`` applied; it is never stale **(beyond UIKit)**:
/// it reflects every override and every move at once. Only the notification of changes waits for
/// the update pass (``TraitGraph/updateTraitsIfNeeded()``).
///
/// ```swift
/// let graph = TraitGraph()
/// let node = TraitNode()
/// graph.root.addTraitChild(node)
/// node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
///   (node: TraitNode, previousTraitCollection: TraitCollection) in
///   print(node.traitCollection.horizontalSizeClass)
/// }
/// graph.root.traitOverrides.horizontalSizeClass = .compact
/// graph.updateTraitsIfNeeded()  // prints "compact"
/// ```
///
/// A node retains its children, not its parent. When a node goes, its children that someone else
/// holds become detached roots and read their traits from the defaults up; the rest of its
/// subtree goes too, without recursion, a node at a time. A node that goes with its parent finds
/// its children already detached in its `deinit`, so code there and in the deinitializers its
/// handlers' captures run sees a consistent tree.
///
/// Nodes are not `Sendable`: a tree lives in the isolation domain that created it.
open class TraitNode: TraitEnvironment {
  // NB: `@exclusivity(unchecked)` on the engine's hot state: it is confined to one isolation
  // domain, and the engine never holds an access to it across a call into user code. Dynamic
  // exclusivity checks cost about a third of a delivery (measured with callgrind).
  //
  // NB: field order is layout (Swift lays out a class's stored properties in order). First, next
  // to the object header and its reference count — which a client touches whenever it retains
  // a node it calls — the state that registering and reading traits read and write: the
  // observed summary and the registrations, then the graph, the epoch and the collection cell
  // that a read checks and follows. Registering reads all but the cell's second word, which is
  // last; cancelling reads the registrations and the graph; so each touches as few cache lines
  // of a node as it can, on average (traitkit-bench S6, S8). Then the state the pass reads on
  // every child it considers; then the rest.

  // MARK: Read and registration state

  /// A superset of the traits observed at this node itself (registrations, tracking, legacy
  /// callbacks); narrowed again when the pass delivers here.
  @exclusivity(unchecked) final var _observedHere = _TraitFilter.none
  /// The node's registrations, which it owns; nil until the first one.
  @exclusivity(unchecked) final var _observers: _NodeObservers?
  /// The graph whose tree holds this node, unretained, or nil for a detached node.
  @usableFromInline @exclusivity(unchecked) final var _graphRef: Unmanaged<TraitGraph>?
  @usableFromInline @exclusivity(unchecked) final var _resolvedEpoch: UInt64 = 0
  /// The resolved collection (see `_resolvedRef`), stored as the words of a `TraitCollection`
  /// with no recorder — the storage, then its count's word — so that ``traitCollection`` yields
  /// the node's own cell: a read then finds the storage's address and count among the node's
  /// read fields (graph, epoch, cell: 32 bytes, which straddle two cache lines for half the
  /// node addresses malloc gives), and loads one line of the storage, the slot's, rather than
  /// the storage's header too (traitkit-bench S8).
  @usableFromInline @exclusivity(unchecked) final var _resolvedCell:
    (storage: Unmanaged<_Storage>, word: UInt) = (
      Unmanaged.passUnretained(_Storage.empty), TraitCollection._countWord(0)
    )
  /// A superset of the traits observed (by registrations, tracking or the legacy adapter) by
  /// this node and its descendants.
  @exclusivity(unchecked) final var _subtreeObserved = _TraitFilter.none
  /// The parent, unretained: the parent retains this node.
  ///
  /// Cleared when this node is detached or its parent goes away. Hot paths read it without
  /// reference counting.
  @exclusivity(unchecked) final var _parentRef: Unmanaged<TraitNode>?
  /// The node's automatic-tracking slots; nil until the first tracked run.
  @exclusivity(unchecked) final var _tracking: _NodeTracking?

  // MARK: Walked state

  /// The traits this node overrides, which changes above it cannot reach (exact bits only).
  @exclusivity(unchecked) final var _shield = _TraitFilter.none
  /// Traits that may have changed here since the last pass visited this node.
  @exclusivity(unchecked) final var _pending = _TraitFilter.none
  /// The last pass round that visited this node or went past it (see
  /// `_wasGonePast(round:graph:)`), as `_visitMark(of:)` of its number; or, when this node
  /// joined its parent behind a round's walk instead, that mark plus 1: the subtree the walk
  /// went past did not hold this node then.
  // NB: one word for both: a node the round went past stays so wherever it joins, and the mark
  // of a node that joins ahead of the walk is cleared (traitkit-bench S10, bytes per node).
  @exclusivity(unchecked) final var _roundMark: UInt64 = 0
  /// Whether some strict descendant has `_pending` set or a pending descendant.
  @exclusivity(unchecked) final var _hasPendingBelow = false
  @exclusivity(unchecked) final var _ownsResolved = false
  /// Whether the overrides changed since `_resolved` was computed.
  @exclusivity(unchecked) final var _overridesChanged = false
  /// Advances whenever `_children` changes, so that a pass walking them notices.
  @exclusivity(unchecked) final var _childrenVersion: UInt32 = 0
  /// The children, each retained once by this node (plain references, so that the pass walks
  /// them without reference counting).
  @exclusivity(unchecked) final var _children = _ChildList()

  // MARK: Other state

  /// The node's overrides, which it owns, or nil until the first write to ``traitOverrides``.
  ///
  /// Out of line: most nodes of a tree override nothing, and inline overrides would cost each
  /// node 32 bytes more of heap (traitkit-bench S10). A plain pointer, not a reference, so that a
  /// write reaches them without reference counting (traitkit-bench S4). Freed in `deinit`.
  @usableFromInline @exclusivity(unchecked) final var _overrides:
    UnsafeMutablePointer<TraitOverrides>?
  /// The parent storage an overriding node's `_resolvedRef` was computed from (retained, so that
  /// its address identifies it).
  @exclusivity(unchecked) final var _inherited = _Storage.empty

  /// The parent, for cold paths.
  final var _parent: TraitNode? {
    get { _parentRef?.takeUnretainedValue() }
    set { _parentRef = newValue.map(Unmanaged.passUnretained) }
  }

  /// The graph, for cold paths.
  final var _graph: TraitGraph? {
    get { _graphRef?.takeUnretainedValue() }
    set { _graphRef = newValue.map(Unmanaged.passUnretained) }
  }

  /// Whether this node is in `graph`'s tree: what a pass checks after user code ran, which may
  /// have detached the node or moved it to another graph.
  @inline(__always) final func _isIn(_ graph: TraitGraph) -> Bool {
    _graphRef?.toOpaque() == Unmanaged.passUnretained(graph).toOpaque()
  }

  /// Creates a detached node with no overrides.
  public init() {}

  deinit {
    // Free the subtree without recursion: a child this node holds the last reference to gives
    // up its own children first, so that its `deinit` has none to release. A chain of any depth
    // then frees in constant native stack.
    //
    // Each node's children become detached roots before anything goes: a node's release runs
    // user code (its subclass's `deinit`, its handlers' captures), which may reach any node of
    // the subtree that someone else holds, and must find a consistent tree there — no parent
    // that is gone, no collection shared from a storage that is gone.
    var pending = TraitNode._orphaning(_children.takeAll())
    while let reference = pending.popLast() {
      var child = reference.takeRetainedValue()
      if isKnownUniquelyReferenced(&child) {
        pending += TraitNode._orphaning(child._children.takeAll())
      }
      // The last reference goes here, unless someone else holds the child: it stays a detached
      // root.
    }
    if _ownsResolved { _resolvedRef.release() }
    _tracking?.nodeWillDeinit(self)
    if let observers = _observers {
      _observers = nil
      observers.destroy()
    }
    if let overrides = _overrides {
      _overrides = nil
      overrides.deinitialize(count: 1)
      UnsafeMutableRawPointer(overrides).deallocate()
    }
  }

  /// Makes each of `children`, taken from a parent that is about to go, a detached root whose
  /// collection revalidates before its next read, and returns them.
  ///
  /// The detached epoch advances too: the children's subtrees may share the parent's storages
  /// unretained.
  private static func _orphaning(_ children: [Unmanaged<TraitNode>]) -> [Unmanaged<TraitNode>] {
    guard !children.isEmpty else { return children }
    for child in children {
      child._withUnsafeGuaranteedRef {
        $0._parentRef = nil
        $0._resolvedEpoch = 0
      }
    }
    TraitNode._detachedEpoch.add(1, ordering: .relaxed)
    _TrackingRecord.noteTreeChange()
    return children
  }

  // MARK: - Reading traits

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
      if _resolvedIsCurrent && !_isRecordingTraitReadsAnywhere() {
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
  @inline(never)
  final func _revalidate(epoch: UInt64) {
    guard let parent = _parentRef else {
      _refresh(inheriting: _baseCell, epoch: epoch)
      return
    }
    let parentState = parent._withUnsafeGuaranteedRef { ($0._resolvedEpoch, $0._resolvedCell) }
    if parentState.0 == epoch {
      _refresh(inheriting: parentState.1, epoch: epoch)
      return
    }
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
        for node in chain.reversed() {
          node._withUnsafeGuaranteedRef { $0._refresh(fromParentAt: epoch) }
        }
        _graph?._returnScratch(&chain)
      }
      for position in stride(from: count - 1, through: 0, by: -1) {
        buffer[position]._withUnsafeGuaranteedRef { $0._refresh(fromParentAt: epoch) }
      }
    }
  }

  /// Recomputes `_resolvedRef` from the parent's (current) collection, or from the base traits.
  @inline(__always) private final func _refresh(fromParentAt epoch: UInt64) {
    let inherited = _parentRef.map { $0._withUnsafeGuaranteedRef { $0._resolvedCell } } ?? _baseCell
    _refresh(inheriting: inherited, epoch: epoch)
  }

  /// What a parentless node inherits, as a collection cell: its graph's base traits, or the
  /// defaults when detached.
  private final var _baseCell: (storage: Unmanaged<_Storage>, word: UInt) {
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
    guard let overrides = _overrides, !overrides.pointee._specified.isEmpty || _overridesChanged
    else {
      // No overrides to apply (a node that never wrote them has no storage for them): share.
      if _overrides != nil { _overridesAppliedAtStamp = _ThreadLocals.overridesAccessStamp }
      if _ownsResolved {
        replaced = _resolvedRef
        _ownsResolved = false
      }
      _resolvedCell = inheritedCell
      _resolvedEpoch = epoch
      if let replaced { _recycleReplaced(replaced) }
      return
    }
    if inherited.toOpaque() != Unmanaged.passUnretained(_inherited).toOpaque()
      || _overridesChanged
    {
      let needed = Swift.max(
        inherited._withUnsafeGuaranteedRef { $0.count },
        overrides.pointee._storage.count
      )
      let result = overrides.pointee.applied(
        to: inherited,
        reusingSpareOf: _graphRef,
        capacity: needed
      )
      if _ownsResolved { replaced = _resolvedRef }
      if let result {
        _resolvedRef = result
        _ownsResolved = true
      } else {
        _resolvedCell = inheritedCell
        _ownsResolved = false
      }
      let newInherited =
        overrides.pointee._specified.isEmpty ? Unmanaged.passUnretained(_Storage.empty) : inherited
      // NB: most often the same one, when only the overrides changed (traitkit-bench S1).
      if newInherited.toOpaque() != Unmanaged.passUnretained(_inherited).toOpaque() {
        replacedInherited = Unmanaged.passRetained(_inherited)
        _inherited = newInherited.takeUnretainedValue()
      }
      _overridesChanged = false
      _overridesAppliedAtStamp = _ThreadLocals.overridesAccessStamp
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

  // MARK: - Overrides

  /// The trait values this node sets for itself and its subtree.
  ///
  /// Effective values are in ``traitCollection`` at once; registrations hear of the change in the
  /// next update pass. Writing the value an override already has does nothing.
  public final var traitOverrides: TraitOverrides {
    get {
      guard let overrides = _overrides else { return TraitOverrides() }
      var value = overrides.pointee
      value._accessStamp = 0
      return value
    }
    set {
      // NB: no storage for overrides that stay empty: copying an empty value onto many nodes
      // must not cost each of them (traitkit-bench S10).
      guard _overrides != nil || !newValue._specified.isEmpty else { return }
      var newValue = newValue
      newValue._changed = .none
      let overrides = _overrides ?? _makeOverrides()
      newValue._accessStamp = 0
      let changed = overrides.pointee.differences(from: newValue)
      overrides.pointee = newValue
      guard !changed.isEmpty else { return }
      // NB: no code ran since the write, so no refresh applied it: no access stamp to compare.
      _overridesDidChange(changed, to: overrides, accessStamp: .max)
    }
    @inlinable
    _modify {
      // NB: the node keeps its overrides' memory until it deinitializes, so the pointer stays
      // valid for the access, whatever the code it yields to does to the tree. A mutation that
      // changes nothing, such as removing an override the node does not have, still gives the
      // node that memory: giving it back would cost every write a test (traitkit-bench S4).
      let overrides = _overrides ?? _makeOverrides()
      let stamp = TraitNode._nextOverridesAccessStamp()
      overrides.pointee._accessStamp = stamp
      // NB: deferred, so that an access that ends with an error thrown reports what it changed
      // too.
      defer {
        // NB: an access that assigned a whole value — `swap`, or an `inout` argument assigned
        // to, even with a value copied out of an earlier access — left another stamp, and no
        // record of what changed.
        if overrides.pointee._accessStamp != stamp {
          _overridesDidChangeWhole(overrides, accessStamp: stamp)
        } else if !overrides.pointee._changed.isEmpty {
          _overridesDidChangeAfterModify(overrides, accessStamp: stamp)
        }
      }
      yield &overrides.pointee
    }
  }

  /// Gives this node its overrides' memory, on the first write to them: the overrides, then
  /// ``_overridesAppliedAtStamp``, which a whole assignment of the overrides leaves alone.
  @usableFromInline
  final func _makeOverrides() -> UnsafeMutablePointer<TraitOverrides> {
    let memory = UnsafeMutableRawPointer.allocate(
      byteCount: Self._appliedAtStampOffset + MemoryLayout<UInt64>.size,
      alignment: Swift.max(MemoryLayout<TraitOverrides>.alignment, MemoryLayout<UInt64>.alignment)
    )
    memory.storeBytes(of: 0, toByteOffset: Self._appliedAtStampOffset, as: UInt64.self)
    let overrides = memory.bindMemory(to: TraitOverrides.self, capacity: 1)
    overrides.initialize(to: TraitOverrides())
    _overrides = overrides
    return overrides
  }

  /// Where ``_overridesAppliedAtStamp`` lies in the overrides' memory.
  @inline(__always) private static var _appliedAtStampOffset: Int {
    (MemoryLayout<TraitOverrides>.size + MemoryLayout<UInt64>.alignment - 1)
      & ~(MemoryLayout<UInt64>.alignment - 1)
  }

  /// The last overrides access stamp this thread had taken when a refresh last applied the
  /// node's overrides (see `_nextOverridesAccessStamp()`); requires the overrides' memory.
  ///
  /// A refresh that applied them during an in-place access, from a read in the code the access
  /// yields to, took place at or after the access's own stamp: the access's end cannot compare
  /// its writes with the collection then. Kept beside the overrides, not in the node, so that
  /// nodes that override nothing pay nothing for it (traitkit-bench S10).
  final var _overridesAppliedAtStamp: UInt64 {
    get {
      UnsafeRawPointer(_overrides.unsafelyUnwrapped)
        .load(fromByteOffset: Self._appliedAtStampOffset, as: UInt64.self)
    }
    set {
      UnsafeMutableRawPointer(_overrides.unsafelyUnwrapped)
        .storeBytes(of: newValue, toByteOffset: Self._appliedAtStampOffset, as: UInt64.self)
    }
  }

  /// Takes the overrides that an in-place access replaced whole, which left no record of the
  /// traits it changed.
  @usableFromInline
  final func _overridesDidChangeWhole(
    _ overrides: UnsafeMutablePointer<TraitOverrides>,
    accessStamp: UInt64
  ) {
    overrides.pointee._accessStamp = 0
    overrides.pointee._changed = .none
    // NB: the node's shield is still the old overrides': their exact traits, to which the
    // overflow bit adds every other one they may have set.
    let conservative =
      _shield | overrides.pointee._specified.filter
      | _TraitFilter(index: _TraitFilter.lastExactIndex + 1)
    let values = _valueChanges(under: overrides.pointee, among: nil, accessStamp: accessStamp)
    _overridesDidChange(
      values?.changed ?? conservative,
      shield: overrides.pointee._shield,
      refresh: values.map { !$0.restored.isEmpty } ?? true
    )
  }

  /// A stamp no other in-place access of any node's overrides has had, on any thread.
  ///
  /// Each thread takes a block of 2³² stamps at a time from a process-wide counter, so that a
  /// stamp costs a thread-local increment.
  @usableFromInline
  static func _nextOverridesAccessStamp() -> UInt64 {
    let previous = _ThreadLocals.overridesAccessStamp
    var stamp = previous &+ 1
    if previous == 0 || stamp & 0xFFFF_FFFF == 0 {
      stamp = _overridesAccessStampBlocks.wrappingAdd(1, ordering: .relaxed).newValue << 32 | 1
    }
    _ThreadLocals.overridesAccessStamp = stamp
    return stamp
  }

  /// The blocks of stamps taken so far (see `_nextOverridesAccessStamp()`).
  private static let _overridesAccessStampBlocks = Atomic<UInt64>(0)

  /// Among `candidates` (every trait when nil), the traits whose values at this node differ under
  /// the overrides `new` from its current collection's, and those whose stored values differ at
  /// all, equal or not, which a refresh must store anew; nil when that cannot be told without
  /// resolving: the node's collection or its parent's is not current, or does not apply the
  /// node's old overrides, as when a refresh applied the new ones during the access whose stamp
  /// is `accessStamp` (`.max` for no access).
  ///
  /// The overflow bit of `candidates`, which stands for every trait past the exact ones, is
  /// kept in both as it is.
  private final func _valueChanges(
    under new: TraitOverrides,
    among candidates: _TraitFilter?,
    accessStamp: UInt64
  ) -> (changed: _TraitFilter, restored: _TraitFilter)? {
    guard _resolvedIsCurrent, !_overridesChanged, _overridesAppliedAtStamp < accessStamp else {
      return nil
    }
    let inherited: Unmanaged<_Storage>
    if let parent = _parentRef {
      guard parent._withUnsafeGuaranteedRef({ $0._resolvedIsCurrent }) else { return nil }
      inherited = parent._withUnsafeGuaranteedRef { $0._resolvedRef }
    } else {
      inherited = _baseCell.storage
    }
    // NB: loops without closures that capture, which a debug build would allocate a box for on
    // each write (ZeroAllocationTests).
    let old = _resolvedRef.takeUnretainedValue()
    let source = inherited.takeUnretainedValue()
    var changed = _TraitFilter.none
    var restored = _TraitFilter.none
    guard let candidates else {
      for index in 0..<Swift.max(old.count, source.count, new._storage.count) {
        Self._compare(at: index, in: old, under: new, over: source, &changed, &restored)
      }
      return (changed, restored)
    }
    let overflow = _TraitFilter(index: _TraitFilter.lastExactIndex + 1)
    changed = candidates & overflow
    restored = changed
    var low = candidates.low
    while low != 0 {
      Self._compare(
        at: low.trailingZeroBitCount,
        in: old,
        under: new,
        over: source,
        &changed,
        &restored
      )
      low &= low &- 1
    }
    var high = (candidates & ~overflow).high
    while high != 0 {
      Self._compare(
        at: 64 + high.trailingZeroBitCount,
        in: old,
        under: new,
        over: source,
        &changed,
        &restored
      )
      high &= high &- 1
    }
    return (changed, restored)
  }

  /// Adds the trait at `index` to `changed` when its value in `old` differs from what the
  /// overrides `new` give over `inherited`, and to `restored` when its stored value does, equal
  /// or not.
  @inline(__always)
  private static func _compare(
    at index: Int,
    in old: _Storage,
    under new: TraitOverrides,
    over inherited: _Storage,
    _ changed: inout _TraitFilter,
    _ restored: inout _TraitFilter
  ) {
    let source = new._specified.contains(index) ? new._storage : inherited
    guard old.rawSlot(at: index).word != source.rawSlot(at: index).word else { return }
    restored |= _TraitFilter(index: index)
    if !old.slotEqual(at: index, to: source) { changed |= _TraitFilter(index: index) }
  }

  /// Consumes the change record that an in-place mutation of the overrides left.
  @usableFromInline
  final func _overridesDidChangeAfterModify(
    _ overrides: UnsafeMutablePointer<TraitOverrides>,
    accessStamp: UInt64
  ) {
    let changed = overrides.pointee._changed
    overrides.pointee._changed = .none
    _overridesDidChange(changed, to: overrides, accessStamp: accessStamp)
  }

  /// Takes the node's new overrides, at `new`, whose overrides of the traits in `changed` differ
  /// from the old ones, and narrows `changed` to the traits whose values change, as far as can
  /// be told without resolving.
  ///
  /// A trait overridden before and after changed value, since its override did; only one that
  /// gained or lost its override may keep its value, which is compared (§4: a write that
  /// changes no value costs no pass).
  @inline(__always)
  private final func _overridesDidChange(
    _ changed: _TraitFilter,
    to new: UnsafeMutablePointer<TraitOverrides>,
    accessStamp: UInt64
  ) {
    // NB: read in place, not copied out, which would retain its storage (traitkit-bench S1).
    let shield = new.pointee._shield
    let flipped = changed & (shield ^ _shield)
    guard !flipped.isEmpty,
      let values = _valueChanges(under: new.pointee, among: flipped, accessStamp: accessStamp)
    else {
      return _overridesDidChange(changed, shield: shield)
    }
    _overridesDidChange(
      changed & ~flipped | values.changed,
      shield: shield,
      refresh: !values.restored.isEmpty
    )
  }

  /// Takes the node's new overrides, whose shield is `shield`, under which the values of the
  /// traits in `changed` may differ, and those only; `refresh` says whether the node's collection
  /// must be made anew, for values that changed or that are equal but stored differently (such as
  /// `-0.0` and `0.0`, or values that a custom `valuesEqual` calls equal).
  ///
  /// With no value changed (R3: nothing is invalidated) the collection stays current; the next
  /// refresh, after some other change, applies the new overrides. Only what the node shields may
  /// differ, as for an override added with the value the node inherits: a change above that the
  /// node's registrations have not heard of yet would no longer reach them through the shield,
  /// so a trait newly shielded is pending here while a change of it is pending above, or may be
  /// on its way down in a running pass.
  final func _overridesDidChange(
    _ changed: _TraitFilter,
    shield: _TraitFilter,
    refresh: Bool = true
  ) {
    let added = shield & ~_shield & ~changed
    _shield = shield
    // NB: even when no value changed: the collection may be the parent's, shared, which a
    // refresh would keep for a node whose inherited collection stays (a node detached).
    _overridesChanged = true
    if refresh || !changed.isEmpty { _treeDidChange() }
    let heldBack = added.isEmpty ? added : added & _changesPendingAbove(among: added)
    if !(changed | heldBack).isEmpty { _markPending(changed | heldBack) }
  }

  /// The traits of `filter` that may be changing above this node without this node's subtree
  /// having heard of it: those pending at an ancestor and not shielded on the way down, or all of
  /// `filter` while a pass of the graph runs, whose walk carries changes down as it goes.
  private final func _changesPendingAbove(among filter: _TraitFilter) -> _TraitFilter {
    if let graph = _graphRef, graph._withUnsafeGuaranteedRef({ $0._isUpdating }) { return filter }
    var reaching = _TraitFilter.none
    var shield = _TraitFilter.none
    var ancestor = _parent
    while let node = ancestor {
      reaching |= node._pending & ~shield
      shield |= node._shield
      ancestor = node._parent
    }
    return reaching & filter
  }

  // MARK: - Tree

  /// The node this one inherits its traits from.
  public final var traitParent: TraitNode? { _parent }

  /// The nodes that inherit their traits from this one, in the order they were added.
  public final var traitChildren: [TraitNode] { _children.nodes }

  /// Makes `child` the last child of this node, removing it from its previous parent.
  ///
  /// Every registration in the moved subtree whose traits differ afterwards is called in the next
  /// update pass.
  ///
  /// - Parameter child: The node to add.
  /// - Precondition: `child` is neither this node nor one of its ancestors, nor a graph's root
  ///   (its graph keeps it as the root of its tree); this node has fewer than `Int32.max`
  ///   children.
  /// - Complexity: O(*d* + *c*) for a move within one graph, where *d* is this node's depth and
  ///   *c* is the number of children of `child`'s previous parent (0 if it had none);
  ///   O(*d* + *c* + *s*) for a move between graphs, where *s* is the size of the moved subtree.
  public final func addTraitChild(_ child: TraitNode) {
    _requireAPI(
      child !== self && (child._children.count == 0 || !_hasAncestor(child)),
      "Cannot add a node as a child of itself or of its own descendant: that would make a cycle"
    )
    _requireAPI(
      child._parentRef != nil || child._graphRef == nil,
      "Cannot add a graph's root as a child: its graph keeps it as the root of its tree; "
        + "move the root's children instead"
    )
    if child._parent === self, _children.last?.takeUnretainedValue() === child { return }
    let retained = Unmanaged.passRetained(child)
    if child._graphRef == nil { child._willJoin(_graphRef) }
    child._detachFromParent()
    _willChangeChildren()
    child._noteJoined(behind: _roundGonePastNewChildren())
    _children.append(retained)
    _childrenVersion &+= 1
    child._parent = self
    if child._graph !== _graph { child._moveSubtree(to: _graph) }
    child._treeDidChange()
    child._didMoveUnderNewParent()
  }

  /// Whether `node` is a strict ancestor of this node (compared without retaining anyone).
  final func _hasAncestor(_ node: TraitNode) -> Bool {
    let target = Unmanaged.passUnretained(node).toOpaque()
    var ancestor = _parentRef
    while let current = ancestor {
      if current.toOpaque() == target { return true }
      ancestor = current._withUnsafeGuaranteedRef { $0._parentRef }
    }
    return false
  }

  /// The capacity a node's full list of `capacity` children grows to, so that tests reach the
  /// limit on a node's children without adding 2^31 of them.
  ///
  /// - Precondition: `capacity` is below the limit.
  package static func _grownChildCapacity(from capacity: Int32) -> Int32 {
    _ChildList.grownCapacity(from: capacity)
  }

  /// Detaches this node (with its subtree) from its parent.
  ///
  /// A detached node keeps its registrations but hears of nothing until it is added to a graph
  /// again; then the next pass tells each registration what differs from its baseline.
  ///
  /// - Complexity: O(*c* + *s*) for a node in a graph, where *c* is the number of its parent's
  ///   children and *s* is the size of its subtree; O(*c*) for a node outside any graph.
  public final func removeFromTraitParent() {
    guard _parent != nil else { return }
    _detachFromParent()
    if _graph != nil { _moveSubtree(to: nil) }
    _treeDidChange()
    _didMoveUnderNewParent()
  }

  /// Runs the update pass for this node's subtree now, delivering pending changes synchronously.
  ///
  /// Does nothing for a detached node, or when called from inside a pass of its graph (that
  /// pass's rounds cover the change). Inside another graph's pass, it runs.
  ///
  /// - Precondition: The pass converges within 100 rounds.
  public final func updateTraitsIfNeeded() {
    _graph?._updateTraits(from: self)
  }

  private final func _detachFromParent() {
    guard let parent = _parent else { return }
    guard let index = parent._children.firstIndex(of: self) else {
      preconditionFailure("A node's parent does not list it among its children")
    }
    _willLeaveParent()
    parent._willChangeChildren()
    parent._children.remove(at: index)
    parent._childrenVersion &+= 1
    _parent = nil
    parent._treeDidChange()
    // NB: a running pass walks nodes without retaining them; keep a node it may still be
    // walking alive until the pass ends. That pass need not be the one of the node's graph (a
    // handler may have moved an ancestor of the node it is called for into another tree), so the
    // node goes to the innermost pass running on this thread, which hands its graveyard on to
    // the pass it runs in when it ends.
    if let running = _CurrentCell.activeGraph {
      running._withUnsafeGuaranteedRef { $0._graveyard.append(self) }
    }
    Unmanaged.passUnretained(self).release()
  }

  // MARK: - Tree changes during a round

  // NB: a round calls a node's registrations at most once, and only where its walk has not been
  // yet (R5): a node the walk went past — visited, or passed in a subtree where nothing pending
  // concerns anyone — waits for the next round, wherever a handler moves it. The walk skips
  // nodes with the round's mark (`_roundMark`); the functions below mark the nodes it went past
  // without visiting when a handler changes the tree, so that the walk itself marks only the
  // nodes it visits (traitkit-bench S2: most nodes are passed).

  /// Before this node's children change: when a round of its graph is going through them,
  /// marks the children it went past as visited, so that the walk, which then considers them
  /// all again, passes over them as it did.
  @inline(__always) final func _willChangeChildren() {
    guard let graph = _graphRef else { return }
    let round = graph._withUnsafeGuaranteedRef { $0._walkRound }
    guard round != 0, _roundMark == Self._visitMark(of: round) else { return }
    _markConsideredChildren(round: round, graph: graph)
  }

  @inline(never)
  private final func _markConsideredChildren(round: UInt64, graph: Unmanaged<TraitGraph>) {
    // NB: only a frame going through the children starts them over; the children of a node the
    // round is done with are never considered again (`_wasGonePast` judges the one that moves).
    guard let considered = graph._withUnsafeGuaranteedRef({ $0._frameProgress(of: self) }) else {
      return
    }
    for position in 0..<considered {
      _children[position]._withUnsafeGuaranteedRef { child in
        // NB: a child that joined behind the walk is not one it went past.
        if child._roundMark != Self._visitMark(of: round) &+ 1 {
          child._roundMark = Self._visitMark(of: round)
        }
      }
    }
  }

  /// Before this node leaves its parent: when a round of its graph went past it, marks it
  /// visited, so that the round passes over it wherever it goes, in this graph or, and back,
  /// another (see `_moveSubtree(to:)`).
  @inline(__always) final func _willLeaveParent() {
    guard let graph = _graphRef else { return }
    let round = graph._withUnsafeGuaranteedRef { $0._walkRound }
    guard round != 0 else { return }
    _roundWillMove(round: round, graph: graph)
  }

  @inline(never)
  private final func _roundWillMove(round: UInt64, graph: Unmanaged<TraitGraph>) {
    graph._withUnsafeGuaranteedRef { $0._nodeLeftDuringRound = true }
    if _wasGonePast(round: round, graph: graph) { _roundMark = Self._visitMark(of: round) }
  }

  /// Before this node, outside any graph, joins `graph`: when a round of `graph` runs and went
  /// past it in the subtree it leaves, marks it visited, as `_willLeaveParent()` does for a node
  /// in the graph.
  ///
  /// A round goes past the children of a node that a handler detached, as it does a subtree
  /// where nothing pending concerns anyone, after the node left (see `TraitGraph._walk`): the
  /// marks of the round on the detached nodes say where it went.
  @inline(__always) final func _willJoin(_ graph: Unmanaged<TraitGraph>?) {
    guard let graph else { return }
    let round = graph._withUnsafeGuaranteedRef { $0._walkRound }
    guard round != 0 else { return }
    if _wasGonePast(round: round, graph: graph) { _roundMark = Self._visitMark(of: round) }
  }

  /// The number of the round running on this node's graph when that round has gone past where a
  /// new last child of this node goes, or 0: the child then joined behind the walk, and a walk
  /// that passed this subtree earlier did not go past it.
  @inline(__always) final func _roundGonePastNewChildren() -> UInt64 {
    guard let graph = _graphRef else {
      // Outside any graph: a node that the running round went past before it left its graph (a
      // handler detached it) keeps that round's mark; a child that joins it now joined behind
      // that walk, which never went past the child, should it come back ahead of it. A mark of
      // a round that has ended says nothing.
      guard _roundMark & 1 == 0, _roundMark != 0, let running = _CurrentCell.activeGraph,
        running._withUnsafeGuaranteedRef({ Self._visitMark(of: $0._walkRound) }) == _roundMark
      else { return 0 }
      return _roundMark >> 1
    }
    let round = graph._withUnsafeGuaranteedRef { $0._walkRound }
    guard round != 0 else { return 0 }
    let behind =
      _roundMark == Self._visitMark(of: round)
      ? !graph._withUnsafeGuaranteedRef { $0._isGoingThroughChildren(of: self) }
      : _wasGonePast(round: round, graph: graph)
    return behind ? round : 0
  }

  /// Records that this node joins its parent behind the walk of round `round`, or, for 0, not
  /// behind any.
  @inline(__always) private final func _noteJoined(behind round: UInt64) {
    // NB: the mark of a node the round went past stays.
    guard _roundMark & 1 != 0 || round != 0 else { return }
    if round == 0 {
      _roundMark = 0
    } else if _roundMark != Self._visitMark(of: round) {
      _roundMark = Self._visitMark(of: round) &+ 1
    }
  }

  /// The mark of a node that round `round` visited or went past (see `_roundMark`).
  @inline(__always) static func _visitMark(of round: UInt64) -> UInt64 { round &<< 1 }

  /// Whether the running round `round` of `graph` went past this node: visited it, or passed a
  /// subtree that held it then.
  @inline(never)
  final func _wasGonePast(round: UInt64, graph: Unmanaged<TraitGraph>) -> Bool {
    var node = self
    while true {
      if node._roundMark == Self._visitMark(of: round) { return true }
      // NB: it joined its parent behind the walk: whatever the walk passed there, not this.
      if node._roundMark == Self._visitMark(of: round) &+ 1 { return false }
      guard let parent = node._parent else { return false }
      if parent._roundMark == Self._visitMark(of: round) {
        // The walk went past this child of the node it visited or passed if it considered it.
        let considered = graph._withUnsafeGuaranteedRef { $0._consideredChildren(of: parent) }
        return considered == parent._children.count
          || parent._children.firstIndex(of: node).map { $0 < considered } == true
      }
      node = parent
    }
  }

  /// Before this subtree leaves `graph`, whose round is running: marks the nodes the round went
  /// past, and records every node's mark in the graph, for a return in the same round (a pass of
  /// another graph may overwrite the marks, and a node the round went past only as part of this
  /// subtree would lose that once separated from it).
  @inline(never)
  private final func _noteDeparture(from graph: TraitGraph) {
    let visitMark = Self._visitMark(of: graph._walkRound)
    var stack: [(node: TraitNode, gonePast: Bool)] = [(self, false)]
    while let (node, inherited) = stack.popLast() {
      // NB: a node's own mark overrides what its parent passes down.
      let gonePast =
        node._roundMark == visitMark || (inherited && node._roundMark != visitMark &+ 1)
      if gonePast { node._roundMark = visitMark }
      if node._roundMark | 1 == visitMark | 1 {
        graph._departed[ObjectIdentifier(node)] = node._roundMark
      }
      let children = node._children.nodes
      let considered = gonePast ? graph._consideredChildren(of: node) : 0
      for (position, child) in children.enumerated() {
        stack.append((child, position < considered))
      }
    }
  }

  /// After a move: every trait may differ, and the new ancestors must know what is observed here.
  private final func _didMoveUnderNewParent() {
    _resolvedEpoch = 0
    // NB: from the parent: this node's own summary already covers its subtree.
    _parent?._propagateObserved(_subtreeObserved)
    _markPending(.all)
  }

  /// Points every node of this subtree at `graph`, updating both graphs' counts.
  private final func _moveSubtree(to graph: TraitGraph?) {
    let oldGraph = _graph
    // NB: a round running on either graph: a node keeps one round's mark, and another graph's
    // pass may overwrite it (see `TraitGraph._departed`).
    if let oldGraph, oldGraph._walkRound != 0 { _noteDeparture(from: oldGraph) }
    let joinedRound = graph?._walkRound ?? 0
    var nodes = 0
    var registrations = 0
    var stack = [self]
    while let node = stack.popLast() {
      nodes += 1
      registrations += node._observers?.liveCount ?? 0
      if joinedRound != 0, let mark = graph.unsafelyUnwrapped._departed[ObjectIdentifier(node)] {
        node._roundMark = mark
      }
      node._graph = graph
      node._resolvedEpoch = 0
      stack.append(contentsOf: node._children.nodes)
    }
    if let old = oldGraph {
      old._liveNodes -= nodes
      old._liveRegistrations -= registrations
    }
    if let graph {
      graph._liveNodes += nodes
      graph._liveRegistrations += registrations
    }
    // R5: what the old graph's round took from the nodes on its path here waits where they go.
    if let oldGraph, oldGraph._walkRound != 0 { oldGraph._returnTakenChanges(within: self) }
  }

  // MARK: - Invalidation

  /// Records that a value or the shape of this node's tree changed: cached collections revalidate
  /// on their next read.
  @inline(__always) final func _treeDidChange() {
    if let graph = _graphRef {
      graph._withUnsafeGuaranteedRef { $0._valuesDidChange() }
    } else {
      TraitNode._detachedEpoch.add(1, ordering: .relaxed)
      _TrackingRecord.noteTreeChange()
    }
  }

  /// Records that the traits in `filter` may have changed at this node, for the next pass.
  ///
  /// Only traits observed in this node's subtree are kept: an observer that appears later takes
  /// the then-current collection as its baseline, so nothing else can ever need delivering.
  final func _markPending(_ filter: _TraitFilter) {
    let filter = _keepPending(filter)
    guard !filter.isEmpty else { return }
    _graphRef?._withUnsafeGuaranteedRef { graph in
      if graph._isUpdating { graph._walkDidMark(self, filter) }
      // NB: last: `onNeedsUpdate` runs user code, which may let the graph go.
      graph._noteDirty()
    }
  }

  /// Records `filter` as pending here for a later pass, as `_markPending(_:)` does, but without
  /// telling the graph: for a node a handler took out of the running pass's graph, whose new
  /// graph, if any, the move marked dirty.
  ///
  /// - Returns: The traits kept: those observed in this node's subtree.
  @inline(__always) @discardableResult
  final func _keepPending(_ filter: _TraitFilter) -> _TraitFilter {
    let filter = filter & _subtreeObserved
    guard !filter.isEmpty else { return filter }
    _pending |= filter
    var ancestor = _parentRef
    while let node = ancestor {
      let next: Unmanaged<TraitNode>?? = node._withUnsafeGuaranteedRef { node in
        guard !node._hasPendingBelow else { return .none }
        node._hasPendingBelow = true
        return .some(node._parentRef)
      }
      guard let next else { break }
      ancestor = next
    }
    return filter
  }

  /// Adds `filter` to the observed summaries of this node and its ancestors.
  final func _propagateObserved(_ filter: _TraitFilter) {
    _graphRef?._withUnsafeGuaranteedRef { graph in
      if graph._isUpdating { graph._walkDidObserve(filter) }
    }
    var node: Unmanaged<TraitNode>? = Unmanaged.passUnretained(self)
    while let current = node {
      node = current._withUnsafeGuaranteedRef { current in
        guard !current._subtreeObserved.contains(filter) else { return nil }
        current._subtreeObserved |= filter
        return current._parentRef
      }
    }
  }

  /// The traits observed at this node itself, exactly as its tables record them now.
  final var _ownObserved: _TraitFilter {
    (_observers?.observed ?? .none) | (_tracking?.observed ?? .none)
  }

  /// The epoch of all detached trees; any change to any of them advances it.
  static let _detachedEpoch = Atomic<UInt64>(1)
}

@available(*, unavailable)
extension TraitNode: Sendable {}
