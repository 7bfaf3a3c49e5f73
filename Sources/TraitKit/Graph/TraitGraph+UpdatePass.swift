import Synchronization

/// One level of the update pass's explicit stack: the pass never recurses, so a chain of any
/// depth runs in constant native stack.
struct _WalkFrame {
  let node: TraitNode
  /// The traits that may have changed for this node and its subtree.
  let pending: _TraitFilter
  /// The next child to consider.
  var next: Int
}

extension TraitGraph {
  /// Runs the update pass: delivers every pending change to the registrations it concerns.
  ///
  /// A pass is synchronous and made of rounds. A round walks the dirty part of the tree
  /// depth-first in pre-order (a node before its children, children in the order they were
  /// added) and skips every subtree in which nobody observes a trait that may have changed. At
  /// each node it runs automatic-tracking invalidations, then registrations in the order they
  /// were made, then legacy callbacks. A registration is called at most once per round, when one
  /// of its traits differs from its baseline. Changes that handlers make are delivered by
  /// follow-up rounds within the same call. Calling this from inside a pass does nothing.
  ///
  /// - Precondition: The pass converges within 100 rounds.
  /// - Complexity: O(*v* + *c*), where *v* is the number of nodes on the paths to observers of
  ///   the changed traits and *c* the number of their registrations.
  public func updateTraitsIfNeeded() {
    guard !_isUpdating else { return }
    _isDirty = true
    _runPass(from: root) { .none }
    _isDirty = false
  }

  /// Runs the update pass for the subtree of `start`, which is in this graph.
  func _updateTraits(from start: TraitNode) {
    guard !_isUpdating else { return }
    guard start !== root else { return updateTraitsIfNeeded() }
    _runPass(from: start) {
      var inherited = _TraitFilter.none
      var ancestor = start._parent
      while let node = ancestor {
        inherited |= node._pending
        ancestor = node._parent
      }
      return inherited
    }
    // The ancestors' flags may now claim pending work that the subtree pass has done.
    var child = start
    while let parent = child._parent {
      parent._hasPendingBelow = parent._children.contains {
        !$0._pending.isEmpty || $0._hasPendingBelow
      }
      child = parent
    }
    _isDirty = !root._pending.isEmpty || root._hasPendingBelow
  }

  /// Numbers passes across all graphs.
  static let _nextPassNumber = Atomic<UInt64>(0)

  private func _runPass(from start: TraitNode, inherited: () -> _TraitFilter) {
    _lastPass = Statistics.Pass()
    var pending = inherited()
    guard !pending.isEmpty || !start._pending.isEmpty || start._hasPendingBelow else { return }
    _isUpdating = true
    defer { _changeCache.clear() }
    _passNumber = TraitGraph._nextPassNumber.wrappingAdd(1, ordering: .relaxed).newValue
    let enclosingCell = _CurrentCell.active
    _CurrentCell.active = _currentCell
    defer {
      _CurrentCell.active = enclosingCell
      _currentCell.storage = nil
      _isUpdating = false
    }
    while true {
      _lastPass.rounds += 1
      _walk(from: start, inherited: pending)
      if start._pending.isEmpty && !start._hasPendingBelow { break }
      precondition(
        _lastPass.rounds < 100,
        "Trait updates did not converge after 100 rounds: trait change handlers keep changing "
          + "the traits they observe"
      )
      pending = inherited()
    }
  }

  /// One round: visits, in pre-order, every node whose subtree may observe a pending change.
  private func _walk(from start: TraitNode, inherited: _TraitFilter) {
    var stack: ContiguousArray<_WalkFrame> = []
    swap(&stack, &_walkStack)
    defer {
      stack.removeAll(keepingCapacity: true)
      swap(&stack, &_walkStack)
    }
    let startPending = inherited | start._pending
    start._pending = .none
    start._hasPendingBelow = false
    _visit(start, pending: startPending)
    stack.append(_WalkFrame(node: start, pending: startPending, next: 0))
    while let top = stack.indices.last {
      let node = stack[top].node
      let next = stack[top].next
      guard next < node._children.count else {
        var observed = node._ownObserved
        for child in node._children { observed |= child._subtreeObserved }
        node._subtreeObserved = observed
        stack.removeLast()
        continue
      }
      stack[top].next = next + 1
      let child = node._children[next]
      let parentPending = stack[top].pending
      guard
        parentPending.intersects(child._subtreeObserved) || !child._pending.isEmpty
          || child._hasPendingBelow
      else { continue }
      let pending = parentPending | child._pending
      child._pending = .none
      child._hasPendingBelow = false
      _visit(child, pending: pending)
      stack.append(_WalkFrame(node: child, pending: pending, next: 0))
    }
  }

  /// Delivers, at one node, what `pending` may have changed: tracking invalidations first, then
  /// registrations, then legacy callbacks.
  private func _visit(_ node: TraitNode, pending: _TraitFilter) {
    _lastPass.nodesVisited += 1
    guard pending.intersects(node._ownObserved) else { return }
    let storage = node._resolvedStorage()
    _currentCell.storage = Unmanaged.passUnretained(storage)
    defer { _currentCell.storage = nil }
    if let tracking = node._tracking, pending.intersects(tracking.observed) {
      _lastPass.invalidationsDelivered += tracking.invalidate(
        node,
        current: storage,
        pass: _passNumber
      )
    }
    guard let observers = node._observers, pending.intersects(observers.observed) else { return }
    observers.deliveryDepth += 1
    let end = observers.count
    _deliver(node, observers, storage, pending: pending, end: end, allTraits: false)
    if observers.allTraitsCount > 0 {
      _deliver(node, observers, storage, pending: pending, end: end, allTraits: true)
    }
    observers.deliveryDepth -= 1
    observers.compactIfIdle()
  }

  /// Calls, in order, the registrations among the node's first `end` whose traits changed.
  private func _deliver(
    _ node: TraitNode,
    _ observers: _NodeObservers,
    _ storage: _Storage,
    pending: _TraitFilter,
    end: Int,
    allTraits: Bool
  ) {
    // Registrations made or called together share a snapshot and usually their traits: look up
    // the snapshot and compare once for all of them.
    var current: Int32 = -1
    var memoSnapshot: Int32 = -1
    var previous = TraitCollection(_storage: storage)
    var memoFilter = _TraitFilter.none
    var memoChanged = false
    var callbacks = 0
    var legacyCallbacks = 0
    var wastedLegacyCallbacks = 0
    defer {
      _lastPass.callbacksDelivered += callbacks
      _lastPass.legacyCallbacksDelivered += legacyCallbacks
      _lastPass.wastedLegacyCallbacks += wastedLegacyCallbacks
    }
    for position in 0..<end {
      guard position < observers.count else { return }
      let entry = observers.entries[position]
      guard entry.isLive, entry.observesAllTraits == allTraits, pending.intersects(entry.filter)
      else { continue }
      if entry.snapshot == current { continue }
      if entry.snapshot != memoSnapshot {
        memoSnapshot = entry.snapshot
        previous = TraitCollection(_storage: observers.baseline(entry.snapshot))
        memoFilter = .none
      }
      let changed: Bool
      if entry.filterIsExact, memoFilter == entry.filter, !memoFilter.isEmpty {
        changed = memoChanged
      } else if entry.filterIsExact {
        changed = _changeCache.sawChange(entry, in: storage, from: previous._storage)
        memoFilter = entry.filter
        memoChanged = changed
      } else {
        changed = entry.sawChange(in: storage, from: previous._storage)
      }
      guard changed else { continue }
      if !observers.snapshot(current, holds: storage) {
        current = observers.snapshot(for: storage)
      }
      observers.use(current)
      observers.release(entry.snapshot)
      observers.move(position, to: current)
      if allTraits {
        legacyCallbacks += 1
        if entry.box._withUnsafeGuaranteedRef({ box in
          !box.traits.isEmpty
            && !box.traits.contains { !storage.slotEqual(at: $0, to: previous._storage) }
        }) {
          wastedLegacyCallbacks += 1
        }
      } else {
        callbacks += 1
      }
      // NB: the box stays alive until compaction, which waits for this delivery to end.
      let alive = entry.box._withUnsafeGuaranteedRef { $0.callback(node, previous) }
      if !alive, let position = observers.position(of: entry.id) {
        node._killRegistration(at: position, in: observers)
      }
    }
  }
}
