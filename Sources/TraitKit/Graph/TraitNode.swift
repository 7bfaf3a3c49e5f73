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
/// Nodes are not `Sendable`: a tree lives in the isolation domain that created it.
open class TraitNode: TraitEnvironment {
  // NB: `@exclusivity(unchecked)` on the engine's hot state: it is confined to one isolation
  // domain, and the engine never holds an access to it across a call into user code. Dynamic
  // exclusivity checks cost about a third of a delivery (measured with callgrind).
  // MARK: Tree

  /// The parent; cleared by the parent's `deinit`, which outlives no child's use of it.
  @exclusivity(unchecked) unowned(unsafe) final var _parent: TraitNode?
  @exclusivity(unchecked) final var _children: ContiguousArray<TraitNode> = []
  /// The graph whose tree holds this node, or nil for a detached node.
  @exclusivity(unchecked) unowned(unsafe) final var _graph: TraitGraph?

  // MARK: Values

  @exclusivity(unchecked) final var _overrides = TraitOverrides()
  /// The resolved collection, valid while `_resolvedEpoch` equals the tree's epoch.
  @exclusivity(unchecked) final var _resolved = _Storage.empty
  @exclusivity(unchecked) final var _resolvedEpoch: UInt64 = 0
  /// The parent storage `_resolved` was computed from.
  @exclusivity(unchecked) final var _inherited = _Storage.empty
  /// Whether the overrides changed since `_resolved` was computed.
  @exclusivity(unchecked) final var _overridesChanged = false

  // MARK: Observation

  /// Traits that may have changed here since the last pass visited this node.
  @exclusivity(unchecked) final var _pending = _TraitFilter.none
  /// Whether some strict descendant has `_pending` set or a pending descendant.
  @exclusivity(unchecked) final var _hasPendingBelow = false
  /// A superset of the traits observed (by registrations, tracking or the legacy adapter) by
  /// this node and its descendants.
  @exclusivity(unchecked) final var _subtreeObserved = _TraitFilter.none
  /// The node's registrations; nil until the first one.
  @exclusivity(unchecked) final var _observers: _NodeObservers?
  /// The node's automatic-tracking slots; nil until the first tracked run.
  @exclusivity(unchecked) final var _tracking: _NodeTracking?

  /// Creates a detached node with no overrides.
  public init() {}

  deinit {
    for child in _children {
      child._parent = nil
    }
    _tracking?.nodeWillDeinit(self)
  }

  // MARK: - Reading traits

  /// The node's traits: its parent's collection with the node's overrides applied.
  ///
  /// Always current: it reflects every override and move made so far, before or after the update
  /// pass. Reading it costs one comparison while nothing has changed.
  public final var traitCollection: TraitCollection {
    let storage = _resolvedStorage()
    var collection = TraitCollection(_storage: storage)
    if let record = _TrackingRecord.active {
      collection._recorder = record.dependency(on: self, storage: storage)
    }
    return collection
  }

  /// The resolved storage, recomputed when something changed since the last read.
  @inline(__always) final func _resolvedStorage() -> _Storage {
    let epoch = _currentEpoch
    if _resolvedEpoch == epoch { return _resolved }
    return _revalidate(epoch: epoch)
  }

  @inline(__always) final var _currentEpoch: UInt64 {
    _graph?._epoch ?? TraitNode._detachedEpoch.load(ordering: .relaxed)
  }

  /// Brings this node and its stale ancestors up to date, top-down, without recursion.
  @inline(never)
  final func _revalidate(epoch: UInt64) -> _Storage {
    guard let parent = _parent else {
      _refresh(inheriting: _graph?._baseTraits._storage ?? .empty, epoch: epoch)
      return _resolved
    }
    if parent._resolvedEpoch == epoch {
      _refresh(inheriting: parent._resolved, epoch: epoch)
      return _resolved
    }
    var chain = _graph?._takeScratch() ?? []
    var node = self
    while true {
      chain.append(node)
      guard let parent = node._parent, parent._resolvedEpoch != epoch else { break }
      node = parent
    }
    for node in chain.reversed() {
      node._refresh(
        inheriting: node._parent?._resolved ?? node._graph?._baseTraits._storage ?? .empty,
        epoch: epoch
      )
    }
    _graph?._returnScratch(&chain)
    return _resolved
  }

  /// Recomputes `_resolved` from `inherited` when it or the overrides changed.
  ///
  /// A node without overrides shares its parent's collection and keeps no `_inherited` copy.
  @inline(__always) private final func _refresh(inheriting inherited: _Storage, epoch: UInt64) {
    if _overrides._specified.isEmpty && !_overridesChanged {
      if inherited !== _resolved { _resolved = inherited }
    } else if inherited !== _inherited || _overridesChanged {
      _resolved = _overrides.applied(to: inherited)
      _inherited = _overrides._specified.isEmpty ? .empty : inherited
      _overridesChanged = false
    }
    _resolvedEpoch = epoch
  }

  // MARK: - Overrides

  /// The trait values this node sets for itself and its subtree.
  ///
  /// Effective values are in ``traitCollection`` at once; registrations hear of the change in the
  /// next update pass. Writing the value an override already has does nothing.
  public final var traitOverrides: TraitOverrides {
    get { _overrides }
    set {
      var newValue = newValue
      newValue._changed = .none
      let changed = _overrides.differences(from: newValue)
      _overrides = newValue
      if !changed.isEmpty { _overridesDidChange(changed) }
    }
    _modify {
      yield &_overrides
      let changed = _overrides._changed
      if !changed.isEmpty {
        _overrides._changed = .none
        _overridesDidChange(changed)
      }
    }
  }

  final func _overridesDidChange(_ changed: _TraitFilter) {
    _overridesChanged = true
    _treeDidChange()
    _markPending(changed)
  }

  // MARK: - Tree

  /// The node this one inherits its traits from.
  public final var traitParent: TraitNode? { _parent }

  /// The nodes that inherit their traits from this one, in the order they were added.
  public final var traitChildren: [TraitNode] { Array(_children) }

  /// Makes `child` the last child of this node, removing it from its previous parent.
  ///
  /// Every registration in the moved subtree whose traits differ afterwards is called in the next
  /// update pass.
  ///
  /// - Parameter child: The node to add.
  /// - Precondition: `child` is neither this node nor one of its ancestors.
  /// - Complexity: O(*d*) for a move within one graph, where *d* is this node's depth; O(*d* + *s*)
  ///   for a move between graphs, where *s* is the size of the moved subtree.
  public final func addTraitChild(_ child: TraitNode) {
    var ancestor: TraitNode? = self
    while let node = ancestor {
      precondition(
        node !== child,
        "Cannot add a node as a child of itself or of its own descendant: that would make a cycle"
      )
      ancestor = node._parent
    }
    if child._parent === self, child === _children.last { return }
    child._detachFromParent()
    _children.append(child)
    child._parent = self
    if child._graph !== _graph { child._moveSubtree(to: _graph) }
    child._treeDidChange()
    child._didMoveUnderNewParent()
  }

  /// Detaches this node (with its subtree) from its parent.
  ///
  /// A detached node keeps its registrations but hears of nothing until it is added to a graph
  /// again; then the next pass tells each registration what differs from its baseline.
  ///
  /// - Complexity: O(*s*) for a node in a graph, where *s* is the size of its subtree.
  public final func removeFromTraitParent() {
    guard _parent != nil else { return }
    _detachFromParent()
    if _graph != nil { _moveSubtree(to: nil) }
    _treeDidChange()
    _didMoveUnderNewParent()
  }

  /// Runs the update pass for this node's subtree now, delivering pending changes synchronously.
  ///
  /// Does nothing for a detached node, or when called from inside a pass.
  public final func updateTraitsIfNeeded() {
    _graph?._updateTraits(from: self)
  }

  private final func _detachFromParent() {
    guard let parent = _parent else { return }
    if let index = parent._children.firstIndex(where: { $0 === self }) {
      parent._children.remove(at: index)
    }
    _parent = nil
    parent._treeDidChange()
  }

  /// After a move: every trait may differ, and the new ancestors must know what is observed here.
  private final func _didMoveUnderNewParent() {
    _resolvedEpoch = 0
    _propagateObserved(_subtreeObserved)
    _markPending(.all)
  }

  /// Points every node of this subtree at `graph`, updating both graphs' counts.
  private final func _moveSubtree(to graph: TraitGraph?) {
    let oldGraph = _graph
    var nodes = 0
    var registrations = 0
    var stack = [self]
    while let node = stack.popLast() {
      nodes += 1
      registrations += node._observers?.liveCount ?? 0
      node._graph = graph
      node._resolvedEpoch = 0
      stack.append(contentsOf: node._children)
    }
    if let old = oldGraph {
      old._liveNodes -= nodes
      old._liveRegistrations -= registrations
    }
    if let graph {
      graph._liveNodes += nodes
      graph._liveRegistrations += registrations
    }
  }

  // MARK: - Invalidation

  /// Records that a value or the shape of this node's tree changed: cached collections revalidate
  /// on their next read.
  @inline(__always) final func _treeDidChange() {
    if let graph = _graph {
      graph._epoch &+= 1
    } else {
      TraitNode._detachedEpoch.add(1, ordering: .relaxed)
    }
  }

  /// Records that the traits in `filter` may have changed at this node, for the next pass.
  ///
  /// Only traits observed in this node's subtree are kept: an observer that appears later takes
  /// the then-current collection as its baseline, so nothing else can ever need delivering.
  final func _markPending(_ filter: _TraitFilter) {
    let filter = filter & _subtreeObserved
    guard !filter.isEmpty else { return }
    _pending |= filter
    var ancestor = _parent
    while let node = ancestor, !node._hasPendingBelow {
      node._hasPendingBelow = true
      ancestor = node._parent
    }
    _graph?._noteDirty()
  }

  /// Adds `filter` to the observed summaries of this node and its ancestors.
  final func _propagateObserved(_ filter: _TraitFilter) {
    var node: TraitNode? = self
    while let current = node, !current._subtreeObserved.contains(filter) {
      current._subtreeObserved |= filter
      node = current._parent
    }
  }

  /// The traits observed at this node itself.
  final var _ownObserved: _TraitFilter {
    (_observers?.observed ?? .none) | (_tracking?.observed ?? .none)
  }

  /// The epoch of all detached trees; any change to any of them advances it.
  static let _detachedEpoch = Atomic<UInt64>(1)
}

@available(*, unavailable)
extension TraitNode: Sendable {}
