import TraitKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Nodes

/// A view-like node whose layout is a tracked slot, wrapped the way a host wraps `layoutSubviews`.
///
/// Every slot it tracks through ``track(_:_:)`` logs its invalidations in ``invalidated``; the
/// layout slot also sets ``needsLayout``, like `setNeedsLayout()`.
class TTView: TraitNode {
  /// Whether the layout slot was invalidated since the last layout.
  var needsLayout = false
  /// How many times ``layout()`` ran.
  var layoutCount = 0
  /// The code the layout slot runs.
  var body: (TTView) -> Void = { _ in }
  /// The slots invalidated so far, in order.
  var invalidated: [TraitTrackingSlot] = []

  /// Runs the layout slot, as a layout pass does.
  func layout() {
    layoutCount += 1
    needsLayout = false
    track(.layout) {
      body(self)
      layoutSubviews()
    }
  }

  /// Runs the layout slot if it was invalidated.
  func layoutIfNeeded() {
    guard needsLayout else { return }
    layout()
  }

  /// Overridden by views that model a seed's `layoutSubviews()`; runs inside the layout slot.
  func layoutSubviews() {}

  /// Runs `body` tracked in `slot`; an invalidation of the slot is logged in ``invalidated``.
  @discardableResult
  func track<R>(_ slot: TraitTrackingSlot, _ body: () throws -> R) rethrows -> R {
    try withTraitTracking(
      slot: slot,
      invalidation: { node in (node as? TTView)?.invalidate(slot) },
      body
    )
  }

  /// How many times `slot` was invalidated.
  func invalidations(of slot: TraitTrackingSlot) -> Int {
    invalidated.count { $0 == slot }
  }

  private func invalidate(_ slot: TraitTrackingSlot) {
    invalidated.append(slot)
    if slot == .layout { needsLayout = true }
  }
}

/// A graph with two sibling views, `a` and `b`, under its root.
struct TTTree {
  let graph: TraitGraph
  let a = TTView()
  let b = TTView()

  init(baseTraits: TraitCollection = TraitCollection()) {
    graph = TraitGraph(baseTraits: baseTraits)
    graph.root.addTraitChild(a)
    graph.root.addTraitChild(b)
  }

  /// Runs the update pass and returns its counters.
  @discardableResult
  func pass() -> TraitGraph.Statistics.Pass {
    graph.updateTraitsIfNeeded()
    return graph.statistics.lastPass
  }

  /// Runs the update pass and returns how many invalidations it delivered.
  func invalidationsOfNextPass() -> Int {
    pass().invalidationsDelivered
  }

  /// A tree whose view `a` ran `body` once in its layout slot, with the collection it got there.
  static func trackingA(_ body: (TraitCollection) -> Void) -> TTTree {
    let tree = TTTree()
    tree.a.track(.layout) { body(tree.a.traitCollection) }
    return tree
  }

  /// Applies `change` to the root's overrides; returns how many invalidations the next pass runs.
  func invalidations(after change: (inout TraitOverrides) -> Void) -> Int {
    change(&graph.root.traitOverrides)
    return invalidationsOfNextPass()
  }
}

// MARK: - Traits and errors

/// A custom integer trait.
struct TTThemeTrait: TraitDefinition {
  static let defaultValue = 0
}

/// An error a tracked closure throws.
struct TTError: Error {}

// MARK: - Threads

/// Runs `body` on a new thread and returns its result once that thread has finished.
///
/// NB: a plain thread rather than a task, because a tracked closure is synchronous: it can wait
/// for a thread it joins, but it cannot await a task.
func ttRunOnNewThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
  let box = TTThreadResult<Result>()
  let context = Unmanaged.passRetained(TTThreadBody { box.value = body() }).toOpaque()
  var thread = pthread_t()
  let created = pthread_create(
    &thread,
    nil,
    { context in
      guard let context else { return nil }
      Unmanaged<TTThreadBody>.fromOpaque(context).takeRetainedValue().body()
      return nil
    },
    context
  )
  precondition(created == 0, "could not create a thread (error \(created))")
  let joined = pthread_join(thread, nil)
  precondition(joined == 0, "could not join a thread (error \(joined))")
  guard let result = box.value else { preconditionFailure("the thread left no result") }
  return result
}

/// The closure a thread of ``ttRunOnNewThread(_:)`` runs.
private final class TTThreadBody: Sendable {
  let body: @Sendable () -> Void

  init(_ body: @escaping @Sendable () -> Void) {
    self.body = body
  }
}

/// Where a thread of ``ttRunOnNewThread(_:)`` leaves its result.
///
/// NB: `@unchecked Sendable`: the thread writes `value` once, before `pthread_join` returns, and
/// only the joining thread reads it afterwards; the join orders the two.
private final class TTThreadResult<Result: Sendable>: @unchecked Sendable {
  var value: Result?
}

/// A node whose tracked slots log their invalidations: the slot, the graph the node was in
/// and the graph whose pass ran, by name (`InvalidationChangesTreeTests`,
/// `MissedInvalidationTests`; `NestedPassInvalidationTests` uses its `World` alone).
final class LoggingNode: TraitNode {
  /// The names of the graphs, and the passes running, innermost last.
  final class World {
    var graphs: [(name: String, graph: TraitGraph)] = []
    var passes: [String] = []
    var log: [String] = []

    func graph(_ name: String, base: TraitCollection = TraitCollection()) -> TraitGraph {
      let graph = TraitGraph(baseTraits: base)
      graphs.append((name, graph))
      return graph
    }

    /// Runs `graph`'s pass, noting it as running.
    func pass(_ graph: TraitGraph) {
      passes.append(name(of: graph))
      defer { passes.removeLast() }
      graph.updateTraitsIfNeeded()
    }

    func name(of graph: TraitGraph?) -> String {
      graphs.first { $0.graph === graph }?.name ?? "detached"
    }

    /// The log so far, emptied.
    func take() -> [String] {
      defer { log = [] }
      return log
    }
  }

  unowned let world: World
  /// What the invalidation of a slot does after logging, by slot name.
  var onInvalidation: [String: (LoggingNode) -> Void] = [:]

  init(_ world: World) {
    self.world = world
    super.init()
  }

  /// Tracks `slot`, reading what `body` reads; its invalidation logs
  /// `slot in <node's graph> during <running pass>`.
  func track(_ slot: String, _ body: @escaping (LoggingNode) -> Void) {
    let invalidation: (TraitNode) -> Void = { node in
      let node = node as! LoggingNode
      var root: TraitNode = node
      while let parent = root.traitParent { root = parent }
      let graph = node.world.graphs.first { $0.graph.root === root }?.graph
      node.world.log.append(
        "\(slot) in \(node.world.name(of: graph)) during \(node.world.passes.last ?? "none")"
      )
      node.onInvalidation[slot]?(node)
    }
    withTraitTracking(slot: TraitTrackingSlot(slot), invalidation: invalidation, { body(self) })
  }

  func trackHorizontal(_ slot: String) {
    track(slot) { _ = $0.traitCollection.horizontalSizeClass }
  }

  func trackVertical(_ slot: String) {
    track(slot) { _ = $0.traitCollection.verticalSizeClass }
  }
}
