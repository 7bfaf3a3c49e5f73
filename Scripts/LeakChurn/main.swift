// The leak churn of `Scripts/leaks.sh`, as a plain executable that valgrind can run (Swift
// Testing's runner does not run under valgrind). It does what `LeakChurnTests` does: 100 000
// registrations over 10 000 nodes in every registration form, while owners and targets die in
// every order the engine must handle; then the graph must count no registration and one node,
// and every object made must be gone. Exits non-zero on any failed check; valgrind's memcheck
// checks that no byte is definitely lost.
//
// Built by `Scripts/leaks.sh` against the TraitKit module that `swift build` made.

import TraitKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct ChurnAlphaTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.leak-churn.alpha"
}

final class ChurnNode: TraitNode {}

final class ChurnTarget {}

final class ChurnCounter {
  var calls = 0
}

final class ChurnCapture {
  let counter: ChurnCounter

  init(counter: ChurnCounter) {
    self.counter = counter
  }
}

struct Weak<Object: AnyObject> {
  weak var object: Object?
}

func register(
  form: Int,
  on node: ChurnNode,
  target: ChurnTarget,
  counter: ChurnCounter,
  captures: inout [Weak<ChurnCapture>]
) -> TraitChangeRegistration {
  let traitLists: [[any TraitDefinition.Type]] = [
    [TraitUserInterfaceStyle.self],
    [ChurnAlphaTrait.self, TraitHorizontalSizeClass.self],
    TraitCollection.systemTraitsAffectingColorAppearance,
    [TraitVerticalSizeClass.self, TraitVerticalSizeClass.self],
  ]
  let traits = traitLists[form % traitLists.count]
  switch form % 5 {
  case 0:
    let capture = ChurnCapture(counter: counter)
    captures.append(Weak(object: capture))
    return node.registerForTraitChanges(traits) { (_: ChurnNode, _: TraitCollection) in
      capture.counter.calls += 1
    }
  case 1:
    return node.registerForTraitChanges(traits, target: target) { (_: ChurnTarget) in
      { counter.calls += 1 }
    }
  case 2:
    return node.registerForTraitChanges(traits, target: target) { (_: ChurnTarget) in
      { (_: ChurnNode) in counter.calls += 1 }
    }
  case 3:
    return node.registerForTraitChanges(traits, target: target) { (_: ChurnTarget) in
      { (_: ChurnNode, _: TraitCollection) in counter.calls += 1 }
    }
  default:
    return node.registerForTraitChanges(traits) { (_: ChurnNode) in { counter.calls += 1 } }
  }
}

/// The churn and its checks.
final class Churn {
  let perNode = 10
  let batchSize = 100
  let nodeCount: Int
  let counter = ChurnCounter()
  var failures = 0
  var registrations = 0
  var weakNodes: [Weak<TraitNode>] = []
  var weakTargets: [Weak<ChurnTarget>] = []
  var weakCaptures: [Weak<ChurnCapture>] = []
  var weakGraph = Weak<TraitGraph>()

  init(registrations requested: Int) {
    nodeCount = max(batchSize, requested / perNode)
  }

  func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    failures += 1
    print("leak churn: FAILED: \(message())")
  }

  func run() {
    churn()
    check(registrations == nodeCount * perNode, "\(registrations) registrations made")
    check(counter.calls > 0, "no callback ran")
    check(weakGraph.object == nil, "the graph is alive")
    check(weakNodes.allSatisfy { $0.object == nil }, "nodes are alive")
    check(weakTargets.allSatisfy { $0.object == nil }, "targets are alive")
    check(weakCaptures.allSatisfy { $0.object == nil }, "closure captures are alive")
    // The weak references keep the dead objects' memory; let it go before valgrind looks.
    weakNodes = []
    weakTargets = []
    weakCaptures = []
    print(
      "leak churn: \(registrations) registrations over \(nodeCount) nodes, "
        + "\(counter.calls) callbacks, "
        + (failures == 0 ? "every check passed" : "\(failures) checks FAILED")
    )
  }

  private func churn() {
    let graph = TraitGraph()
    weakGraph.object = graph
    for batch in 0..<(nodeCount / batchSize) {
      let branch = ChurnNode()
      graph.root.addTraitChild(branch)
      var targets = (0..<8).map { _ in ChurnTarget() }
      var nodes: [ChurnNode] = []
      var tokens: [(ChurnNode, TraitChangeRegistration)] = []
      for index in 0..<batchSize {
        let node = ChurnNode()
        (index < 4 ? branch : nodes[index / 4]).addTraitChild(node)
        nodes.append(node)
        weakNodes.append(Weak(object: node))
        for form in 0..<perNode {
          let token = register(
            form: form,
            on: node,
            target: targets[(index + form) % targets.count],
            counter: counter,
            captures: &weakCaptures
          )
          tokens.append((node, token))
          registrations += 1
        }
      }
      weakTargets += targets.map { Weak(object: $0) }
      let attached = graph.statistics.liveRegistrations
      check(attached == batchSize * perNode, "batch \(batch): \(attached) registrations attached")

      branch.traitOverrides.userInterfaceStyle = batch.isMultiple(of: 2) ? .dark : .light
      branch.traitOverrides[ChurnAlphaTrait.self] = batch % 3
      graph.updateTraitsIfNeeded()

      switch batch % 4 {
      case 0:
        // The branch is detached, then every node dies at once.
        branch.removeFromTraitParent()
      case 1:
        // Each node is removed on its own, leaves first.
        for node in nodes.reversed() { node.removeFromTraitParent() }
        branch.removeFromTraitParent()
      case 2:
        // The targets die first; a pass purges their registrations.
        targets.removeAll()
        branch.traitOverrides.horizontalSizeClass = .compact
        branch.traitOverrides.verticalSizeClass = .regular
        graph.updateTraitsIfNeeded()
        check(graph.statistics.liveRegistrations < attached, "batch \(batch): nothing purged")
        branch.removeFromTraitParent()
      default:
        // Every registration is unregistered first.
        for (node, token) in tokens { node.unregisterForTraitChanges(token) }
        branch.removeFromTraitParent()
      }
      check(graph.statistics.liveRegistrations == 0, "batch \(batch): registrations left")
      check(graph.statistics.liveNodes == 1, "batch \(batch): nodes left")
    }
    check(graph.statistics.liveRegistrations == 0, "registrations left after the churn")
    check(graph.statistics.liveNodes == 1, "nodes left after the churn")
  }
}

let requested = getenv("TRAITKIT_CHURN_REGISTRATIONS").flatMap { Int(String(cString: $0)) }
let churn = Churn(registrations: requested ?? 100_000)
churn.run()
exit(churn.failures == 0 ? 0 : 1)
