import Testing
import TraitKit

// A node's registrations live in one allocation, which moves when it grows. These tests grow a
// table while a pass walks it, from a handler and from a deinitializer, and check that the pass
// goes on with every registration called once, in order, and the new ones left for later passes.

/// An object that registers `count` handlers on a node when it goes away.
private final class RegistersWhenReleased {
  let node: GTNode
  let log: GTLog
  let count: Int

  init(node: GTNode, log: GTLog, count: Int) {
    self.node = node
    self.log = log
    self.count = count
  }

  deinit {
    for index in 0..<count { gtRegisterLogging("late\(index)", on: node, into: log) }
  }
}

@Suite("A registration table that grows")
struct TableGrowthTests {
  @Test("a handler that registers many more on its node moves the table, and the pass goes on")
  func handlerGrowsItsTable() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    gtRegisterLogging("a", on: node, into: log)
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("grower")
      // Twenty more: the table of four grows twice while the pass walks it.
      for index in 0..<20 { gtRegisterLogging("new\(index)", on: node, into: log) }
    }
    gtRegisterLogging("b", on: node, into: log)
    gtRegisterLogging("c", on: node, into: log)

    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries == ["a", "grower", "b", "c"])
    #expect(graph.statistics.liveRegistrations == 24)

    log.removeAll()
    gtChangeSizeClass(graph, to: .regular)
    // The grower registers twenty more again, which this pass does not call either.
    #expect(log.entries == ["a", "grower", "b", "c"] + (0..<20).map { "new\($0)" })
    #expect(graph.statistics.liveRegistrations == 44)
  }

  @Test("a legacy-style wildcard after a growing handler is still called once")
  func wildcardAfterGrowth() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    let wildcard = node._registerForAllTraitChanges(interestingTraits: []) { _, _ in
      log.append("wildcard")
    }
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("grower")
      for index in 0..<10 { gtRegisterLogging("new\(index)", on: node, into: log) }
    }

    gtChangeSizeClass(graph, to: .compact)

    #expect(log.entries == ["grower", "wildcard"])
    node.unregisterForTraitChanges(wildcard)
    #expect(graph.statistics.liveRegistrations == 11)
  }

  @Test("a deinitializer that registers on the node while a pass cancels moves the table safely")
  func deinitializerGrowsTheTableAfterADelivery() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    var doomed: TraitChangeRegistration?
    do {
      let releaser = RegistersWhenReleased(node: node, log: log, count: 12)
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        log.append("canceller")
        node.unregisterForTraitChanges(doomed)
      }
      doomed = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        log.append("doomed")
        _ = releaser
      }
    }
    gtRegisterLogging("after", on: node, into: log)

    // The cancelled handler's capture goes when the delivery ends; its deinitializer then
    // registers twelve handlers, which moves the table the pass has just finished with.
    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries == ["canceller", "after"])
    #expect(graph.statistics.liveRegistrations == 14)

    log.removeAll()
    gtChangeSizeClass(graph, to: .regular)
    #expect(log.entries == ["canceller", "after"] + (0..<12).map { "late\($0)" })
  }

  @Test("a node dropped with a grown table releases every handler once")
  func droppedNodeReleasesAGrownTable() {
    weak var weakCaptured: GTCaptured?
    let graph = TraitGraph()
    do {
      let node = GTNode("node")
      graph.root.addTraitChild(node)
      let captured = GTCaptured()
      weakCaptured = captured
      for _ in 0..<40 {
        node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
          (_: GTNode, _: TraitCollection) in
          _ = captured
        }
      }
      #expect(graph.statistics.liveRegistrations == 40)
      node.removeFromTraitParent()
    }

    #expect(weakCaptured == nil)
    #expect(graph.statistics.liveRegistrations == 0)
  }

  // MARK: - The limit

  @Test("a full table grows by two entries below 16, by half from 16, up to 2^26 registrations")
  func tableGrowsByTwoThenByHalfUpToTheLimit() {
    #expect(TraitNode._grownRegistrationCapacity(from: 1) == 3)
    #expect(TraitNode._grownRegistrationCapacity(from: 4) == 6)
    #expect(TraitNode._grownRegistrationCapacity(from: 9) == 11)
    #expect(TraitNode._grownRegistrationCapacity(from: 14) == 16)
    #expect(TraitNode._grownRegistrationCapacity(from: 16) == 24)
    #expect(TraitNode._grownRegistrationCapacity(from: 17) == 25)
    #expect(TraitNode._grownRegistrationCapacity(from: 1 << 20) == 3 << 19)
    #expect(TraitNode._grownRegistrationCapacity(from: 1 << 25) == 3 << 24)
    #expect(TraitNode._grownRegistrationCapacity(from: 3 << 24) == 1 << 26)
  }

  @Test("a full table of 2^26 registrations cannot grow: it traps, naming the limit")
  func fullTableAtTheLimitTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      _ = TraitNode._grownRegistrationCapacity(from: 1 << 26)
    }
    #expect(gtStandardError(result).contains("A node holds at most 67108864 registrations"))
  }
}
