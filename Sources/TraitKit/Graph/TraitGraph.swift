/// A trait tree: its root, the base traits the root starts from, and the update pass that tells
/// registrations about changes.
///
/// Plays the part UIKit's screen, scene and layout loop play together: it owns the tree and runs
/// the update pass (``updateTraitsIfNeeded()``). Values are current at once (see
/// ``TraitNode/traitCollection``); callbacks wait for the pass. Set ``onNeedsUpdate`` to schedule
/// a pass whenever the graph becomes dirty.
///
/// A graph is not `Sendable`: it lives in the isolation domain that created it.
public final class TraitGraph {
  /// The root of the tree; it starts from ``baseTraits``.
  public let root: TraitNode

  // NB: `@exclusivity(unchecked)`: every change that dirties a clean graph reads it, and the
  // engine's read ends before the call, so no access can overlap it (traitkit-bench S1).
  /// Called each time the graph goes from clean to dirty, so a host can schedule a pass.
  @exclusivity(unchecked) public var onNeedsUpdate: (() -> Void)?

  /// The traits the root inherits, as a screen or a host platform would provide them.
  public var baseTraits: TraitCollection {
    get { _baseTraits }
    set {
      guard newValue._storage !== _baseTraits._storage else { return }
      let changed = _baseTraits._storage.differences(from: newValue._storage)
      // NB: nodes share the base collection unretained, so even an equal one (which may carry
      // other unknown entries) takes a new epoch, which makes them let go of the old one; and the
      // old one goes last: its values' deinitializers may read the tree.
      _valuesDidChange()
      let replaced = _baseTraits
      _baseTraits = TraitCollection(_storage: newValue._storage)
      if !changed.isEmpty { root._markPending(changed) }
      withExtendedLifetime(replaced) {}
    }
  }

  /// Creates a graph whose root starts from `baseTraits`.
  ///
  /// - Parameter baseTraits: The traits the root inherits.
  public init(baseTraits: TraitCollection = TraitCollection()) {
    self._baseTraits = TraitCollection(_storage: baseTraits._storage)
    self.root = TraitNode()
    root._graph = self
    _liveNodes = 1
  }

  deinit {
    _walkStack.deallocate()
    _changeCache.deallocate()
    _candidateAddresses.deallocate()
    _recycleCandidates.deallocate()
    _spareStorages.deallocate()
    // NB: nodes hold their graph unowned; a node that outlives its graph must not see it.
    var stack = [root]
    while let node = stack.popLast() {
      node._graph = nil
      node._resolvedEpoch = 0
      stack.append(contentsOf: node._children.nodes)
    }
  }

  // MARK: - State

  // NB: `@exclusivity(unchecked)`: see the note on `TraitNode`'s state.
  @exclusivity(unchecked) var _baseTraits: TraitCollection
  /// Advances on every change of a value or of the tree's shape; cached collections whose epoch
  /// differs revalidate on their next read.
  @usableFromInline @exclusivity(unchecked) var _epoch: UInt64 = 1
  /// The node whose delivery runs a run of registrations, if one does (see
  /// `_NodeObservers.beginRun`).
  @exclusivity(unchecked) var _runNode: Unmanaged<TraitNode>?

  /// Records that a value or the shape of the tree changed: advances the epoch, interrupts the
  /// running run, whose next users must compare with the node's collection as it is now, and
  /// keeps the collection of the node the pass visits, which the visit holds unretained.
  // NB: the run checks its own state after each call, not the epoch as well (traitkit-bench
  // S1). The run interrupted may be another graph's, on the node after it moved there: that run
  // then stops early, and its delivery goes on one registration at a time, as after a run.
  @inline(__always) func _valuesDidChange() {
    _epoch &+= 1
    _TrackingRecord.noteTreeChange()
    if let node = _runNode {
      node._withUnsafeGuaranteedRef { $0._observers.unsafelyUnwrapped.interruptRun() }
    }
    if let storage = _currentCell.storage { _keepVisitedStorage(storage) }
  }

  /// Keeps `storage`, the collection of the node a pass visits, which the visit holds
  /// unretained, until the pass ends: a value or the tree changed, so that its owner — the node,
  /// an ancestor or the base traits — may let go of it while the visit still compares with it
  /// and gives it to registrations.
  // NB: out of line: a value that changes in a handler is the uncommon case.
  @inline(never)
  func _keepVisitedStorage(_ storage: Unmanaged<_Storage>) {
    _recycleAfterPass(storage.retain())
  }

  /// Whether a change waits for a pass; `onNeedsUpdate` runs when this becomes true.
  @exclusivity(unchecked) var _isDirty = false
  /// Whether a pass is running; a nested pass is a no-op.
  @exclusivity(unchecked) var _isUpdating = false
  /// Whether a pass is letting go of the values and nodes it released, whose deinitializers may
  /// call for a pass: one with nothing to do then keeps the ending pass's counters.
  @exclusivity(unchecked) var _isEndingPass = false
  /// The process-wide number of the running or last pass, so that a tracked slot is
  /// invalidated at most once per pass between its runs, whichever graph runs it.
  @exclusivity(unchecked) var _passNumber: UInt64 = 0
  /// The graph whose pass this graph's running pass runs inside, unretained (its pass outlives
  /// this one), or nil.
  @exclusivity(unchecked) var _enclosingPassGraph: Unmanaged<TraitGraph>?
  @exclusivity(unchecked) var _liveNodes = 0
  @exclusivity(unchecked) var _liveRegistrations = 0
  @exclusivity(unchecked) var _lastPass = Statistics.Pass()
  /// Publishes `TraitCollection.current` during a pass.
  let _currentCell = _CurrentCell()
  /// Change checks of the running pass, shared by every node that compares the same collections.
  @exclusivity(unchecked) var _changeCache = _ChangeCache()
  /// Reused buffers, so that steady-state passes and reads allocate nothing.
  @exclusivity(unchecked) var _walkStack = _WalkStack()
  @exclusivity(unchecked) var _scratch: [Unmanaged<TraitNode>] = []
  /// Collections that deliveries and tracked slots let go of while nobody else held them, kept
  /// for reuse by the next override refresh, so that the steady state of a repeated change
  /// allocates nothing.
  ///
  /// Only collections without boxed values are kept: a spare must not keep a value alive that
  /// no collection in use holds. A collection becomes a spare only when the outermost pass ends,
  /// or when no pass runs on this thread (`_keepSpareIfLast`), so a spare refilled in place is
  /// never one that a running pass compared (`_ChangeCache`) or handed to a callback unretained
  /// (`_deliver`'s `previous`).
  @exclusivity(unchecked) var _spareStorages = _StorageList()
  /// How many spares the graph keeps: as many as the refreshes between two pass ends asked for
  /// at most, from 8 to 48 (`_adaptSpareLimit`), so that a change that gives many overriding
  /// nodes new collections is refilled in the steady state too.
  @exclusivity(unchecked) var _spareLimit = _TraitGraphSpares.minimumLimit
  /// The collections that refreshes asked for since the last pass ended.
  @exclusivity(unchecked) var _spareRequests = 0

  /// Collections the pass stopped using as baselines; at its end, those nobody else holds
  /// become spares.
  @exclusivity(unchecked) var _recycleCandidates = _StorageList()
  /// The addresses of the candidates added this pass, so that a collection goes to the list
  /// once (see `_recycleAfterPass`).
  ///
  /// Invariant, on which `_recycleAfterPass`'s early release relies: an address in the set is
  /// that of a collection in `_recycleCandidates`. Every address recorded is paired with an
  /// append, and the set is emptied when the list is.
  @exclusivity(unchecked) private var _candidateAddresses = _AddressSet()

  /// Keeps `storage`, a baseline the running pass stopped using, alive until the pass ends;
  /// takes over the caller's reference.
  ///
  /// A callback of this pass may still be handed the collection (see `_deliver`), so its last
  /// reference must not go before the pass ends.
  @inline(__always) func _recycleAfterPass(_ storage: Unmanaged<_Storage>) {
    // NB: a baseline already in the list stays alive until the pass ends, so this reference can
    // go now. Once in the list, a collection that its holders let go of one by one, with others
    // between them, would be there as many times, and the end of the pass could never find it
    // held by the list alone, to keep it as a spare: registrations that last heard of a change
    // at different passes hold different collections, and a pass lets go of them interleaved
    // (traitkit-bench S2). Colliding addresses must not let a duplicate in either: with a few
    // candidates per pass, a table that kept one address per hash lost a spare in a sizable
    // share of passes, which then allocated (S2 with 4 traits per node: 1 to 7 allocations per
    // 32 writes, depending on where malloc put the collections).
    guard _candidateAddresses.insert(UInt(bitPattern: storage.toOpaque())) else {
      storage.release()
      return
    }
    _recycleCandidates.append(storage)
  }

  /// Keeps, as spares, the candidates without boxed values that only the candidate list holds,
  /// and returns those with boxed values, for the caller to let go of once the pass has ended:
  /// their values' deinitializers may run user code; nil when there are none.
  ///
  /// A pass that runs inside another (a handler updated another graph) hands its candidates to
  /// that pass instead: its deliveries may still use them as baselines.
  // NB: nil rather than an empty array, whose release at the end of every pass cost a call
  // (traitkit-bench S1).
  func _recycleCandidatesAfterPass(enclosing: Unmanaged<TraitGraph>?) -> [_Storage]? {
    guard !_recycleCandidates.isEmpty else { return nil }
    _candidateAddresses.removeAll()
    if let enclosing {
      enclosing._withUnsafeGuaranteedRef {
        $0._recycleCandidates.append(takingAllOf: &_recycleCandidates)
      }
      return nil
    }
    var released: [_Storage]?
    for listed in _recycleCandidates.removeAll() {
      var candidate = listed.takeRetainedValue()
      // NB: every candidate with boxed values, not only those the list alone holds: a
      // collection can be in the list twice (let go of again once the address set was full, or
      // after a nested pass handed its candidates over), and goes when the list lets go of it.
      if candidate.boxCount > 0 {
        if released == nil { released = [] }
        released?.append(candidate)
        continue
      }
      guard _mayKeepSpare(&candidate) else { continue }
      // NB: the list's reference handed on, rather than a new one made for the spares and the
      // list's let go of (traitkit-bench S1).
      _spareStorages.append(Unmanaged.passRetained(consume candidate))
    }
    #if TRAITKIT_INTERNAL_CHECKS
    // NB: each spare taken out of the list, checked while it holds the only reference, and put
    // back at the end: the list keeps its order.
    for _ in 0..<_spareStorages.count {
      var spare = _spareStorages.remove(at: 0).takeRetainedValue()
      precondition(
        spare.boxCount == 0 && isKnownUniquelyReferenced(&spare),
        "Invariant: a spare collection holds no boxed values and nobody else holds it"
      )
      _spareStorages.append(Unmanaged.passRetained(spare))
    }
    #endif
    return released
  }

  /// Hands `storage`, a baseline the running pass stopped using, to `_recycleAfterPass` if the
  /// caller's reference is the last.
  ///
  /// A reference that is not the last is simply let go of by the caller: the collection stays
  /// with its other holders, which a tracked slot never hands to a callback, and the list stays
  /// short.
  @inline(__always) func _recycleIfLast(_ storage: inout _Storage) {
    guard isKnownUniquelyReferenced(&storage) else { return }
    _recycleAfterPass(Unmanaged.passRetained(storage))
  }

  /// Keeps `storage` as a spare if the caller's reference is the last, it holds no boxed values,
  /// and fewer than `_spareLimit` spares are kept: at the end of the outermost pass, or when
  /// something lets go of it outside any pass.
  // NB: the shared empty collection never becomes a spare: the static that holds it makes the
  // caller's reference not the last.
  func _keepSpareIfLast(_ storage: inout _Storage) {
    guard _mayKeepSpare(&storage) else { return }
    _spareStorages.append(Unmanaged.passRetained(storage))
  }

  /// Whether `storage` may become a spare: fewer than `_spareLimit` are kept, it holds no boxed
  /// values, and the caller's reference is the last.
  @inline(__always) private func _mayKeepSpare(_ storage: inout _Storage) -> Bool {
    _spareStorages.count < _spareLimit && storage.boxCount == 0
      && isKnownUniquelyReferenced(&storage)
  }

  /// Raises the number of spares to keep to the collections the refreshes asked for since the
  /// last call, up to 48: at the end of a pass, before its candidates become spares.
  ///
  /// A graph then keeps no more idle collections than its largest pass used, and at least 8.
  func _adaptSpareLimit() {
    if _spareRequests > _spareLimit {
      _spareLimit = Swift.min(_spareRequests, _TraitGraphSpares.maximumLimit)
    }
    _spareRequests = 0
  }

  /// A recycled buffer with room for `capacity` slots, if one is kept, with the reference the
  /// graph held.
  func _takeSpareStorage(capacity: Int) -> Unmanaged<_Storage>? {
    _spareRequests += 1
    // NB: a loop of its own, not a generic algorithm such as `lastIndex(where:)`: unspecialized
    // (-Onone), a generic algorithm reads each element through a coroutine that allocates its
    // frame.
    var position = _spareStorages.count
    while position > 0 {
      position -= 1
      // NB: the spare's count first, from its header: it holds at least as many slots as it
      // counts, and a spare usually counts what the refresh needs; its capacity asks the
      // allocator (`malloc_usable_size`) (traitkit-bench S1).
      guard
        _spareStorages[position]._withUnsafeGuaranteedRef({
          $0.count >= capacity || $0.capacity >= capacity
        })
      else { continue }
      return _spareStorages.remove(at: position)
    }
    // NB: none is large enough: let them all go, so that collections of the size now needed can
    // take their places. Kept, they would fill the list for good, and every refresh would
    // allocate: collections grow when trait types register, so spares made before a
    // registration can be too small for every collection made after it. They hold no boxed
    // values, so letting them go runs no user code.
    if !_spareStorages.isEmpty { _spareStorages.releaseAll() }
    return nil
  }

  /// Traits that handlers changed above the node being visited, for it and its subtree.
  @exclusivity(unchecked) var _visitWidening = _TraitFilter.none
  /// The start of the running subtree pass, if one runs.
  @exclusivity(unchecked) var _subtreePassStart: Unmanaged<TraitNode>?
  /// Whether a handler changed an ancestor of the running subtree pass's start in this round.
  @exclusivity(unchecked) var _ancestorChangedDuringSubtreePass = false
  /// Nodes detached while a pass runs, kept alive until it ends (the pass does not retain the
  /// nodes it walks).
  @exclusivity(unchecked) var _graveyard: [TraitNode] = []
  /// The number of the round walking this graph, or 0 between rounds.
  @exclusivity(unchecked) var _walkRound: UInt64 = 0
  /// Whether a node of this graph left its parent during the running round: then a frame's
  /// node may no longer be where the walk found it (see `TraitGraph._walk`).
  ///
  /// False between rounds: each round's end clears it.
  @exclusivity(unchecked) var _nodeLeftDuringRound = false
  /// The node whose registrations the round is calling, if any: its children come after them.
  @exclusivity(unchecked) var _walkCurrent: Unmanaged<TraitNode>?
  /// The changes the round took to `_walkCurrent` when it began calling its tracking
  /// invalidations and registrations (see `_returnTakenChanges(within:)`).
  @exclusivity(unchecked) var _visitPending = _TraitFilter.none
  /// The marks (`TraitNode._roundMark`) of the running round that nodes had when they left this
  /// graph, or that the round gave nodes of another graph it went past while that graph's own
  /// round ran (which keep that round's mark): another graph's pass may overwrite them, and
  /// they get them back if they return in the round.
  // NB: a node detached during a pass stays alive until the pass ends (the graveyard), so its
  // identifier stands for it until then. One that another graph's nested pass let go may leave
  // its identifier to a new node that joins in this round: that node waits for the next round,
  // as one the round went past does, and loses nothing.
  @exclusivity(unchecked) var _departed: [ObjectIdentifier: UInt64] = [:]

  func _noteDirty() {
    guard !_isDirty else { return }
    _isDirty = true
    onNeedsUpdate?()
  }

  func _takeScratch() -> [Unmanaged<TraitNode>] {
    var scratch: [Unmanaged<TraitNode>] = []
    swap(&scratch, &_scratch)
    return scratch
  }

  func _returnScratch(_ scratch: inout [Unmanaged<TraitNode>]) {
    scratch.removeAll(keepingCapacity: true)
    swap(&scratch, &_scratch)
  }
}

@available(*, unavailable)
extension TraitGraph: Sendable {}

extension _Storage {
  /// The summary of the traits whose values differ between `self` and `other`.
  func differences(from other: _Storage) -> _TraitFilter {
    if self === other { return .none }
    var filter = _TraitFilter.none
    for index in 0..<Swift.max(count, other.count) where !slotEqual(at: index, to: other) {
      filter |= _TraitFilter(index: index)
    }
    return filter
  }
}

/// The bounds of a graph's spare collections (see `TraitGraph._spareLimit`).
enum _TraitGraphSpares {
  static let minimumLimit = 8
  /// As many as the set of a pass's recycling candidates holds.
  static let maximumLimit = _AddressSet.capacity
}
