import Testing
import TraitKit

// Fixtures shared by the graph, override, registration and seed suites. Every type here starts
// with `GT` so that it cannot clash with the fixtures of other suites in this module.

// MARK: - Traits

/// A custom `Int` trait that only these suites use.
struct GTThemeTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A custom `Bool` trait that only these suites use.
struct GTFlagTrait: TraitDefinition {
  static let defaultValue = false
}

/// A trait whose value is not `Equatable`: every write is a change, and an untouched value never
/// is (DESIGN R1).
struct GTOpaqueTrait: TraitDefinition {
  static let defaultValue = GTOpaqueValue(label: "default")
}

/// A value without `Equatable`.
struct GTOpaqueValue: Sendable {
  let label: String
}

/// A boxed value that runs `onDeinit` when it goes.
final class GTDeinitPayload: Sendable {
  nonisolated(unsafe) var onDeinit: (() -> Void)?

  init(onDeinit: (() -> Void)? = nil) {
    self.onDeinit = onDeinit
  }

  deinit { onDeinit?() }
}

/// A custom trait whose values are boxed objects that report when they go.
struct GTDeinitPayloadTrait: TraitDefinition {
  static let defaultValue: GTDeinitPayload? = nil
}

// MARK: - Nodes

/// A node with a name, for readable orderings and failure messages.
final class GTNode: TraitNode, CustomStringConvertible {
  let name: String

  init(_ name: String) {
    self.name = name
    super.init()
  }

  var description: String { name }
}

/// An ordered record of events, shared by the closures of one test.
final class GTLog {
  private(set) var entries: [String] = []

  func append(_ entry: String) {
    entries.append(entry)
  }

  func removeAll() {
    entries.removeAll()
  }

  var count: Int { entries.count }
}

/// A target for the target-action registration forms: it records each call and what it got.
final class GTTarget {
  private(set) var plainCalls = 0
  private(set) var observedNodes: [TraitNode] = []
  private(set) var previousCollections: [TraitCollection] = []
  private(set) var twoArgumentCalls = 0

  init() {}

  func refreshEverything() {
    plainCalls += 1
  }

  func refresh(node: GTNode) {
    observedNodes.append(node)
  }

  func refresh(node: GTNode, previousTraitCollection: TraitCollection) {
    twoArgumentCalls += 1
    observedNodes.append(node)
    previousCollections.append(previousTraitCollection)
  }
}

/// A target that only counts its calls in a counter it does not own, so that its calls can be
/// counted after it is gone.
final class GTCountingTarget {
  let counter: GTCounter

  init(counter: GTCounter) {
    self.counter = counter
  }

  func countCall() {
    counter.value += 1
  }
}

/// A mutable count that closures share.
final class GTCounter {
  var value = 0

  init() {}
}

/// An object for closures to capture, so that a test can watch its lifetime through a weak
/// reference.
final class GTCaptured {
  init() {}
}

/// A node whose own method serves as the action of the `action:` registration form.
final class GTLayoutNode: TraitNode {
  private(set) var layoutRequests = 0
  private(set) var sizeClassesSeen: [UserInterfaceSizeClass] = []

  func setNeedsLayout() {
    layoutRequests += 1
    sizeClassesSeen.append(traitCollection.horizontalSizeClass)
  }
}

// MARK: - Trees

/// A graph with one child of the root, after its first pass.
func makeGraphWithChild() -> (graph: TraitGraph, node: GTNode) {
  let graph = TraitGraph()
  let node = GTNode("node")
  graph.root.addTraitChild(node)
  graph.updateTraitsIfNeeded()
  return (graph, node)
}

/// Registers a handler named `name` for the horizontal size class on `node`, logging its calls.
@discardableResult
func gtRegisterLogging(
  _ name: String,
  on node: GTNode,
  into log: GTLog
) -> TraitChangeRegistration {
  node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
    (_: GTNode, _: TraitCollection) in
    log.append(name)
  }
}

/// Changes the horizontal size class at `graph`'s root to `value` and runs the pass.
func gtChangeSizeClass(_ graph: TraitGraph, to value: UserInterfaceSizeClass) {
  graph.root.traitOverrides.horizontalSizeClass = value
  graph.updateTraitsIfNeeded()
}

extension TraitNode {
  /// Adds `children` in order and returns them.
  @discardableResult
  func gtAdd<Child: TraitNode>(_ children: Child...) -> [Child] {
    for child in children { addTraitChild(child) }
    return children
  }
}

/// A complete `arity`-ary tree below `graph.root`, `depth` levels deep (the root not counted).
struct GTUniformTree {
  let graph: TraitGraph
  /// `levels[0]` is `[graph.root]`; `levels[d]` holds the nodes at depth `d`, left to right.
  let levels: [[TraitNode]]

  init(arity: Int, depth: Int, baseTraits: TraitCollection = TraitCollection()) {
    let graph = TraitGraph(baseTraits: baseTraits)
    var levels: [[TraitNode]] = [[graph.root]]
    for _ in 0..<depth {
      var next: [TraitNode] = []
      next.reserveCapacity((levels.last?.count ?? 0) * arity)
      for parent in levels[levels.count - 1] {
        for _ in 0..<arity {
          let child = TraitNode()
          parent.addTraitChild(child)
          next.append(child)
        }
      }
      levels.append(next)
    }
    self.graph = graph
    self.levels = levels
  }

  /// The number of nodes in the tree, the root included.
  var nodeCount: Int { levels.reduce(0) { $0 + $1.count } }

  /// The nodes of the subtree of `node`, `node` included, in pre-order.
  func subtree(of node: TraitNode) -> [TraitNode] {
    var result: [TraitNode] = []
    var stack = [node]
    while let next = stack.popLast() {
      result.append(next)
      stack.append(contentsOf: next.traitChildren.reversed())
    }
    return result
  }
}

// MARK: - Exit tests

/// The standard error an exit test's child process wrote, as text.
func gtStandardError(_ result: ExitTest.Result?) -> String {
  String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}
