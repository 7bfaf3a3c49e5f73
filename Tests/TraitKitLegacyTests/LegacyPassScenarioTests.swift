import Testing
import TraitKit
import TraitKitLegacy

// R12 with R5 and R10: legacy callbacks whose handlers change the tree during the pass — move
// their node or others into another graph, detach and re-attach them, drop them, change their
// own traits. Each legacy node checks every call as it comes: the previous collection is the one
// it last reported, never nil, the collection changed, and `TraitCollection.current` is its
// collection. Found as scenarios by the review probe behind `LegacyRandomPassTests`.

/// A custom trait for the scenarios.
private struct ScenarioThemeTrait: TraitDefinition {
  static let defaultValue = 0
}

/// Records the calls of a scenario in one shared log, so that order across nodes shows.
private final class ScenarioLog {
  var entries: [String] = []
}

/// A legacy node that logs each call, checks it, and then runs its script.
private final class ScriptedLegacyNode: TraitNode, TraitCollectionDidChangeObserving {
  let name: String
  let log: ScenarioLog
  /// What the node's next call does after logging, if anything.
  var script: ((ScriptedLegacyNode) -> Void)?
  private(set) var previousCollections: [TraitCollection?] = []
  /// The collection of the last call, or the node's when it adopted the callback.
  private(set) var lastReported = TraitCollection()
  /// The checks that a call failed, each naming the node.
  private(set) var mismatches: [String] = []

  init(_ name: String, log: ScenarioLog) {
    self.name = name
    self.log = log
    super.init()
    adoptTraitCollectionDidChange()
    lastReported = traitCollection
  }

  func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {
    log.entries.append("\(name).legacy")
    previousCollections.append(previousTraitCollection)
    if previousTraitCollection != lastReported {
      mismatches.append("\(name): the previous collection is not the last reported one")
    }
    if previousTraitCollection == traitCollection { mismatches.append("\(name): no change") }
    if TraitCollection.current != traitCollection {
      mismatches.append("\(name): TraitCollection.current is not the node's collection")
    }
    lastReported = traitCollection
    script?(self)
  }

  /// Whether the last call reported the node's current collection.
  var isCurrent: Bool { lastReported == traitCollection }
}

@Suite("Legacy callbacks that change the tree during the pass")
struct LegacyPassScenarioTests {
  @Test("a node whose own callback moves it into another graph hears there next, as it reported")
  func ownCallbackMovesItsNodeIntoAnotherGraph() {
    let log = ScenarioLog()
    let first = TraitGraph()
    let second = TraitGraph(baseTraits: TraitCollection { $0.displayScale = 3 })
    let node = ScriptedLegacyNode("node", log: log)
    let child = ScriptedLegacyNode("child", log: log)
    first.root.addTraitChild(node)
    node.addTraitChild(child)
    first.updateTraitsIfNeeded()
    node.script = { [unowned second] node in
      if node.traitParent !== second.root { second.root.addTraitChild(node) }
    }

    first.root.traitOverrides.userInterfaceStyle = .dark
    first.updateTraitsIfNeeded()

    // The child left with its parent before its visit.
    #expect(log.entries == ["node.legacy"])
    #expect(first.statistics.lastPass.legacyCallbacksDelivered == 1)
    #expect(first.statistics.liveRegistrations == 0)
    #expect(second.statistics.liveRegistrations == 2)

    second.updateTraitsIfNeeded()

    #expect(log.entries == ["node.legacy", "node.legacy", "child.legacy"])
    #expect(node.previousCollections.last??.userInterfaceStyle == .dark)
    #expect(node.previousCollections.last??.displayScale == 0)
    #expect(child.previousCollections.last??.displayScale == 0)
    #expect(node.isCurrent && child.isCurrent)
    #expect(node.mismatches + child.mismatches == [])
  }

  @Test(
    "a node that its parent's registration detaches and a later callback re-attaches hears once"
  )
  func detachedBeforeItsVisitAndReattachedAfter() {
    let log = ScenarioLog()
    let graph = TraitGraph()
    let parent = ScriptedLegacyNode("parent", log: log)
    let node = ScriptedLegacyNode("node", log: log)
    let later = ScriptedLegacyNode("later", log: log)
    graph.root.addTraitChild(parent)
    parent.addTraitChild(node)
    graph.root.addTraitChild(later)
    graph.updateTraitsIfNeeded()
    parent.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (parent: ScriptedLegacyNode, _: TraitCollection) in
      parent.log.entries.append("parent.registration")
      node.removeFromTraitParent()
    }
    later.script = { later in if node.traitParent == nil { later.addTraitChild(node) } }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["parent.registration", "parent.legacy", "later.legacy", "node.legacy"])
    #expect(node.previousCollections.map { $0?.userInterfaceStyle } == [.unspecified])
    #expect(node.isCurrent)
    #expect(parent.mismatches + node.mismatches + later.mismatches == [])
    #expect(graph.statistics.liveRegistrations == 4)
  }

  @Test(
    "a node that a sibling's callback moves behind the walk and changes hears again, next round"
  )
  func siblingMovesItBehindTheWalk() {
    let log = ScenarioLog()
    let graph = TraitGraph()
    let first = ScriptedLegacyNode("first", log: log)
    let second = ScriptedLegacyNode("second", log: log)
    graph.root.addTraitChild(first)
    graph.root.addTraitChild(second)
    graph.updateTraitsIfNeeded()
    // The second, visited after the first, moves the first below itself and changes it.
    second.script = { [unowned graph, unowned first] second in
      guard graph.root.traitChildren.first === first else { return }
      second.addTraitChild(first)
      first.traitOverrides.horizontalSizeClass = .compact
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["first.legacy", "second.legacy", "first.legacy"])
    #expect(graph.statistics.lastPass.rounds == 2)
    #expect(
      first.previousCollections.map { $0?.horizontalSizeClass } == [.unspecified, .unspecified]
    )
    #expect(first.isCurrent)
    #expect(first.mismatches + second.mismatches == [])
  }

  @Test("a node moved through another graph's pass and back in one callback hears in both graphs")
  func movedThroughAnotherGraphsPassAndBack() {
    let log = ScenarioLog()
    let first = TraitGraph()
    let second = TraitGraph(baseTraits: TraitCollection { $0.horizontalSizeClass = .regular })
    let mover = ScriptedLegacyNode("mover", log: log)
    let node = ScriptedLegacyNode("node", log: log)
    first.root.addTraitChild(mover)
    first.root.addTraitChild(node)
    first.updateTraitsIfNeeded()
    mover.script = { [unowned first, unowned second, unowned node] _ in
      guard node.traitParent === first.root else { return }
      second.root.addTraitChild(node)
      second.updateTraitsIfNeeded()
      first.root.addTraitChild(node)
    }

    first.root.traitOverrides.userInterfaceStyle = .dark
    first.updateTraitsIfNeeded()

    // In the second graph: dark, regular; back in the first: unspecified again.
    #expect(log.entries == ["mover.legacy", "node.legacy", "node.legacy"])
    #expect(node.previousCollections.map { $0?.horizontalSizeClass } == [.unspecified, .regular])
    #expect(node.isCurrent)
    #expect(first.statistics.liveRegistrations == 2)
    #expect(second.statistics.liveRegistrations == 0)
    #expect(mover.mismatches + node.mismatches == [])
  }

  @Test("a callback that changes its own node's traits is called once a round until they settle")
  func callbackChangingItsOwnTraitsIsCalledOnceARound() {
    let log = ScenarioLog()
    let graph = TraitGraph()
    let node = ScriptedLegacyNode("node", log: log)
    let child = ScriptedLegacyNode("child", log: log)
    graph.root.addTraitChild(node)
    node.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    node.script = { node in
      let theme = node.traitCollection[ScenarioThemeTrait.self]
      if theme < 5 { node.traitOverrides[ScenarioThemeTrait.self] = theme + 1 }
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(graph.statistics.lastPass.rounds == 6)
    #expect(log.entries.filter { $0 == "node.legacy" }.count == 6)
    // The child hears of each write in the round that made it: the walk carries it down. The
    // sixth round changes nothing below the node.
    #expect(log.entries.filter { $0 == "child.legacy" }.count == 5)
    #expect(graph.statistics.lastPass.legacyCallbacksDelivered == 11)
    #expect(node.isCurrent && child.isCurrent)
    #expect(node.mismatches + child.mismatches == [])
  }

  @Test("a change that an override shields calls nobody below, until a callback removes it")
  func shieldingOverrideRemovedByACallback() {
    let log = ScenarioLog()
    let graph = TraitGraph()
    let shield = ScriptedLegacyNode("shield", log: log)
    let below = ScriptedLegacyNode("below", log: log)
    let trigger = ScriptedLegacyNode("trigger", log: log)
    graph.root.addTraitChild(shield)
    shield.addTraitChild(below)
    graph.root.addTraitChild(trigger)
    shield.traitOverrides.userInterfaceStyle = .light
    graph.updateTraitsIfNeeded()
    log.entries.removeAll()

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["trigger.legacy"])

    // The trigger, after the shield in tree order, removes the shield's override in the pass.
    trigger.script = { _ in shield.traitOverrides.remove(TraitUserInterfaceStyle.self) }
    trigger.traitOverrides.displayScale = 2
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["trigger.legacy", "trigger.legacy", "shield.legacy", "below.legacy"])
    #expect(below.previousCollections.last??.userInterfaceStyle == .light)
    #expect(shield.isCurrent && below.isCurrent && trigger.isCurrent)
    #expect(shield.mismatches + below.mismatches + trigger.mismatches == [])
  }

  @Test("a legacy node that a sibling's callback drops is never called, and goes at the pass's end")
  func droppedBySiblingsCallback() {
    let log = ScenarioLog()
    let graph = TraitGraph()
    let first = ScriptedLegacyNode("first", log: log)
    graph.root.addTraitChild(first)
    weak var weakSecond: ScriptedLegacyNode?
    do {
      let second = ScriptedLegacyNode("second", log: log)
      weakSecond = second
      graph.root.addTraitChild(second)
    }
    graph.updateTraitsIfNeeded()
    var aliveInThePass: Bool?
    var countsInThePass: [Int] = []
    first.script = { [unowned graph] _ in
      weakSecond?.removeFromTraitParent()
      aliveInThePass = weakSecond != nil
      countsInThePass = [graph.statistics.liveNodes, graph.statistics.liveRegistrations]
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["first.legacy"])
    #expect(aliveInThePass == true)
    #expect(countsInThePass == [2, 1])
    #expect(weakSecond == nil)
    #expect(first.mismatches == [])
  }
}
