import Testing
import TraitKit

// A pass visits a node with the node's collection unretained: the collection's owner — the node
// itself when it has overrides, else the nearest ancestor that has, else the graph's base
// traits — keeps it until a value or the tree changes, and from that change on the pass keeps
// it. User code that runs during the visit (a handler, a tracked slot's invalidation) may change
// the node's collection and let go of every other reference to the old one; the visit then
// still compares with it, and hands it to the registrations it called. These tests do exactly
// that, and check that every registration still hears each change once, with the collection it
// last heard of. Run them under AddressSanitizer, in a release build too
// (`Scripts/sanitize.sh address address-release`): a collection freed under the visit shows there
// as a use after free; in a plain build, as a crash or wrong values once its memory is reused.

/// Toggles the flag override of `owner` — `node` itself or the ancestor whose collection it
/// shares — while the only other reference to `node`'s collection, `kept`, goes; reads the node
/// (which lets go of the old collection); and makes a few collections of the same size, which
/// reuse the memory of one freed too early.
private func replaceCollection(of node: TraitNode, toggling owner: TraitNode) {
  var kept: TraitCollection? = node.traitCollection
  owner.traitOverrides[GTFlagTrait.self] = !(kept?[GTFlagTrait.self] ?? false)
  _ = node.traitCollection.horizontalSizeClass
  kept = nil
  let reuse = (0..<8).map { TraitCollection(GTThemeTrait.self, value: $0 + 100) }
  withExtendedLifetime(reuse) {}
}

@Suite("A visited node's collection while handlers replace it")
struct VisitLifetimeTests {
  /// Enough registrations for a run (see `_NodeObservers.minimumRunLength`), whose first user
  /// replaces the collection before any registration moved to it: only the visit holds it then.
  static let runLength = 12

  /// A node under the root with a theme override (so that it owns its collection) and `count`
  /// registrations for the size class, each logging its name with the previous and current
  /// size class; `r0` also runs `action`.
  private static func owningNode(
    _ count: Int,
    log: GTLog,
    action: @escaping (GTNode) -> Void
  ) -> (graph: TraitGraph, node: GTNode) {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    node.traitOverrides[GTThemeTrait.self] = 1
    for index in 0..<count {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, previous: TraitCollection) in
        log.append(DeliveryRunTests.sizeClassEntry("r\(index)", node, previous))
        if index == 0 { action(node) }
      }
    }
    graph.updateTraitsIfNeeded()
    return (graph, node)
  }

  @Test("a run's handler that replaces its node's own collection leaves the run's users theirs")
  func runHandlerReplacesOwnCollection() {
    let log = GTLog()
    var armed = true
    let (graph, _) = Self.owningNode(Self.runLength, log: log) { node in
      guard armed else { return }
      armed = false
      replaceCollection(of: node, toggling: node)
    }

    gtChangeSizeClass(graph, to: .compact)
    gtChangeSizeClass(graph, to: .regular)

    let first = (0..<Self.runLength).map { "r\($0) unspecified→compact" }
    let second = (0..<Self.runLength).map { "r\($0) compact→regular" }
    #expect(log.entries == first + second)
  }

  @Test("a handler that replaces the collection its node shares with an ancestor leaves it alive")
  func handlerReplacesSharedCollection() {
    let log = GTLog()
    var armed = true
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let node = GTNode("node")
    graph.root.addTraitChild(parent)
    parent.addTraitChild(node)
    // The parent owns the collection; the node, without overrides, shares it.
    parent.traitOverrides[GTThemeTrait.self] = 1
    for index in 0..<Self.runLength {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned parent] (node: GTNode, previous: TraitCollection) in
        log.append(DeliveryRunTests.sizeClassEntry("r\(index)", node, previous))
        if index == 0, armed {
          armed = false
          replaceCollection(of: node, toggling: parent)
        }
      }
    }
    graph.updateTraitsIfNeeded()

    gtChangeSizeClass(graph, to: .compact)
    gtChangeSizeClass(graph, to: .regular)

    let first = (0..<Self.runLength).map { "r\($0) unspecified→compact" }
    let second = (0..<Self.runLength).map { "r\($0) compact→regular" }
    #expect(log.entries == first + second)
  }

  @Test("a root handler that replaces the base traits leaves the root's old collection alive")
  func handlerReplacesBaseTraits() {
    let log = GTLog()
    var armed = true
    let graph = TraitGraph(baseTraits: TraitCollection(GTThemeTrait.self, value: 1))
    for index in 0..<Self.runLength {
      graph.root.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned graph] (node: TraitNode, previous: TraitCollection) in
        log.append(
          "r\(index) \(previous.horizontalSizeClass)→\(node.traitCollection.horizontalSizeClass)"
        )
        guard index == 0, armed else { return }
        armed = false
        // The root has no overrides: its collection is the base traits', which this replaces.
        var kept: TraitCollection? = node.traitCollection
        graph.baseTraits = kept.unsafelyUnwrapped.replacing(GTThemeTrait.self, value: 2)
        _ = node.traitCollection.horizontalSizeClass
        kept = nil
        let reuse = (0..<8).map { TraitCollection(GTThemeTrait.self, value: $0 + 100) }
        withExtendedLifetime(reuse) {}
      }
    }

    graph.baseTraits = graph.baseTraits.replacing(TraitHorizontalSizeClass.self, value: .compact)
    graph.updateTraitsIfNeeded()
    graph.baseTraits = graph.baseTraits.replacing(TraitHorizontalSizeClass.self, value: .regular)
    graph.updateTraitsIfNeeded()

    let first = (0..<Self.runLength).map { "r\($0) unspecified→compact" }
    let second = (0..<Self.runLength).map { "r\($0) compact→regular" }
    #expect(log.entries == first + second)
    #expect(graph.root.traitCollection[GTThemeTrait.self] == 2)
  }

  @Test("an invalidation that replaces its node's collection leaves the next slot its baseline")
  func invalidationReplacesCollection() {
    let (graph, node) = makeGraphWithChild()
    node.traitOverrides[GTThemeTrait.self] = 1
    let log = GTLog()
    var armed = true
    // NB: the invalidation takes its node as an argument: a closure the node keeps must not
    // capture it.
    func track(_ node: TraitNode, _ slot: TraitTrackingSlot) {
      node.withTraitTracking(
        slot: slot,
        invalidation: { node in
          log.append("\(slot) invalidated")
          guard slot == .layout, armed else { return }
          armed = false
          // Re-tracking the slot lets its record go of the collection it was invalidated at, and
          // the node lets go of it once it is read after the change: only `kept` holds it then.
          var kept: TraitCollection? = node.traitCollection
          node.traitOverrides[GTFlagTrait.self] = !(kept?[GTFlagTrait.self] ?? false)
          track(node, .layout)
          kept = nil
          let reuse = (0..<8).map { TraitCollection(GTThemeTrait.self, value: $0 + 100) }
          withExtendedLifetime(reuse) {}
        },
        { _ = node.traitCollection.horizontalSizeClass }
      )
    }
    track(node, .layout)
    track(node, .display)

    gtChangeSizeClass(graph, to: .compact)
    // The display slot's record now holds the collection it was invalidated at, compact: only a
    // change from there invalidates it again.
    graph.root.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    gtChangeSizeClass(graph, to: .regular)

    #expect(
      log.entries == [
        "layout invalidated", "display invalidated", "layout invalidated", "display invalidated",
      ]
    )
  }
}
