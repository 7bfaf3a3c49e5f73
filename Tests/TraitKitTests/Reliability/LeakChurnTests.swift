import Testing
import TraitKit

// The leak churn: 100 000 registrations over 10 000 nodes, in every form, while owners and
// targets die in every order the engine must handle. Afterwards the graph counts no
// registration and one node, and every object made is gone. `Scripts/leaks.sh` runs this test
// under valgrind's memcheck, which must report no definitely lost bytes (R9).

/// A counter shared by the churn's handlers.
private final class RMChurnCounter {
  var calls = 0
}

/// An object a churn closure captures, to watch that the engine lets go of closures.
private final class RMChurnCapture {
  let counter: RMChurnCounter

  init(counter: RMChurnCounter) {
    self.counter = counter
  }
}

/// How one batch of nodes dies.
private enum RMChurnEnding: CaseIterable {
  /// The batch's branch is detached, then every node dies at once.
  case detachBranch
  /// Each node is removed from its parent on its own, leaves first.
  case removeEachNode
  /// The targets die first, a pass purges their registrations, then the branch goes.
  case targetsFirst
  /// Every registration is unregistered, then the branch goes.
  case unregisterAll
}

@Suite("Leak churn")
struct LeakChurnTests {
  /// Registrations per node.
  static let perNode = 10
  /// Nodes per batch; each batch hangs under one branch of the root.
  static let batchSize = 100

  @Test("a churn of registrations with dying owners and targets leaves nothing alive")
  func churn() {
    let nodeCount = max(Self.batchSize, RMEnvironment.churnRegistrations / Self.perNode)
    let counter = RMChurnCounter()
    var weakNodes: [RMWeak<TraitNode>] = []
    var weakTargets: [RMWeak<RMTarget>] = []
    var weakCaptures: [RMWeak<RMChurnCapture>] = []
    var weakGraph = RMWeak<TraitGraph>()
    var registrations = 0
    do {
      let graph = TraitGraph()
      weakGraph.object = graph
      for batch in 0..<(nodeCount / Self.batchSize) {
        let ending = RMChurnEnding.allCases[batch % RMChurnEnding.allCases.count]
        let branch = RMNode(id: -1)
        graph.root.addTraitChild(branch)
        var targets = (0..<8).map { RMTarget(id: batch * 8 + $0) }
        var nodes: [RMNode] = []
        var tokens: [(RMNode, TraitChangeRegistration)] = []
        for index in 0..<Self.batchSize {
          let node = RMNode(id: batch * Self.batchSize + index)
          // A few levels deep: each node hangs under the branch or an earlier node of its batch.
          (index < 4 ? branch : nodes[index / 4]).addTraitChild(node)
          nodes.append(node)
          weakNodes.append(RMWeak(object: node))
          for form in 0..<Self.perNode {
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
        weakTargets += targets.map { RMWeak(object: $0) }
        let attached = graph.statistics.liveRegistrations
        #expect(attached == Self.batchSize * Self.perNode, "batch \(batch)")

        branch.traitOverrides.userInterfaceStyle = batch.isMultiple(of: 2) ? .dark : .light
        branch.traitOverrides[RMAlphaTrait.self] = batch % 3
        graph.updateTraitsIfNeeded()

        switch ending {
        case .detachBranch:
          branch.removeFromTraitParent()
        case .removeEachNode:
          for node in nodes.reversed() { node.removeFromTraitParent() }
          branch.removeFromTraitParent()
        case .targetsFirst:
          targets.removeAll()
          branch.traitOverrides.horizontalSizeClass = .compact
          branch.traitOverrides[RMBetaTrait.self] = 1
          graph.updateTraitsIfNeeded()
          // Every target-action registration was called, found its target dead and was purged.
          #expect(graph.statistics.liveRegistrations < attached, "batch \(batch)")
          branch.removeFromTraitParent()
        case .unregisterAll:
          for (node, token) in tokens { node.unregisterForTraitChanges(token) }
          #expect(graph.statistics.liveRegistrations == 0, "batch \(batch)")
          branch.removeFromTraitParent()
        }
        #expect(graph.statistics.liveRegistrations == 0, "batch \(batch)")
        #expect(graph.statistics.liveNodes == 1, "batch \(batch)")
      }
      #expect(registrations == nodeCount * Self.perNode)
      #expect(graph.statistics.liveRegistrations == 0)
      #expect(graph.statistics.liveNodes == 1)
    }

    #expect(counter.calls > 0)
    #expect(weakGraph.object == nil)
    #expect(weakNodes.allSatisfy { $0.object == nil }, "nodes alive after the churn")
    #expect(weakTargets.allSatisfy { $0.object == nil }, "targets alive after the churn")
    #expect(weakCaptures.allSatisfy { $0.object == nil }, "closure captures alive after the churn")
  }

  /// Registers `node` in registration form number `form` (0..<10), observing one of a few trait
  /// lists.
  private func register(
    form: Int,
    on node: RMNode,
    target: RMTarget,
    counter: RMChurnCounter,
    captures: inout [RMWeak<RMChurnCapture>]
  ) -> TraitChangeRegistration {
    let traitLists: [[any TraitDefinition.Type]] = [
      [TraitUserInterfaceStyle.self],
      [RMAlphaTrait.self, TraitHorizontalSizeClass.self],
      TraitCollection.systemTraitsAffectingColorAppearance,
      [RMBetaTrait.self, RMBetaTrait.self],
    ]
    let traits = traitLists[form % traitLists.count]
    switch form % 5 {
    case 0:
      let capture = RMChurnCapture(counter: counter)
      captures.append(RMWeak(object: capture))
      return node.registerForTraitChanges(traits) { (_: RMNode, _: TraitCollection) in
        capture.counter.calls += 1
      }
    case 1:
      return node.registerForTraitChanges(traits, target: target) { (_: RMTarget) in
        { counter.calls += 1 }
      }
    case 2:
      return node.registerForTraitChanges(traits, target: target) { (_: RMTarget) in
        { (_: RMNode) in counter.calls += 1 }
      }
    case 3:
      return node.registerForTraitChanges(traits, target: target) { (_: RMTarget) in
        { (_: RMNode, _: TraitCollection) in counter.calls += 1 }
      }
    default:
      return node.registerForTraitChanges(traits) { (_: RMNode) in { counter.calls += 1 } }
    }
  }
}
