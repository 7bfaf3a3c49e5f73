import Testing
import TraitKit

// R8 and R9 when handlers detach, move and drop during passes: the statistics count every
// registration in the graph its node is in at every moment, a node goes as soon as the pass lets
// go of it, and a target's registration lasts no longer than the target. Found as scenarios by
// the review probe behind the legacy module's `LegacyRandomPassTests`.

@Suite("Registration lifetimes when handlers change the tree during passes")
struct RegistrationLifetimeScenarioTests {
  @Test(
    "a node its own handler detaches mid-run calls no later registration, leaves the counts at once, and goes after the pass"
  )
  func detachedByItsOwnHandlerMidRun() {
    let graph = TraitGraph()
    let log = GTLog()
    weak var weakNode: GTNode?
    weak var weakCaptured: GTCaptured?
    var countsInTheHandler: [Int] = []
    do {
      let node = GTNode("node")
      weakNode = node
      graph.root.addTraitChild(node)
      let captured = GTCaptured()
      weakCaptured = captured
      // Twelve registrations of one trait and one baseline: the pass delivers them as a run.
      for index in 0..<12 {
        node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
          [captured] (node: GTNode, _: TraitCollection) in
          _ = captured
          log.append("r\(index)")
          guard index == 3 else { return }
          node.removeFromTraitParent()
          countsInTheHandler = [graph.statistics.liveNodes, graph.statistics.liveRegistrations]
        }
      }
      #expect(graph.statistics.liveRegistrations == 12)
    }

    gtChangeSizeClass(graph, to: .compact)

    #expect(log.entries == ["r0", "r1", "r2", "r3"])
    #expect(countsInTheHandler == [1, 0])
    #expect(graph.statistics.lastPass.callbacksDelivered == 4)
    #expect(graph.statistics.liveNodes == 1)
    #expect(graph.statistics.liveRegistrations == 0)
    #expect(weakNode == nil)
    #expect(weakCaptured == nil)
  }

  @Test(
    "a target that an earlier handler of the pass lets go of is skipped and purged",
    arguments: [1, 11]
  )
  func targetReleasedByAnEarlierHandler(targetCount: Int) {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    let counter = GTCounter()
    var targets: [GTCountingTarget?] = (0..<targetCount).map { _ in
      GTCountingTarget(counter: counter)
    }
    let released = targetCount / 2
    weak let weakReleased = targets[released]
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      targets[released] = nil
    }
    // With 11, the targets' registrations share the handler's trait and baseline: a run.
    for target in targets {
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: target.unsafelyUnwrapped,
        action: GTCountingTarget.countCall
      )
    }
    #expect(graph.statistics.liveRegistrations == 1 + targetCount)

    gtChangeSizeClass(graph, to: .compact)

    #expect(weakReleased == nil)
    #expect(counter.value == targetCount - 1)
    #expect(graph.statistics.lastPass.callbacksDelivered == targetCount)
    #expect(graph.statistics.liveRegistrations == targetCount)

    gtChangeSizeClass(graph, to: .regular)

    #expect(counter.value == 2 * (targetCount - 1))
    #expect(graph.statistics.liveRegistrations == targetCount)
  }

  @Test(
    "a token unregisters in the graph its node is in now, after moves outside and inside a pass"
  )
  func tokensAfterMovesBetweenGraphs() {
    let first = TraitGraph()
    let second = TraitGraph()
    let node = GTNode("node")
    first.root.addTraitChild(node)
    let log = GTLog()
    let tokens = (0..<3).map { gtRegisterLogging("r\($0)", on: node, into: log) }
    second.root.addTraitChild(node)
    #expect(first.statistics.liveRegistrations == 0)
    #expect(second.statistics.liveRegistrations == 3)

    node.unregisterForTraitChanges(tokens[0])
    node.unregisterForTraitChanges(tokens[0])

    #expect(first.statistics.liveRegistrations == 0)
    #expect(second.statistics.liveRegistrations == 2)

    // In the first graph's pass, another node's handler moves the node back, cancels one
    // registration, moves it to the second graph again, and cancels the other.
    let mover = GTNode("mover")
    first.root.addTraitChild(mover)
    first.updateTraitsIfNeeded()
    second.updateTraitsIfNeeded()
    var countsInTheHandler: [Int] = []
    mover.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned first, unowned second, unowned node] (_: GTNode, _: TraitCollection) in
      first.root.addTraitChild(node)
      node.unregisterForTraitChanges(tokens[1])
      countsInTheHandler.append(first.statistics.liveRegistrations)
      second.root.addTraitChild(node)
      node.unregisterForTraitChanges(tokens[2])
      countsInTheHandler.append(second.statistics.liveRegistrations)
      countsInTheHandler.append(first.statistics.liveRegistrations)
    }

    first.root.traitOverrides.userInterfaceStyle = .dark
    first.updateTraitsIfNeeded()

    #expect(countsInTheHandler == [2, 0, 1])
    #expect(first.statistics.liveRegistrations == 1)
    #expect(second.statistics.liveRegistrations == 0)
    #expect(first.statistics.liveNodes == 2)
    #expect(second.statistics.liveNodes == 2)
    #expect(log.entries.isEmpty)
  }

  @Test("the counts follow a subtree that a handler moves between graphs and back during a pass")
  func countsFollowASubtreeMovedDuringAPass() {
    let first = TraitGraph()
    let second = TraitGraph(baseTraits: TraitCollection { $0.horizontalSizeClass = .regular })
    let (mover, top, middle, leaf) = (
      GTNode("mover"), GTNode("top"), GTNode("middle"), GTNode("leaf")
    )
    first.root.gtAdd(mover, top)
    top.addTraitChild(middle)
    middle.addTraitChild(leaf)
    let log = GTLog()
    for node in [top, middle, leaf] {
      for index in 0..<2 { gtRegisterLogging("\(node.name)\(index)", on: node, into: log) }
    }
    first.updateTraitsIfNeeded()
    // Live nodes and registrations of the first graph, then of the second.
    let counts = { [unowned first, unowned second] in
      [
        first.statistics.liveNodes, first.statistics.liveRegistrations,
        second.statistics.liveNodes, second.statistics.liveRegistrations,
      ]
    }
    var countsInTheHandler: [[Int]] = []
    mover.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned second, unowned top, unowned middle, unowned leaf] (
        _: GTNode,
        _: TraitCollection
      )
      in
      second.root.addTraitChild(middle)
      countsInTheHandler.append(counts())
      second.updateTraitsIfNeeded()
      middle.unregisterForTraitChanges(nil)
      top.addTraitChild(middle)
      countsInTheHandler.append(counts())
      leaf.removeFromTraitParent()
      countsInTheHandler.append(counts())
      second.root.addTraitChild(leaf)
      countsInTheHandler.append(counts())
    }

    first.root.traitOverrides.userInterfaceStyle = .dark
    first.updateTraitsIfNeeded()

    // The mover's registration counts in the first graph throughout.
    #expect(
      countsInTheHandler == [[3, 3, 3, 4], [5, 7, 1, 0], [4, 5, 1, 0], [4, 5, 2, 2]]
    )
    #expect(counts() == [4, 5, 2, 2])
    // The second graph's pass calls the middle and the leaf (regular); back in the first graph
    // the middle hears of unspecified again; the leaf, in the second graph again by its visit,
    // has nothing new.
    #expect(log.entries == ["middle0", "middle1", "leaf0", "leaf1", "middle0", "middle1"])
  }
}
