import Foundation
import Testing
import TraitKit
import TraitKitLegacy

/// A custom trait nobody in these tests declares interest in.
private struct LegacyThemeTrait: TraitDefinition {
  static let defaultValue = 0
}

/// Records every event of a pass in one shared log, so that order across nodes shows.
private final class EventLog {
  var events: [String] = []
}

/// A node that adopts the legacy callback and logs it.
private final class LegacyNode: TraitNode, TraitCollectionDidChangeObserving {
  let name: String
  let log: EventLog
  var previousCollections: [TraitCollection?] = []
  var currentDuringCall: [TraitCollection] = []

  init(_ name: String, log: EventLog, interestingTraits: [any TraitDefinition.Type] = []) {
    self.name = name
    self.log = log
    super.init()
    adoptTraitCollectionDidChange(interestingTraits: interestingTraits)
  }

  func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {
    log.events.append("\(name).legacy")
    previousCollections.append(previousTraitCollection)
    currentDuringCall.append(TraitCollection.current)
  }
}

/// A node that redraws its colors in the legacy way: when the color appearance differs from
/// the previous collection's, passed as UIKit passes it, optional.
private final class ColorAppearanceNode: TraitNode, TraitCollectionDidChangeObserving {
  var calls = 0
  var colorUpdates = 0

  override init() {
    super.init()
    adoptTraitCollectionDidChange()
  }

  func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {
    calls += 1
    if traitCollection.hasDifferentColorAppearance(comparedTo: previousTraitCollection) {
      colorUpdates += 1
    }
  }
}

@Suite("Legacy traitCollectionDidChange adapter")
struct TraitCollectionDidChangeTests {
  @Test("it fires for a change of any trait, system or custom, once per pass")
  func firesForAnyTrait() {
    let log = EventLog()
    let graph = TraitGraph()
    let node = LegacyNode("node", log: log)
    graph.root.addTraitChild(node)

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.root.traitOverrides.displayScale = 3
    graph.updateTraitsIfNeeded()
    #expect(log.events == ["node.legacy"])
    #expect(graph.statistics.lastPass.legacyCallbacksDelivered == 1)

    graph.root.traitOverrides[LegacyThemeTrait.self] = 2
    graph.updateTraitsIfNeeded()
    #expect(log.events == ["node.legacy", "node.legacy"])

    graph.updateTraitsIfNeeded()
    #expect(log.events.count == 2)
  }

  @Test("entries kept from decoding under unknown identifiers are no trait: they call nothing")
  func unknownEntriesCallNothing() throws {
    let log = EventLog()
    let first = try JSONDecoder().decode(
      TraitCollection.self,
      from: Data(#"{"com.example.newer-app.trait": 1}"#.utf8)
    )
    let second = try JSONDecoder().decode(
      TraitCollection.self,
      from: Data(#"{"com.example.newer-app.trait": 2}"#.utf8)
    )
    let graph = TraitGraph(baseTraits: first)
    let node = LegacyNode("node", log: log)
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    #expect(log.events.isEmpty)

    // Only the kept entries differ, and a trait changes and changes back.
    graph.baseTraits = second
    graph.root.traitOverrides[LegacyThemeTrait.self] = 1
    graph.root.traitOverrides.remove(LegacyThemeTrait.self)
    graph.updateTraitsIfNeeded()
    #expect(log.events.isEmpty)

    // A trait that changes still calls it.
    graph.root.traitOverrides[LegacyThemeTrait.self] = 1
    graph.updateTraitsIfNeeded()
    #expect(log.events == ["node.legacy"])
  }

  @Test("the previous collection is the one of the node's last call, never nil")
  func previousCollection() throws {
    let log = EventLog()
    let graph = TraitGraph()
    let node = LegacyNode("node", log: log)
    graph.root.addTraitChild(node)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()

    let previous = try #require(
      node.previousCollections.count == 2 ? node.previousCollections : nil
    )
    #expect(previous[0]?.horizontalSizeClass == .unspecified)
    #expect(previous[1]?.horizontalSizeClass == .compact)
    #expect(node.currentDuringCall.map(\.horizontalSizeClass) == [.compact, .regular])
  }

  @Test("it runs after the node's registrations, parents before children")
  func treeOrder() {
    let log = EventLog()
    let graph = TraitGraph()
    let parent = LegacyNode("parent", log: log)
    let child = LegacyNode("child", log: log)
    graph.root.addTraitChild(parent)
    parent.addTraitChild(child)
    for node in [parent, child] {
      node.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        (node: LegacyNode, _: TraitCollection) in
        node.log.events.append("\(node.name).registration")
      }
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(
      log.events == [
        "parent.registration", "parent.legacy", "child.registration", "child.legacy",
      ]
    )
  }

  @Test("adopting twice still calls the node once per pass")
  func adoptingTwice() {
    let log = EventLog()
    let graph = TraitGraph()
    let node = LegacyNode("node", log: log)
    node.adoptTraitCollectionDidChange()
    graph.root.addTraitChild(node)

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.events == ["node.legacy"])
    #expect(graph.statistics.liveRegistrations == 1)
  }

  @Test("a subtree without adopters is never visited for the legacy path")
  func subtreeWithoutAdopters() {
    let log = EventLog()
    let graph = TraitGraph()
    let adopter = LegacyNode("adopter", log: log)
    graph.root.addTraitChild(adopter)
    let plain = TraitNode()
    graph.root.addTraitChild(plain)
    for _ in 0..<100 {
      let leaf = TraitNode()
      plain.addTraitChild(leaf)
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.events == ["adopter.legacy"])
    #expect(graph.statistics.lastPass.nodesVisited == 2)
  }

  @Test("a call in which none of the declared interesting traits changed counts as wasted")
  func wastedCallbacks() {
    let log = EventLog()
    let graph = TraitGraph()
    let node = LegacyNode("node", log: log, interestingTraits: [TraitHorizontalSizeClass.self])
    graph.root.addTraitChild(node)

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.legacyCallbacksDelivered == 1)
    #expect(graph.statistics.lastPass.wastedLegacyCallbacks == 1)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.legacyCallbacksDelivered == 1)
    #expect(graph.statistics.lastPass.wastedLegacyCallbacks == 0)
  }

  @Test("the legacy idiom comparing color appearance with the optional previous collection works")
  func colorAppearanceIdiom() {
    let graph = TraitGraph()
    let node = ColorAppearanceNode()
    graph.root.addTraitChild(node)
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(node.calls == 2)
    #expect(node.colorUpdates == 1)
  }

  @Test("a node that declared no interesting traits counts no call as wasted")
  func noInterestingTraitsCountsNothingWasted() {
    let log = EventLog()
    let graph = TraitGraph()
    let node = LegacyNode("node", log: log)
    graph.root.addTraitChild(node)

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(log.events == ["node.legacy"])
    #expect(graph.statistics.lastPass.legacyCallbacksDelivered == 1)
    #expect(graph.statistics.lastPass.wastedLegacyCallbacks == 0)
  }

  @Test("the adoption ends with its node")
  func lifetime() {
    let graph = TraitGraph()
    weak var weakNode: LegacyNode?
    do {
      let node = LegacyNode("node", log: EventLog())
      weakNode = node
      graph.root.addTraitChild(node)
      #expect(graph.statistics.liveRegistrations == 1)
      node.removeFromTraitParent()
    }
    #expect(weakNode == nil)
    #expect(graph.statistics.liveRegistrations == 0)
  }
}
