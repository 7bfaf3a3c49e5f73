extension TraitCollection {
  /// The collection of the trait environment whose code is running.
  ///
  /// The counterpart of UIKit's `UITraitCollection.current`, read-only. During a trait change
  /// callback it is the observed node's collection; inside ``performAsCurrent(_:)`` it is the
  /// receiver; elsewhere it is an empty collection.
  ///
  /// Inside ``performAsCurrent(_:)`` it is task-local: a task created in the body with `Task {}`
  /// inherits it (a detached task does not). During an update pass it is the pass's, on the
  /// pass's thread, for as long as each callback runs: the pass sets it once per node rather
  /// than binding a task-local per callback (about 100 ns each), so a task that a callback
  /// creates does not inherit it, and sees the value enclosing the pass instead (the empty
  /// collection, unless the pass itself runs inside ``performAsCurrent(_:)``). Capture the
  /// collection the callback receives, or wrap the task's work in ``performAsCurrent(_:)``.
  public static var current: TraitCollection {
    if let cell = _CurrentCell.active, !cell.isHidden, let node = cell.node {
      // NB: the node's collection as it is now, not the one its visit began with: a handler may
      // have changed its overrides or the tree above it (R6).
      return node._withUnsafeGuaranteedRef {
        TraitCollection(_storage: $0._resolvedReference().takeUnretainedValue())
      }
    }
    return _taskCurrent
  }

  /// Runs `body` with ``current`` set to this collection, then restores the previous value.
  ///
  /// - Parameter body: The code to run.
  /// - Returns: What `body` returns.
  public func performAsCurrent<R>(_ body: () throws -> R) rethrows -> R {
    // NB: hides the collection a running pass publishes, and nothing else: the pass goes on
    // recording the collection it visits in the cell, which a change of values in the body
    // keeps alive through it (`TraitGraph._valuesDidChange()`); and the cell shows that
    // collection again afterwards, not one the body may have freed.
    let cell = _CurrentCell.active
    let wasHidden = cell?.isHidden ?? false
    cell?.isHidden = true
    defer { cell?.isHidden = wasHidden }
    return try TraitCollection.$_taskCurrent.withValue(self, operation: body)
  }

  @TaskLocal static var _taskCurrent = TraitCollection()
}

/// The cell through which an update pass publishes ``TraitCollection/current``.
///
/// A task-local `withValue` per node would cost ~100 ns; instead a pass installs its graph's cell
/// in a thread-local slot once and stores each node's collection into it, a plain store of an
/// unretained reference: the pass holds the node's collection for as long as it visits the node,
/// and clears the cell before it lets go.
/// ``TraitCollection/performAsCurrent(_:)`` hides the cell's collection for its duration so that
/// the task-local value it sets wins.
final class _CurrentCell {
  /// The collection of the node the pass visits, unretained, or nil between nodes.
  ///
  /// Recorded even while hidden: the graph keeps it alive when a value changes during the visit.
  @exclusivity(unchecked) var storage: Unmanaged<_Storage>?
  /// The node the pass visits, unretained (the tree or the pass's graveyard keeps it), or nil
  /// between nodes: ``TraitCollection/current`` is its collection.
  @exclusivity(unchecked) var node: Unmanaged<TraitNode>?
  /// Whether ``TraitCollection/performAsCurrent(_:)`` hides the visited node's collection from
  /// ``TraitCollection/current``.
  @exclusivity(unchecked) var isHidden = false
  /// The graph whose pass installed this cell (unretained: the graph owns the cell).
  @exclusivity(unchecked) var graph: Unmanaged<TraitGraph>?

  /// The graph of the pass running on this thread, if any, without retaining the cell or the
  /// graph.
  static var activeGraph: Unmanaged<TraitGraph>? {
    _ThreadLocals.currentCell.flatMap {
      Unmanaged<_CurrentCell>.fromOpaque($0)._withUnsafeGuaranteedRef { $0.graph }
    }
  }

  /// The cell of the pass running on this thread, if any (unretained: the pass owns it).
  static var active: _CurrentCell? {
    _ThreadLocals.currentCell.map {
      Unmanaged<_CurrentCell>.fromOpaque($0).takeUnretainedValue()
    }
  }
}

@available(*, unavailable)
extension _CurrentCell: Sendable {}
