import Synchronization

/// One level of the update pass's explicit stack: the pass never recurses, so a chain of any
/// depth runs in constant native stack.
///
/// Frames hold their nodes unretained: a node is retained by its parent, and a node detached
/// while a pass runs is kept alive by the graph's graveyard until the pass ends.
/// What the walk does next at the top frame.
enum _WalkStep {
  /// Every child was considered: pop the frame, adding its subtree's summary to its parent's.
  case pop(_TraitFilter)
  /// Visit the last child considered with these pending traits.
  case visit(_TraitFilter)
}

struct _WalkFrame {
  let node: Unmanaged<TraitNode>
  /// The traits that may have changed for this node and its subtree.
  var pending: _TraitFilter
  /// The next child to consider.
  var next: Int
  /// The node's `_childrenVersion` when `next` was computed.
  var version: UInt32
  /// The node's own observed traits joined with its children's summaries seen so far: the node's
  /// new `_subtreeObserved` once every child has been considered.
  var observed: _TraitFilter
}

extension TraitGraph {
  /// Runs the update pass: delivers every pending change to the registrations it concerns.
  ///
  /// A pass is synchronous and made of rounds. A round walks the dirty part of the tree
  /// depth-first in pre-order (a node before its children, children in the order they were
  /// added) and skips every subtree in which nobody observes a trait that may have changed, or
  /// whose nearer override shields it from the change. At each node it runs automatic-tracking
  /// invalidations, then registrations in the order they were made, then legacy callbacks. A
  /// registration is called at most once per round, when one of its traits differs from its
  /// baseline. Changes that handlers make are delivered within the same call: in the same round
  /// when they concern nodes the walk has not reached yet, otherwise by a follow-up round (a
  /// round that finds nothing left to deliver may still be counted). Calling this from inside a
  /// pass does nothing.
  ///
  /// - Precondition: The pass converges within 100 rounds.
  /// - Complexity: O(*v* + *k* + *c*), where *v* is the number of nodes on the paths to
  ///   observers of the changed traits, *k* the number of those nodes' children (the walk checks
  ///   each child's summary) and *c* the number of their registrations.
  public func updateTraitsIfNeeded() {
    guard _isDirty else {
      // Nothing is pending: the pass has nothing to do.
      if !_isEndingPass { _lastPass = Statistics.Pass() }
      return
    }
    guard !_isUpdating else { return }
    _runPass(from: root) { .none }
    _isDirty = false
    // NB: deinitializers that ran as the pass let go of detached nodes may have changed values.
    if !root._pending.isEmpty || root._hasPendingBelow { _noteDirty() }
  }

  /// Runs the update pass for the subtree of `start`, which is in this graph.
  func _updateTraits(from start: TraitNode) {
    guard !_isUpdating else { return }
    guard start !== root else { return updateTraitsIfNeeded() }
    _subtreePassStart = Unmanaged.passUnretained(start)
    defer { _subtreePassStart = nil }
    /// The start's ancestors, nearest first, when changes pending at them reach the subtree.
    var ancestors: [TraitNode] = []
    let walkEndEpoch = _runPass(from: start) {
      // Changes pending above `start`, less those an override on the way down shields.
      var inherited = _TraitFilter.none
      var shield = start._shield
      var ancestor = start._parent
      while let node = ancestor {
        inherited |= node._pending & ~shield
        shield |= node._shield
        ancestor = node._parent
      }
      // NB: once: the closure runs again for each round of the pass.
      if !inherited.isEmpty, ancestors.isEmpty {
        ancestor = start._parent
        while let node = ancestor {
          ancestors.append(node)
          ancestor = node._parent
        }
      }
      return inherited
    }
    // Nothing was pending for the subtree, so nothing changed; on a clean graph nothing is
    // pending anywhere, and the flags above need no refresh. On a dirty one they do: the work
    // they claim may have left with a node detached since.
    guard walkEndEpoch != nil || _isDirty else { return }
    // NB: only when nothing changed after the last round: a deinitializer that the pass's end
    // ran may have changed a trait above the start that the subtree has not heard of.
    if _epoch == walkEndEpoch { _keepPendingNeededOutside(start, below: ancestors) }
    // The ancestors' flags may now claim pending work that the subtree pass has done.
    var child = start
    while let parent = child._parent {
      parent._hasPendingBelow = (0..<parent._children.count).contains { position in
        parent._children[position]._withUnsafeGuaranteedRef {
          !$0._pending.isEmpty || $0._hasPendingBelow
        }
      }
      child = parent
    }
    // NB: not only the start's ancestors now: a handler may have moved or detached the start or
    // one of them, whose former ancestors still claim the work.
    // A graph that was clean and has work now goes dirty as any change makes it, telling the host
    // (R5): another graph's pass may have left changes pending at nodes that a handler moved
    // here (`TraitNode._keepPending(_:)`), which this walk found.
    if _hasPendingWork() { _noteDirty() } else { _isDirty = false }
  }

  /// Moves the changes pending at `ancestors`, the nearest first, which a subtree pass from
  /// `start` delivered to its subtree, down to where something outside that subtree observes
  /// them: each ancestor keeps those its own registrations observe, and each of its other
  /// children whose subtree observes one and does not override it takes it as pending.
  ///
  /// Without it, a change above that only the subtree observes would keep the graph dirty after
  /// the subtree pass delivered it, and the next change would not call `onNeedsUpdate` (R5);
  /// kept at the ancestor, a change that sibling subtrees observe would keep it dirty after
  /// their own subtree passes delivered it too. A pass from the ancestor would carry the change
  /// down to those children just the same. Only while the ancestors are still the start's, as
  /// they were when the pass began.
  private func _keepPendingNeededOutside(_ start: TraitNode, below ancestors: [TraitNode]) {
    guard !ancestors.isEmpty,
      start._isIn(self)
    else { return }
    var node = start
    for ancestor in ancestors {
      guard node._parent === ancestor else { return }
      node = ancestor
    }
    guard node._parent == nil else { return }
    // From the root down: what reaches each ancestor is its own pending changes and those that
    // come down to it from above through its shield.
    var reaching = _TraitFilter.none
    for (depth, ancestor) in ancestors.enumerated().reversed() {
      reaching = ancestor._pending | (reaching & ~ancestor._shield)
      ancestor._pending = reaching & ancestor._observedHere
      guard !reaching.isEmpty else { continue }
      let child = depth == 0 ? start : ancestors[depth - 1]
      for position in 0..<ancestor._children.count {
        ancestor._children[position]._withUnsafeGuaranteedRef { other in
          guard other !== child else { return }
          other._pending |= reaching & ~other._shield & other._subtreeObserved
        }
      }
    }
  }

  /// Whether a change in the tree still waits for a pass.
  ///
  /// Follows `_hasPendingBelow` down from the root, clearing it on each node below which nothing
  /// turns out to wait: a subtree pass leaves it set on the nodes that were above its start,
  /// and so does a node that leaves its parent while a change waits in its subtree. Stops at
  /// the first node with a pending change, so it costs the nodes flagged for nothing, the path
  /// to that node, and their children.
  func _hasPendingWork() -> Bool {
    if !root._pending.isEmpty { return true }
    guard root._hasPendingBelow else { return false }
    // NB: the pass's stack, idle between passes; the frames' other fields go unused.
    _walkStack.removeAll()
    defer { _walkStack.removeAll() }
    func frame(_ node: Unmanaged<TraitNode>) -> _WalkFrame {
      _WalkFrame(node: node, pending: .none, next: 0, version: 0, observed: .none)
    }
    _walkStack.push(frame(Unmanaged.passUnretained(root)))
    while let top = _walkStack.topIndex {
      let node = _walkStack[top].node
      let position = _walkStack[top].next
      guard position < node._withUnsafeGuaranteedRef({ $0._children.count }) else {
        node._withUnsafeGuaranteedRef { $0._hasPendingBelow = false }
        _walkStack.pop()
        continue
      }
      _walkStack[top].next = position + 1
      let child = node._withUnsafeGuaranteedRef { $0._children[position] }
      let (isPending, hasPendingBelow) = child._withUnsafeGuaranteedRef {
        (!$0._pending.isEmpty, $0._hasPendingBelow)
      }
      // The nodes on the stack keep their flags: the change waits below each of them.
      if isPending { return true }
      if hasPendingBelow { _walkStack.push(frame(child)) }
    }
    return false
  }

  /// Widens the running walk after a handler marked `node` pending with `filter`.
  ///
  /// The frame of `node` and the frames below it on the walk's path take the new traits, less the
  /// overrides that shield them, so that the nodes the walk has not reached yet hear of the
  /// change in this round; `node` itself, already visited, keeps it pending for a follow-up
  /// round. A subtree pass also notes a change above its start, which concerns the
  /// subtree but is outside the walk.
  func _walkDidMark(_ node: TraitNode, _ filter: _TraitFilter) {
    let target = Unmanaged.passUnretained(node).toOpaque()
    var found = false
    if let start = _subtreePassStart, start.toOpaque() != target,
      start._withUnsafeGuaranteedRef({ $0._hasAncestor(node) })
    {
      // Above the subtree pass's start, so above every frame: every frame is below it.
      _ancestorChangedDuringSubtreePass = true
      found = true
    }
    guard let top = _walkStack.topIndex else {
      if found { _visitWidening |= filter }
      return
    }
    var reaching = filter
    for position in 0...top {
      if found {
        reaching = reaching & ~_walkStack[position].node._withUnsafeGuaranteedRef { $0._shield }
        _walkStack[position].pending |= reaching
      } else if _walkStack[position].node.toOpaque() == target {
        // The node's own frame too: the children it has not reached yet hear of it now.
        _walkStack[position].pending |= reaching
        found = true
      }
    }
    // The node being visited is a child of the top frame: it is below `node` too.
    if found { _visitWidening |= reaching }
  }

  /// Adds `filter`, newly observed somewhere in the tree, to the summaries the running walk is
  /// accumulating, so that writing them back when it leaves a node keeps it.
  ///
  /// Every frame takes it (a superset for frames that are not the new observer's ancestors is
  /// harmless: it only costs visits).
  func _walkDidObserve(_ filter: _TraitFilter) {
    guard let top = _walkStack.topIndex else { return }
    for position in 0...top { _walkStack[position].observed |= filter }
  }

  /// Records that the running round, whose visit mark is `visitMark`, went past `node`, which a
  /// handler detached or moved to another graph, and keeps `reaching`, what the round would have
  /// told it, for a pass of the graph it is in then.
  ///
  /// The round went past it all the same (R5), should a handler move it back. But a node keeps
  /// one round's mark: one of the running round of the graph it is in (its visit or passing
  /// there left it, or a move into that graph restored it) stays, or that round would visit it
  /// again; this round's waits among the nodes that left this graph, which a move back during
  /// the round restores.
  // NB: out of line, off the walk's loop over children (traitkit-bench S3: inline, TraitKit's
  // time doubled; out of line, it is about 8% above what it was before this check, because the
  // compiler stopped inlining the refresh closure of `_visit` into the walk).
  @inline(never)
  func _wentPast(_ node: TraitNode, inAnotherGraph visitMark: UInt64, reaching: _TraitFilter) {
    if let other = node._graphRef, other._withUnsafeGuaranteedRef({ $0._walkRound != 0 }) {
      _departed[ObjectIdentifier(node)] = visitMark
    } else {
      node._roundMark = visitMark
    }
    node._keepPending(reaching | node._pending)
  }

  /// Numbers passes across all graphs.
  static let _nextPassNumber = Atomic<UInt64>(0)
  /// How many bits of a round's number (see `_walk(from:inherited:round:)`) count the rounds of
  /// its pass: more than the 100 a pass may run.
  static let _roundBits: UInt64 = 7

  /// Lets go of `released` and `buried` within this call, so that their deinitializers run
  /// while the caller says the pass is ending.
  ///
  /// NB: not optimized, so that the optimizer can neither inline it nor have the caller let go
  /// of the values after the call instead, as a release build did
  /// (`deinitializerNoOpPassKeepsCounters`).
  @inline(never) @_optimize(none)
  private static func _letGo(_ released: consuming [_Storage]?, _ buried: consuming [TraitNode]?) {}

  /// Runs a pass from `start`, given the changes pending above it that reach it (asked again
  /// for each round); returns the graph's epoch when the last round ended, before the pass's
  /// end let go of values and nodes, or `nil` when nothing was pending, so that no pass ran.
  @discardableResult
  private func _runPass(from start: TraitNode, inherited: () -> _TraitFilter) -> UInt64? {
    var pending = inherited()
    guard !pending.isEmpty || !start._pending.isEmpty || start._hasPendingBelow else {
      // NB: a call from a deinitializer that the ending pass runs keeps that pass's counters,
      // as a call from its handlers would.
      if !_isEndingPass { _lastPass = Statistics.Pass() }
      return nil
    }
    _lastPass = Statistics.Pass()
    _isUpdating = true
    _passNumber = TraitGraph._nextPassNumber.wrappingAdd(1, ordering: .relaxed).newValue
    // NB: a round's number is its pass's and its count within the pass, unique across graphs as
    // pass numbers are, rather than another process-wide counter: an atomic increment per round
    // (traitkit-bench S1).
    let firstRound = _passNumber &<< TraitGraph._roundBits
    var round = firstRound
    // NB: the enclosing pass's cell and graph unretained, as the thread-local slot holds them:
    // their passes outlive this one (traitkit-bench S1: a retain and a release per pass).
    let enclosingCell = _ThreadLocals.currentCell
    let enclosingGraph = _CurrentCell.activeGraph
    _enclosingPassGraph = enclosingGraph
    _currentCell.graph = Unmanaged.passUnretained(self)
    _ThreadLocals.currentCell = Unmanaged.passUnretained(_currentCell).toOpaque()
    defer {
      _ThreadLocals.currentCell = enclosingCell
      _enclosingPassGraph = nil
      _currentCell.storage = nil
      _currentCell.node = nil
      _changeCache.clear()
      _adaptSpareLimit()
      let released = _recycleCandidatesAfterPass(enclosing: enclosingGraph)
      _isUpdating = false
      // NB: the graveyard taken out and emptied before its nodes go: their deinitializers may run
      // a pass of this graph, whose end must not let them go again.
      // NB: nil rather than an empty array, whose release at the end of every pass cost a call
      // (traitkit-bench S1: 18 instructions a pass).
      var buried: [TraitNode]?
      if !_graveyard.isEmpty {
        var taken: [TraitNode] = []
        swap(&taken, &_graveyard)
        // NB: the enclosing pass may still be walking these nodes.
        enclosingGraph?._withUnsafeGuaranteedRef { $0._graveyard.append(contentsOf: taken) }
        buried = consume taken
      }
      _checkInvariants()
      // NB: last, with the pass over: the values' and the buried nodes' deinitializers may
      // change the tree or run a pass of this graph.
      if released != nil || buried != nil {
        let wasEnding = _isEndingPass
        _isEndingPass = true
        Self._letGo(consume released, consume buried)
        _isEndingPass = wasEnding
      }
    }
    while true {
      _lastPass.rounds += 1
      _ancestorChangedDuringSubtreePass = false
      round &+= 1
      _walk(from: start, inherited: pending, round: round)
      if start._pending.isEmpty && !start._hasPendingBelow && !_ancestorChangedDuringSubtreePass {
        break
      }
      // A subtree pass whose start a handler detached, or moved to another graph, ends: the
      // start and its subtree hear of nothing more from it (R10); what is pending there waits
      // for a pass of the graph they are in.
      guard start._isIn(self) else {
        break
      }
      // NB: the pass's own count of its rounds, which keeps their numbers within its own.
      _requireAPI(
        round &- firstRound < 100,
        "Trait updates did not converge after 100 rounds: trait change handlers keep making "
          + "changes that need another round (a handler that keeps changing what it observes, "
          + "or a chain of over 100 changes to nodes the walk has passed)"
      )
      pending = inherited()
    }
    // NB: read before the deferred end of the pass, whose deinitializers may change values.
    return _epoch
  }

  /// One round: visits, in pre-order, every node whose subtree may observe a pending change.
  ///
  /// NB: nodes are handled through guaranteed `Unmanaged` references, so that the walk does no
  /// reference counting; see `_WalkFrame` for why they stay alive.
  ///
  /// `round` numbers the round, uniquely in the process (0 is none): nodes keep it as their
  /// visit mark, which they carry into other graphs.
  private func _walk(from start: TraitNode, inherited: _TraitFilter, round: UInt64) {
    let graph = Unmanaged.passUnretained(self).toOpaque()
    _walkStack.removeAll()
    _walkRound = round
    defer {
      _walkRound = 0
      _nodeLeftDuringRound = false
      if !_departed.isEmpty { _departed.removeAll() }
      _coverWrittenSummaries(from: start)
    }
    let startPending = (inherited & ~start._shield) | start._pending
    start._pending = .none
    start._hasPendingBelow = false
    let visitMark = TraitNode._visitMark(of: round)
    start._roundMark = visitMark
    let startReference = Unmanaged.passUnretained(start)
    var visitPending = startPending
    _walkCurrent = startReference
    _visit(startReference, pending: &visitPending)
    _walkCurrent = nil
    _walkStack.push(_frame(startReference, pending: visitPending))
    while let top = _walkStack.topIndex {
      let step: _WalkStep = _walkStack[top].node._withUnsafeGuaranteedRef { node in
        if node._childrenVersion != _walkStack[top].version {
          // A handler added or removed children of this node: consider them all again,
          // skipping the ones this round has visited or passed (see
          // `TraitNode._willChangeChildren`).
          _walkStack[top].next = 0
          _walkStack[top].version = node._childrenVersion
          _walkStack[top].observed = node._observedHere
        }
        // NB: the children this node skips are considered in this inner loop, with the frame's
        // state in locals, written back once (traitkit-bench S2: most children are skipped).
        let pending = _walkStack[top].pending
        let count = node._children.count
        var next = _walkStack[top].next
        var observed = _walkStack[top].observed
        defer {
          _walkStack[top].next = next
          _walkStack[top].observed = observed
        }
        while next < count {
          let child = node._children[next]
          next += 1
          let visitPending: _TraitFilter? = child._withUnsafeGuaranteedRef { child in
            let reaching = pending & ~child._shield
            guard
              reaching.intersects(child._subtreeObserved) || !child._pending.isEmpty
                || child._hasPendingBelow
            else {
              observed |= child._subtreeObserved
              return nil
            }
            // A node visited or passed in this round is not visited again: a handler moved it
            // here (under a restarted frame, or one the walk had not reached). What the move
            // left pending waits for the next round, which must find the way to it (R5); so does
            // what reaches it now, which may have changed since the visit: in a subtree pass, a
            // change above the start that a handler then moved ahead of the walk, whose visit
            // took it from there (a change it heard of already costs the next round a visit).
            // NB: checked after the filters, on the path that visits: most children are
            // skipped before it (traitkit-bench S2).
            if child._roundMark == visitMark {
              observed |= child._subtreeObserved
              _keepPending(reaching, atGonePast: child)
              return nil
            }
            // A node a handler detached (the walk was in its subtree), or moved to another
            // graph, hears of nothing from this pass (R10); its parent's summary keeps what it
            // observes, for the passes after it is attached again.
            guard child._graphRef?.toOpaque() == graph else {
              observed |= child._subtreeObserved
              _wentPast(child, inAnotherGraph: visitMark, reaching: reaching)
              return nil
            }
            let visitPending = reaching | child._pending
            child._pending = .none
            child._hasPendingBelow = false
            child._roundMark = visitMark
            return visitPending
          }
          if let visitPending { return .visit(visitPending) }
        }
        _writeSummary(observed, of: node, graph: graph)
        return .pop(observed)
      }
      switch step {
      case .pop(let observed):
        let node = _walkStack[top].node
        _walkStack.pop()
        if let parent = _walkStack.topIndex { _frame(parent, takes: observed, from: node) }
      case .visit(var pending):
        let child = _walkStack[top].node._withUnsafeGuaranteedRef {
          $0._children[_walkStack[top].next - 1]
        }
        _walkCurrent = child
        _visit(child, pending: &pending)
        _walkCurrent = nil
        // A node with no children, even after its handlers ran, has nothing below it to walk:
        // the walk leaves it at once, as it would leave its frame.
        // NB: no frame pushed, stepped and popped for it (traitkit-bench S2, S9: most of the
        // nodes a pass visits are leaves).
        guard child._withUnsafeGuaranteedRef({ $0._children.count }) == 0 else {
          _walkStack.push(_frame(child, pending: pending))
          continue
        }
        let observed = child._withUnsafeGuaranteedRef { $0._observedHere }
        child._withUnsafeGuaranteedRef { _writeSummary(observed, of: $0, graph: graph) }
        _frame(top, takes: observed, from: child)
      }
    }
  }

  /// Writes `observed`, what the walk found observed in `node`'s subtree, as `node`'s summary,
  /// as the walk leaves it.
  @inline(__always)
  private func _writeSummary(
    _ observed: _TraitFilter,
    of node: TraitNode,
    graph: UnsafeMutableRawPointer
  ) {
    // A node a handler took out of this graph keeps what it observed beyond what the walk saw:
    // observers added in its subtree since, in the graph it is in, told that graph's walk, if
    // any, not this one's frames (see `TraitNode._propagateObserved`).
    // NB: one test of the graph's flag while no node moved (traitkit-bench S2, S9).
    if !_nodeLeftDuringRound || node._graphRef?.toOpaque() == graph {
      node._subtreeObserved = observed
    } else {
      node._subtreeObserved |= observed
    }
  }

  /// Adds `observed`, the summary the walk just wrote as it left `node`, a child of the node of
  /// the frame at `parent` when the walk went into it, to that frame's.
  @inline(__always)
  private func _frame(
    _ parent: Int,
    takes observed: _TraitFilter,
    from node: Unmanaged<TraitNode>
  ) {
    _walkStack[parent].observed |= observed
    // A node a handler moved from under the node of the frame below, which takes its summary:
    // its parent now covers it. (The start's parent does at the end of the round.)
    // NB: one test of the graph's flag while no node moved (traitkit-bench S2, S3, S9).
    if _nodeLeftDuringRound,
      node._withUnsafeGuaranteedRef({ $0._parentRef?.toOpaque() })
        != _walkStack[parent].node.toOpaque()
    {
      _coverSummary(of: node)
    }
  }

  /// Whether this graph's running pass runs inside the pass numbered `pass` (of another graph),
  /// at any depth.
  func _isInsidePass(_ pass: UInt64) -> Bool {
    var enclosing = _enclosingPassGraph
    while let graph = enclosing {
      let (number, next) = graph._withUnsafeGuaranteedRef {
        ($0._passNumber, $0._enclosingPassGraph)
      }
      if number == pass { return true }
      enclosing = next
    }
    return false
  }

  /// How many of `node`'s children the running round has considered — visited, or passed
  /// because nothing pending concerns their subtrees — given that the round visited or passed
  /// `node` itself.
  ///
  /// All of them when the round is done with `node` (it passed it, or went through its
  /// children); those before the walk's position when it is going through them; none while it
  /// calls `node`'s registrations, which come first.
  func _consideredChildren(of node: TraitNode) -> Int {
    if _walkCurrent?.toOpaque() == Unmanaged.passUnretained(node).toOpaque() { return 0 }
    return _frameProgress(of: node) ?? node._children.count
  }

  /// How many of `node`'s children its frame has considered, when the walk is going through
  /// them; nil when `node` has no frame.
  func _frameProgress(of node: TraitNode) -> Int? {
    let address = Unmanaged.passUnretained(node).toOpaque()
    guard let top = _walkStack.topIndex else { return nil }
    for position in stride(from: top, through: 0, by: -1)
    where _walkStack[position].node.toOpaque() == address {
      // NB: the frame's count holds for the children as the frame last saw them; a change
      // since makes the walk consider them all again.
      guard _walkStack[position].version == node._childrenVersion else { return 0 }
      return _walkStack[position].next
    }
    return nil
  }

  /// At the end of a round, makes the start's parent, in a subtree pass, cover the summary the
  /// walk wrote over the start's, which no frame below took.
  ///
  /// A frame's summary may hold traits that registrations made during the walk observe
  /// elsewhere (see `_walkDidObserve`).
  private func _coverWrittenSummaries(from start: TraitNode) {
    start._parent?._propagateObserved(start._subtreeObserved)
  }

  /// Makes the parent of `node`, whose summary the walk just wrote as it left its frame, cover
  /// it: a handler moved `node` from under the node of the frame below, wherever it was then (in
  /// this graph, another, or none), so that frame's summary will not reach its parent.
  @inline(never)
  private func _coverSummary(of node: Unmanaged<TraitNode>) {
    node._withUnsafeGuaranteedRef { $0._parent?._propagateObserved($0._subtreeObserved) }
  }

  /// Whether the running round is calling `node`'s registrations or going through its children:
  /// it has not gone past a child that `node` gets now.
  func _isGoingThroughChildren(of node: TraitNode) -> Bool {
    _walkCurrent?.toOpaque() == Unmanaged.passUnretained(node).toOpaque()
      || _frameProgress(of: node) != nil
  }

  /// Keeps what reaches `child`, which the running round visited or went past already, pending
  /// for the next round, and makes the walk's path lead that round to it.
  // NB: out of line: inlined, it made the step's closure too big to inline into the walk
  // (traitkit-bench S3: +46% instructions).
  @inline(never)
  private func _keepPending(_ reaching: _TraitFilter, atGonePast child: TraitNode) {
    child._keepPending(reaching)
    if !child._pending.isEmpty || child._hasPendingBelow { _markPendingBelow(above: child) }
  }

  /// Gives the nodes of `subtree`, which leaves this graph while a round walks it, back the changes
  /// the round took from them and has not delivered yet: those of the node it visits and of the
  /// frames on its path, which it carries to their later observers and down their subtrees.
  ///
  /// R5: the round no longer delivers them there (R10), and the move marks every trait pending
  /// at the subtree's root only: an override below the root shields the nodes under it from that
  /// mark, so without them a pass of the graph the subtree joins (one that user code runs at
  /// once, inside this pass, too) would not hear of those changes, and nothing would ask it for
  /// another pass that does (`CrossGraphNestedPassPendingTests`). What came from above the root
  /// is stale, and the root's mark covers it anyway.
  @inline(never)
  func _returnTakenChanges(within subtree: TraitNode) {
    func isInSubtree(_ node: TraitNode) -> Bool { node === subtree || node._hasAncestor(subtree) }
    if let current = _walkCurrent {
      current._withUnsafeGuaranteedRef { if isInSubtree($0) { $0._keepPending(_visitPending) } }
    }
    guard let top = _walkStack.topIndex else { return }
    for position in 0...top {
      let pending = _walkStack[position].pending
      _walkStack[position].node._withUnsafeGuaranteedRef {
        if isInSubtree($0) { $0._keepPending(pending) }
      }
    }
  }

  /// Marks every ancestor of `child` as having a pending descendant, so that the next round
  /// reaches a child this round skipped with changes still pending.
  ///
  /// The ancestors `child` has now, not the walk's path: a handler may have moved a node of the
  /// path, even into another graph, whose later changes below it would then stop at its mark and
  /// never reach its new root (R5, R10; `MovedWalkPathTests`). All of them, without stopping at
  /// a marked one: the walk clears the marks of the nodes it goes into.
  private func _markPendingBelow(above child: TraitNode) {
    var ancestor = child._parentRef
    while let node = ancestor {
      ancestor = node._withUnsafeGuaranteedRef {
        $0._hasPendingBelow = true
        return $0._parentRef
      }
    }
  }

  @inline(__always) private func _frame(
    _ node: Unmanaged<TraitNode>,
    pending: _TraitFilter
  )
    -> _WalkFrame
  {
    node._withUnsafeGuaranteedRef { node in
      _WalkFrame(
        node: Unmanaged.passUnretained(node),
        pending: pending,
        next: 0,
        version: node._childrenVersion,
        observed: node._observedHere
      )
    }
  }
}
