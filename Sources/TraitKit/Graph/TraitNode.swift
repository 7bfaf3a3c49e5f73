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
  // that a read checks and follows, then the tracking state that a tracked run starts from.
  // Registering reads all but the cell's second word; cancelling reads the registrations and
  // the graph; a tracked run reads the tracking state and the read fields; so each touches as
  // few cache lines of a node as it can, on average (traitkit-bench S6, S7, S8). Then the state
  // the pass reads on every child it considers; then the rest.

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
  /// The node's automatic-tracking slots; nil until the first tracked run.
  @exclusivity(unchecked) final var _tracking: _NodeTracking?
  /// A superset of the traits observed (by registrations, tracking or the legacy adapter) by
  /// this node and its descendants.
  @exclusivity(unchecked) final var _subtreeObserved = _TraitFilter.none
  /// The parent, unretained: the parent retains this node.
  ///
  /// Cleared when this node is detached or its parent goes away. Hot paths read it without
  /// reference counting.
  @exclusivity(unchecked) final var _parentRef: Unmanaged<TraitNode>?

  // MARK: Walked state

  /// The traits this node overrides, which changes above it cannot reach (exact bits only).
  @usableFromInline @exclusivity(unchecked) final var _shield = _TraitFilter.none
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
  @usableFromInline @exclusivity(unchecked) final var _overridesChanged = false
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
      _freeOverridesCopiedTraits()
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
