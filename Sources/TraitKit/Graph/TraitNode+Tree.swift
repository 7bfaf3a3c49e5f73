// The tree: adding, moving and removing children, and what a move does to a round under way.

extension TraitNode {
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
}
