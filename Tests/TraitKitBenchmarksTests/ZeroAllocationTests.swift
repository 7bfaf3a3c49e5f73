import Testing

@testable import TraitKit
@testable import TraitKitBenchmarks

// DESIGN.md §4: "The steady-state notification and re-tracking paths allocate nothing", and R11:
// "Re-tracking the same reads allocates nothing". Each test warms its path up first (first runs
// register traits, grow tables and instantiate metadata), then counts the allocations that many
// more runs make on the test's own thread, which tests running in parallel do not disturb.
//
// NB: the counted loops index arrays instead of iterating them: unspecialized (-Onone), a
// generic algorithm such as `for in`, `reduce` or `lastIndex(where:)` reads each element
// through a coroutine that allocates its frame, and the engine avoids them on these paths for
// the same reason, so that these tests hold in the debug build CI runs. Custom traits get their
// dense index at first use, process-wide: the tests read system traits, whose indices are
// fixed, except where they choose the index range.

/// A custom trait whose dense index is at least 64 (see `registerTraitBeyondFirst64()`).
private enum ZABeyondTrait: ZAIntTrait {
  static let defaultValue = 0
}

/// A distinct trait type for each `Inner`.
private enum ZAFreshTrait<Inner>: TraitDefinition {
  static var defaultValue: Int { 0 }
}

/// Registers 64 trait types that no other code uses: `ZAFreshTrait<Marker>`,
/// `ZAFreshTrait<ZAFreshTrait<Marker>>` and so on.
private func registerFreshTraits<Marker>(after _: Marker.Type) {
  func register<Inner>(_: Inner.Type, remaining: Int) {
    guard remaining > 0 else { return }
    _ = TraitCollection()[ZAFreshTrait<Inner>.self]
    register(ZAFreshTrait<Inner>.self, remaining: remaining - 1)
  }
  register(Marker.self, remaining: 64)
}

/// Registers ``ZABeyondTrait`` after 64 trait types that no other code uses, so that its dense
/// index is at least 64 whatever the tests that ran before registered.
private func registerTraitBeyondFirst64() {
  registerFreshTraits(after: Void.self)
  _ = TraitCollection()[ZABeyondTrait.self]
}

/// A custom trait whose dense index is at least 128, so that an index set holds it two or more
/// words beyond its first (see `registerTraitBeyondFirst128()`).
private enum ZAFarTrait: ZAIntTrait {
  static let defaultValue = 0
}

/// Mark the trait types that `registerTraitBeyondFirst128()` registers, 64 after each.
private enum ZAFarMarker {}
private enum ZAFartherMarker {}

/// Registers ``ZAFarTrait`` after 128 trait types that no other code uses, so that its dense
/// index is at least 128 whatever the tests that ran before registered.
private func registerTraitBeyondFirst128() {
  registerFreshTraits(after: ZAFarMarker.self)
  registerFreshTraits(after: ZAFartherMarker.self)
  _ = TraitCollection()[ZAFarTrait.self]
}

/// A custom trait registered after 64 more trait types than any collection made before
/// `registerLateTrait()` ran had room for.
private enum ZALateTrait: TraitDefinition {
  static let defaultValue = 0
}

/// Marks the trait types that `registerLateTrait()` registers.
private enum ZALateMarker {}

/// Registers 64 trait types that no other code uses, then ``ZALateTrait``.
private func registerLateTrait() {
  registerFreshTraits(after: ZALateMarker.self)
  _ = TraitCollection()[ZALateTrait.self]
}

/// A view-like node whose layout reads traits of its own and of its parent, tracked as UIKit's
/// automatic trait tracking tracks `layoutSubviews`.
private final class ZALayoutView: TraitNode {
  /// Whether the layout also reads ``ZABeyondTrait``.
  let readsTraitBeyondFirst64: Bool
  var needsLayout = false
  var layouts = 0
  var invalidations = 0
  /// What the last layout read, so that the reads are not dead code.
  var frame = 0

  init(readsTraitBeyondFirst64: Bool = false) {
    self.readsTraitBeyondFirst64 = readsTraitBeyondFirst64
    super.init()
  }

  /// Runs the tracked layout; the invalidation captures nothing: it receives the node.
  func layout() {
    needsLayout = false
    layouts += 1
    withTraitTracking(slot: .layout, invalidation: { ZALayoutView.invalidate($0) }, readTraits)
  }

  /// The layout's body: reads two or three traits of the node and one of its parent.
  private func readTraits() {
    var frame = traitCollection.horizontalSizeClass.rawValue
    frame &+= traitCollection.userInterfaceStyle.rawValue
    if readsTraitBeyondFirst64 { frame &+= traitCollection[ZABeyondTrait.self] }
    if let parent = traitParent { frame &+= Int(parent.traitCollection.displayScale) }
    self.frame = frame
  }

  /// Runs a second tracked slot, as a view's drawing is tracked apart from its layout.
  func display() {
    withTraitTracking(slot: .display, invalidation: { ZALayoutView.invalidate($0) }, readStyle)
  }

  /// The display's body: reads one trait of the node.
  private func readStyle() {
    frame &+= traitCollection.userInterfaceStyle.rawValue
  }

  /// Re-runs the tracked layout when an invalidation asked for it.
  func layoutIfNeeded() {
    if needsLayout { layout() }
  }

  private static func invalidate(_ node: TraitNode) {
    let view = unsafeDowncast(node, to: ZALayoutView.self)
    view.needsLayout = true
    view.invalidations += 1
  }
}

/// A node that counts the calls of the handler it registered for the user interface style.
private final class ZAObservingNode: TraitNode {
  var calls = 0

  override init() {
    super.init()
    registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (self: ZAObservingNode, _: TraitCollection) in
      self.calls += 1
    }
  }
}

/// A node that registered for two of four system traits, chosen by `kind`: trait `kind` and the
/// next one, modulo 4.
private final class ZATwoTraitNode: TraitNode {
  var calls = 0

  init(kind: Int) {
    super.init()
    let traits: [TraitKit.Trait] = [
      TraitUserInterfaceStyle.self, TraitHorizontalSizeClass.self, TraitVerticalSizeClass.self,
      TraitLayoutDirection.self,
    ]
    registerForTraitChanges([traits[kind % traits.count], traits[(kind + 1) % traits.count]]) {
      (self: ZATwoTraitNode, _: TraitCollection) in
      self.calls += 1
    }
  }
}

/// Flips the root's override of one of the four traits that `ZATwoTraitNode`s observe.
private func toggleTrait(_ kind: Int, of graph: TraitGraph) {
  let traits = graph.root.traitCollection
  switch kind % 4 {
  case 0:
    graph.root.traitOverrides.userInterfaceStyle =
      traits.userInterfaceStyle == .dark ? .light : .dark
  case 1:
    graph.root.traitOverrides.horizontalSizeClass =
      traits.horizontalSizeClass == .compact ? .regular : .compact
  case 2:
    graph.root.traitOverrides.verticalSizeClass =
      traits.verticalSizeClass == .compact ? .regular : .compact
  default:
    graph.root.traitOverrides.layoutDirection =
      traits.layoutDirection == .leftToRight ? .rightToLeft : .leftToRight
  }
  graph.updateTraitsIfNeeded()
}

/// An `Int` trait, so that a test can flip any of several trait types.
private protocol ZAIntTrait: TraitDefinition where Value == Int {}

/// A distinct `Int` trait type for each `Inner`.
private enum ZAAgedTrait<Inner>: ZAIntTrait {
  static var defaultValue: Int { 0 }
}

/// `count` distinct `Int` trait types.
private func agedTraits(_ count: Int) -> [any ZAIntTrait.Type] {
  var traits: [any ZAIntTrait.Type] = []
  func append<Inner>(_: Inner.Type, remaining: Int) {
    guard remaining > 0 else { return }
    traits.append(ZAAgedTrait<Inner>.self)
    append(ZAAgedTrait<Inner>.self, remaining: remaining - 1)
  }
  append(Int.self, remaining: count)
  return traits
}

extension ZAIntTrait {
  /// Flips the root's override of this trait between 0 and 1 and runs the update pass.
  static func flip(in graph: TraitGraph) {
    flip(at: graph.root)
    graph.updateTraitsIfNeeded()
  }

  /// Flips `node`'s override of this trait between 0 and 1, without a pass.
  static func flip(at node: TraitNode) {
    node.traitOverrides[Self.self] = 1 - node.traitCollection[Self.self]
  }

  /// The value of this trait in `node`'s collection.
  static func value(in node: TraitNode) -> Int {
    node.traitCollection[Self.self]
  }
}

/// A node that observes one `Int` trait both ways: by a registration, whose calls it counts, and
/// by a tracked layout that reads it, whose invalidations it counts.
private final class ZAIntTraitObserver: TraitNode {
  let observed: any ZAIntTrait.Type
  var calls = 0
  var needsLayout = false
  var invalidations = 0
  /// What the last layout read, so that the read is not dead code.
  var frame = 0

  init(_ observed: any ZAIntTrait.Type) {
    self.observed = observed
    super.init()
    registerForTraitChanges([observed as TraitKit.Trait]) {
      (self: ZAIntTraitObserver, _: TraitCollection) in
      self.calls += 1
    }
  }

  /// Runs the tracked layout; the invalidation captures nothing: it receives the node.
  func layout() {
    needsLayout = false
    withTraitTracking(
      slot: .layout,
      invalidation: { ZAIntTraitObserver.invalidate($0) },
      readTrait
    )
  }

  /// Re-runs the tracked layout when an invalidation asked for it.
  func layoutIfNeeded() {
    if needsLayout { layout() }
  }

  /// The layout's body: reads the observed trait.
  private func readTrait() {
    frame = observed.value(in: self)
  }

  private static func invalidate(_ node: TraitNode) {
    let observer = unsafeDowncast(node, to: ZAIntTraitObserver.self)
    observer.needsLayout = true
    observer.invalidations += 1
  }
}

/// A node that registered for four of `traits`, chosen at random by `generator`, and counts the
/// calls.
private final class ZAFourTraitNode: TraitNode {
  var calls = 0
  /// The positions in `traits` of the traits it observes.
  let observed: [Int]

  init(_ traits: [any ZAIntTrait.Type], using generator: inout SeededGenerator) {
    observed = Array(traits.indices.shuffled(using: &generator).prefix(4))
    super.init()
    registerForTraitChanges(observed.map { traits[$0] as TraitKit.Trait }) {
      (self: ZAFourTraitNode, _: TraitCollection) in
      self.calls += 1
    }
  }
}

/// A graph whose root has `count` children of type `Node`, each with `count` children.
private func twoLevelTree<Node: TraitNode>(
  _ count: Int,
  _ makeNode: () -> Node
) -> (graph: TraitGraph, nodes: [Node]) {
  let graph = TraitGraph()
  var nodes: [Node] = []
  for _ in 0..<count {
    let child = makeNode()
    graph.root.addTraitChild(child)
    nodes.append(child)
    for _ in 0..<count {
      let grandchild = makeNode()
      child.addTraitChild(grandchild)
      nodes.append(grandchild)
    }
  }
  graph.root.traitOverrides.horizontalSizeClass = .compact
  graph.updateTraitsIfNeeded()
  return (graph, nodes)
}

/// Flips the root's user interface style and runs the update pass.
private func toggleStyle(_ graph: TraitGraph) {
  let style = graph.root.traitCollection.userInterfaceStyle
  graph.root.traitOverrides.userInterfaceStyle = style == .dark ? .light : .dark
  graph.updateTraitsIfNeeded()
}

@Suite(
  "Steady-state allocations",
  .enabled(if: Allocations.isCounting, "allocations are counted on glibc, without sanitizers"),
  .enabled(if: !TraitGraph._internalChecksEnabled, "the internal checks allocate on every pass"),
  .serialized
)
struct ZeroAllocationTests {
  private static let warmUps = 10
  private static let runs = 1_000

  /// The allocations that `runs` calls of `body` make on this thread, and how many times the
  /// calls were made.
  ///
  /// A trait type registered meanwhile — by a test running in parallel — makes the collections
  /// made after it larger, which is not the steady state: then the runs start over, up to five
  /// times.
  private static func steadyAllocations(_ body: () -> Void) -> (allocations: UInt64, rounds: Int) {
    steadyPathAllocations {
      body()
      return 0
    }
  }

  /// `steadyAllocations(_:)` for a body that also does work outside the path under test: it
  /// returns the allocations that work made, which are not counted.
  private static func steadyPathAllocations(
    _ body: () -> UInt64
  ) -> (allocations: UInt64, rounds: Int) {
    var allocations: UInt64 = 0
    for round in 1...5 {
      let registry = _TraitRegistry.publishedTable()
      var excluded: UInt64 = 0
      allocations =
        Allocations.countingOnThisThread {
          for _ in 0..<runs { excluded &+= body() }
        } &- excluded
      if allocations == 0 || _TraitRegistry.publishedTable() == registry {
        return (allocations, round)
      }
    }
    return (allocations, 5)
  }

  /// Lays `views` out `warmUps` times, then expects many more layouts, which re-track the same
  /// reads, to allocate nothing.
  private static func expectRetrackingAllocatesNothing(
    _ views: [ZALayoutView],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for _ in 0..<warmUps {
      for index in views.indices { views[index].layout() }
    }

    let (allocations, rounds) = steadyAllocations {
      for index in views.indices { views[index].layout() }
    }

    #expect(allocations == 0, sourceLocation: sourceLocation)
    #expect(
      views.allSatisfy { $0.layouts == warmUps + rounds * runs },
      sourceLocation: sourceLocation
    )
  }

  @Test("the counter sees this thread's allocations, so that a zero below means none")
  func counterCountsThisThread() {
    var kept: [[Int]] = []
    let allocations = Allocations.countingOnThisThread {
      for size in 1...10 { kept.append(Array(repeating: size, count: size * 100)) }
    }
    #expect(allocations >= 10)
    #expect(kept.count == 10)
  }

  @Test("re-tracking the same reads allocates nothing (R11)")
  func retrackingSameReads() {
    let (graph, views) = twoLevelTree(3) { ZALayoutView() }
    Self.expectRetrackingAllocatesNothing(views)
    // The runs recorded the reads: a change of one invalidates every view.
    toggleStyle(graph)
    #expect(views.allSatisfy { $0.invalidations == 1 })
  }

  @Test("re-tracking two slots of one node in turn allocates nothing (R11)")
  func retrackingTwoSlotsInTurn() {
    let (graph, views) = twoLevelTree(3) { ZALayoutView() }
    func layOutAndDisplay() {
      for index in views.indices {
        views[index].layout()
        views[index].display()
      }
    }
    for _ in 0..<Self.warmUps { layOutAndDisplay() }

    let (allocations, _) = Self.steadyAllocations(layOutAndDisplay)

    #expect(allocations == 0)
    // Both slots recorded the style: its change invalidates each once.
    toggleStyle(graph)
    #expect(views.allSatisfy { $0.invalidations == 2 })
  }

  @Test("re-tracking the same reads of a trait beyond the first 64 allocates nothing (R11)")
  func retrackingSameReadsBeyondFirst64() {
    registerTraitBeyondFirst64()
    let (graph, views) = twoLevelTree(3) { ZALayoutView(readsTraitBeyondFirst64: true) }
    graph.root.traitOverrides[ZABeyondTrait.self] = 3
    graph.updateTraitsIfNeeded()
    Self.expectRetrackingAllocatesNothing(views)
    // The runs recorded the read beyond the first 64: its change invalidates every view.
    graph.root.traitOverrides[ZABeyondTrait.self] = 4
    graph.updateTraitsIfNeeded()
    #expect(views.allSatisfy { $0.invalidations == 1 })
  }

  @Test(
    "toggling an override of a trait beyond the first 64 allocates nothing, read, observed or tracked",
    arguments: [64, 128]
  )
  func togglingTraitBeyond(first bound: Int) {
    // The root and the leaf override that trait alone, so that their overrides' index sets hold
    // nothing in their first word: a refresh asks whether the words beyond it are empty, and so
    // does a delivery to a legacy node that finds that trait interesting. An unspecialized
    // generic algorithm there allocated once per word beyond the first: the further the trait's
    // index, the more.
    let trait: any ZAIntTrait.Type
    if bound == 64 {
      registerTraitBeyondFirst64()
      trait = ZABeyondTrait.self
    } else {
      registerTraitBeyondFirst128()
      trait = ZAFarTrait.self
    }
    #expect(_TraitRegistry.index(of: trait) >= bound)
    let graph = TraitGraph()
    let observer = ZAIntTraitObserver(trait)
    let leaf = TraitNode()
    let legacyCalls = ObserverCounts()
    let legacy = LegacyBenchNode(slot: legacyCalls.slot(0), interestingTraits: [trait])
    graph.root.addTraitChild(observer)
    observer.addTraitChild(leaf)
    graph.root.addTraitChild(legacy)
    observer.layout()

    // Writes, each followed by a read that refreshes the node's collection, without a pass.
    let write = {
      trait.flip(at: graph.root)
      trait.flip(at: leaf)
      observer.frame &+= trait.value(in: leaf)
    }
    for _ in 0..<Self.warmUps { write() }

    let (writeAllocations, _) = Self.steadyAllocations(write)

    #expect(writeAllocations == 0, "writes and reads")

    // Passes, each delivering the change to a registration and to a legacy node, and
    // invalidating a tracked read, which runs again.
    let change = {
      trait.flip(in: graph)
      observer.layoutIfNeeded()
    }
    for _ in 0..<Self.warmUps { change() }
    let (callsBefore, invalidationsBefore) = (observer.calls, observer.invalidations)
    _ = legacyCalls.take()

    let (changeAllocations, rounds) = Self.steadyAllocations(change)

    #expect(changeAllocations == 0, "passes and re-tracking")
    #expect(observer.calls - callsBefore == rounds * Self.runs)
    #expect(observer.invalidations - invalidationsBefore == rounds * Self.runs)
    #expect(legacyCalls.take() == rounds * Self.runs)
  }

  @Test("steady-state delivery allocates nothing")
  func steadyStateDelivery() {
    let (graph, nodes) = twoLevelTree(3) { ZAObservingNode() }
    for _ in 0..<Self.warmUps { toggleStyle(graph) }

    let (allocations, rounds) = Self.steadyAllocations { toggleStyle(graph) }

    #expect(allocations == 0)
    #expect(nodes.allSatisfy { $0.calls == Self.warmUps + rounds * Self.runs })
  }

  @Test("delivery allocates nothing when registrations last heard of changes in different passes")
  func steadyStateDeliveryWithInterleavedBaselines() {
    // Each pass changes one of four traits. A node's registration holds the collection of the
    // pass that last changed one of its two traits, so the nodes a pass calls let go of
    // collections of two ages, alternately in tree order, and the pass must still find each
    // old collection unique to recycle it.
    var kind = 0
    let (graph, nodes) = twoLevelTree(4) { () -> ZATwoTraitNode in
      kind += 1
      return ZATwoTraitNode(kind: kind)
    }
    var pass = 0
    let step = {
      toggleTrait(pass, of: graph)
      pass += 1
    }
    for _ in 0..<Self.warmUps { step() }
    let callsBefore = nodes.reduce(0) { $0 + $1.calls }

    let (allocations, rounds) = Self.steadyAllocations(step)

    #expect(allocations == 0)
    // Each pass calls the nodes that observe one of the four traits: half of the 20.
    #expect(nodes.reduce(0) { $0 + $1.calls } - callsBefore == rounds * Self.runs * 10)
  }

  @Test("delivery allocates nothing when a pass lets go of many collections of different ages")
  func steadyStateDeliveryWithManyBaselineAges() {
    // Each pass flips one of 32 traits, in turn, and each node observes 4 of them at random, so
    // a registration holds the collection of any of the last 32 passes, and the nodes a pass
    // calls let go of collections of many ages, interleaved. A pass must list each once,
    // whatever their addresses, to find the one that nobody holds any more and keep it for the
    // next pass: a table of one address per hash let colliding ones in twice, and a pass in a
    // few allocated (traitkit-bench S2 with 4 traits per node).
    let seed: UInt64 = 0x2A11_0C8
    var generator = SeededGenerator(seed: seed)
    let traits = agedTraits(32)
    let (graph, nodes) = twoLevelTree(10) { ZAFourTraitNode(traits, using: &generator) }
    var pass = 0
    let step = {
      traits[pass % traits.count].flip(in: graph)
      pass += 1
    }
    for _ in 0..<Self.warmUps * traits.count { step() }
    let callsBefore = nodes.reduce(0) { $0 + $1.calls }
    let firstPass = pass

    let (allocations, _) = Self.steadyAllocations(step)

    #expect(allocations == 0, "seed \(seed)")
    // Each pass calls exactly the nodes that observe the trait it flipped.
    let expectedCalls = (firstPass..<pass).reduce(0) { calls, pass in
      calls + nodes.count { $0.observed.contains(pass % traits.count) }
    }
    #expect(nodes.reduce(0) { $0 + $1.calls } - callsBefore == expectedCalls, "seed \(seed)")
  }

  @Test("spares made before more trait types registered do not stop recycling for good")
  func sparesTooSmallAfterRegistrationsGo() {
    let (graph, nodes) = twoLevelTree(3) { ZAObservingNode() }
    // Each node overrides a trait with a value its parent does not have, so that each has a
    // collection of its own, and a change at the root lets go of all 12 old ones in one pass,
    // which fill the graph's spares.
    for node in nodes {
      node.traitOverrides.horizontalSizeClass =
        node.traitParent === graph.root ? .regular : .compact
    }
    // NB: the first of those writes found its node current and applied itself at once, which
    // took a spare; counted with the next pass's, that would raise the spares' limit above what
    // a pass lets go of, and they would never fill.
    graph._adaptSpareLimit()
    for _ in 0..<3 { toggleStyle(graph) }
    #expect(graph._spareStorages.count == graph._spareLimit)
    // The root's collection now holds a trait registered after the spares were made, so none
    // of them has room for it; and the nodes share the root's collection again.
    registerLateTrait()
    graph.root.traitOverrides[ZALateTrait.self] = 1
    for node in nodes { node.traitOverrides.remove(TraitHorizontalSizeClass.self) }
    for _ in 0..<Self.warmUps { toggleStyle(graph) }
    let callsBefore = nodes.reduce(0) { $0 + $1.calls }

    let (allocations, rounds) = Self.steadyAllocations { toggleStyle(graph) }

    #expect(allocations == 0)
    #expect(nodes.reduce(0) { $0 + $1.calls } - callsBefore == rounds * Self.runs * nodes.count)
  }

  @Test(
    "a repeated change that nobody observes allocates nothing, under overriding nodes or not",
    arguments: [false, true]
  )
  func unobservedChange(nodesOverride: Bool) {
    // Nothing holds the root's previous collection but the root, or the nodes made from it: a
    // refresh lets go of it, and the next change must fill it again rather than allocate one.
    // A node that overrides a trait holds a collection of its own and the parent's it was made
    // from, so a change at the root lets go of both kinds.
    let (graph, nodes) = twoLevelTree(3) { TraitNode() }
    if nodesOverride {
      for node in nodes {
        node.traitOverrides.horizontalSizeClass =
          node.traitParent === graph.root ? .regular : .compact
      }
    }
    let leaf = nodes[nodes.count - 1]
    let step = {
      toggleStyle(graph)
      // A read below the root resolves through the new collections.
      _ = leaf.traitCollection.userInterfaceStyle
    }
    for _ in 0..<Self.warmUps { step() }

    let (allocations, _) = Self.steadyAllocations(step)

    #expect(allocations == 0)
    let rootStyle = graph.root.traitCollection.userInterfaceStyle
    #expect(nodes.allSatisfy { $0.traitCollection.userInterfaceStyle == rootStyle })
  }

  @Test("cancelling a registration that alone holds an old collection keeps it for reuse")
  func cancelLetsGoOfOldBaseline() {
    // A read after a change and before the pass gives the leaf its new collection; its
    // registration, which the pass has not reached, then alone holds the old one. Cancelling it
    // there, outside any pass, must keep that collection as a spare for the next change rather
    // than free it.
    let (graph, nodes) = twoLevelTree(3) { TraitNode() }
    let leaf = nodes[nodes.count - 1]
    let traits: [TraitKit.Trait] = [TraitHorizontalSizeClass.self]
    // Returns what registering allocated (unspecialized, wrapping the handler does): not the
    // path under test.
    let step = { () -> UInt64 in
      var registration: TraitChangeRegistration?
      let registering = Allocations.countingOnThisThread {
        registration = leaf.registerForTraitChanges(traits) {
          (_: TraitNode, _: TraitCollection) in
          Issue.record("called for a trait that no change set")
        }
      }
      let style = graph.root.traitCollection.userInterfaceStyle
      graph.root.traitOverrides.userInterfaceStyle = style == .dark ? .light : .dark
      _ = leaf.traitCollection.userInterfaceStyle
      leaf.unregisterForTraitChanges(registration)
      graph.updateTraitsIfNeeded()
      return registering
    }
    for _ in 0..<Self.warmUps { _ = step() }

    let (allocations, _) = Self.steadyPathAllocations(step)

    #expect(allocations == 0)
    #expect(graph.statistics.liveRegistrations == 0)
  }

  @Test("a pass that gives more nodes new collections than eight spares allocates nothing")
  func passNeedingManySpares() {
    // Each of twelve nodes overrides a trait and observes another that a change at the root
    // sets: each needs a collection of its own made from the root's new one, and lets go of its
    // old one when its registration moves on. Device rotation in `traitkit-bench compare` is
    // such a change.
    let graph = TraitGraph()
    var nodes: [TraitNode] = []
    for index in 0..<12 {
      let node = TraitNode()
      graph.root.addTraitChild(node)
      node.traitOverrides.horizontalSizeClass = index % 2 == 0 ? .compact : .regular
      node.registerForTraitChanges([TraitVerticalSizeClass.self]) {
        (_: TraitNode, _: TraitCollection) in
      }
      nodes.append(node)
    }
    let step = {
      let size = graph.root.traitCollection.verticalSizeClass
      graph.root.traitOverrides.verticalSizeClass = size == .compact ? .regular : .compact
      graph.updateTraitsIfNeeded()
    }
    for _ in 0..<Self.warmUps { step() }

    let (allocations, _) = Self.steadyAllocations(step)

    #expect(allocations == 0)
    #expect(graph.statistics.lastPass.callbacksDelivered == 12)
    let rootSize = graph.root.traitCollection.verticalSizeClass
    #expect(nodes.allSatisfy { $0.traitCollection.verticalSizeClass == rootSize })
  }

  @Test("the legacy adapter's steady-state delivery allocates nothing")
  func legacySteadyStateDelivery() {
    let shape = TreeShape.complete(arity: 3, levels: 2)
    let counts = ObserverCounts(expected: Array(repeating: 0, count: shape.count))
    let tree = LegacyTraitKitTree(shape, slot: counts.slot) { _ in [TraitUserInterfaceStyle.self] }
    let top = tree.nodes[0]
    let toggle = {
      let style = top.traitCollection.userInterfaceStyle
      top.traitOverrides.userInterfaceStyle = style == .dark ? .light : .dark
      tree.graph.updateTraitsIfNeeded()
    }
    for _ in 0..<Self.warmUps { toggle() }
    _ = counts.take()

    let (allocations, rounds) = Self.steadyAllocations(toggle)

    #expect(allocations == 0)
    #expect(counts.take() == rounds * Self.runs * tree.nodes.count)
  }

  @Test("invalidating tracked closures in a pass and re-tracking them allocates nothing")
  func invalidationAndRetracking() {
    let (graph, views) = twoLevelTree(3) { ZALayoutView() }
    let relayout = {
      toggleStyle(graph)
      for index in views.indices { views[index].layoutIfNeeded() }
    }
    for index in views.indices { views[index].layout() }
    for _ in 0..<Self.warmUps { relayout() }

    let (allocations, rounds) = Self.steadyAllocations(relayout)

    #expect(allocations == 0)
    #expect(views.allSatisfy { $0.invalidations == Self.warmUps + rounds * Self.runs })
  }
}
