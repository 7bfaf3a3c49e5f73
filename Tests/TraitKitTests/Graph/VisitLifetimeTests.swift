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

/// Replaces `node`'s collection through `change`, given the collection, while the only other
/// reference to it, `kept`, goes; reads the node (which lets go of the old collection); and makes
/// a few collections of the same size, which reuse the memory of one freed too early.
private func replaceCollection(of node: TraitNode, by change: (TraitCollection) -> Void) {
  var kept: TraitCollection? = node.traitCollection
  change(kept.unsafelyUnwrapped)
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

  /// What the registrations log over the size class's change to compact and then to regular when
  /// each hears each change once, with the collection it last heard of.
  static let eachHearsBothChanges =
    (0..<runLength).map { "r\($0) unspecified→compact" }
    + (0..<runLength).map { "r\($0) compact→regular" }

  /// Registers `runLength` handlers for the size class on `node`, each logging its name with the
  /// previous and current size class; the first, `r0`, also runs `action` with the node.
  private static func registerLoggers(
    on node: GTNode,
    log: GTLog,
    firstAlso action: @escaping (GTNode) -> Void
  ) {
    for index in 0..<runLength {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, previous: TraitCollection) in
        log.append(DeliveryRunTests.sizeClassEntry("r\(index)", node, previous))
        if index == 0 { action(node) }
      }
    }
  }

  @Test(
    "a run's handler that replaces the collection its node owns or shares leaves it to the run",
    arguments: [false, true]
  )
  func handlerReplacesVisitedCollection(ownedByAncestor: Bool) {
    let log = GTLog()
    var armed = true
    let graph = TraitGraph()
    let node = GTNode("node")
    // The owner of the node's collection: the node, or a parent whose collection the node,
    // without overrides, shares.
    let owner = ownedByAncestor ? GTNode("parent") : node
    if ownedByAncestor {
      graph.root.addTraitChild(owner)
      owner.addTraitChild(node)
    } else {
      graph.root.addTraitChild(node)
    }
    owner.traitOverrides[GTThemeTrait.self] = 1
    Self.registerLoggers(on: node, log: log) { [unowned owner] node in
      guard armed else { return }
      armed = false
      // The owner's flag toggled, which gives the node a new collection.
      replaceCollection(of: node) { owner.traitOverrides[GTFlagTrait.self] = !$0[GTFlagTrait.self] }
    }
    graph.updateTraitsIfNeeded()

    gtChangeSizeClass(graph, to: .compact)
    gtChangeSizeClass(graph, to: .regular)

    #expect(log.entries == Self.eachHearsBothChanges)
  }

  // NB: `performAsCurrent` hides the collection the pass publishes as `current`; the pass must
  // keep it alive all the same, and `current` must show the node's collection afterwards, not
  // memory the body freed.
  @Test(
    "a root handler that replaces the base traits, in performAsCurrent or not, leaves it alive",
    arguments: [false, true]
  )
  func handlerReplacesBaseTraits(insidePerformAsCurrent: Bool) {
    let log = GTLog()
    var armed = true
    var currentThemes: [Int] = []
    let graph = TraitGraph(baseTraits: TraitCollection(GTThemeTrait.self, value: 1))
    for index in 0..<Self.runLength {
      graph.root.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned graph] (node: TraitNode, previous: TraitCollection) in
        log.append(DeliveryRunTests.sizeClassEntry("r\(index)", node, previous))
        guard index == 0, armed else { return }
        armed = false
        currentThemes.append(TraitCollection.current[GTThemeTrait.self])
        // The root has no overrides: its collection is the base traits', which this replaces.
        replaceCollection(of: node) { collection in
          let replace = { graph.baseTraits = collection.replacing(GTThemeTrait.self, value: 2) }
          insidePerformAsCurrent ? TraitCollection().performAsCurrent(replace) : replace()
        }
        currentThemes.append(TraitCollection.current[GTThemeTrait.self])
      }
    }

    graph.baseTraits = graph.baseTraits.replacing(TraitHorizontalSizeClass.self, value: .compact)
    graph.updateTraitsIfNeeded()
    graph.baseTraits = graph.baseTraits.replacing(TraitHorizontalSizeClass.self, value: .regular)
    graph.updateTraitsIfNeeded()

    #expect(log.entries == Self.eachHearsBothChanges)
    #expect(graph.root.traitCollection[GTThemeTrait.self] == 2)
    // `current` is the node's collection as it is, the replaced base traits' once replaced (R6).
    #expect(currentThemes == [1, 2])
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
          // the node lets go of it once it is read after the change: only the helper holds it.
          replaceCollection(of: node) {
            node.traitOverrides[GTFlagTrait.self] = !$0[GTFlagTrait.self]
            track(node, .layout)
          }
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
