import Testing
import TraitKit

// A handler closure is kept in its registration's entry, except when its traits lie beyond what
// the entry's 64-bit summary stands for exactly; then it is kept in a box with its trait list.
// These tests hold both forms to the same behaviour, and check when the entry lets the closure
// go.

/// A distinct trait type per nesting level, so that a test can define as many traits as it needs.
private struct STNestedTrait<Inner>: TraitDefinition {
  static var defaultValue: Int { 0 }
}

private enum STBase {}

/// `count` trait types that no other test uses, in order of definition.
private func freshTraits(_ count: Int) -> [any TraitDefinition.Type] {
  func collect<Inner>(
    _: Inner.Type,
    _ remaining: Int,
    into traits: inout [any TraitDefinition.Type]
  ) {
    guard remaining > 0 else { return }
    traits.append(STNestedTrait<Inner>.self)
    collect(STNestedTrait<Inner>.self, remaining - 1, into: &traits)
  }
  var traits: [any TraitDefinition.Type] = []
  collect(STBase.self, count, into: &traits)
  return traits
}

/// Writes `value` for `trait` into `overrides`.
private func write(
  _ trait: any TraitDefinition.Type,
  _ value: Int,
  into overrides: inout TraitOverrides
) {
  func open<T: TraitDefinition>(_: T.Type) {
    overrides[T.self] = value as! T.Value
  }
  open(trait)
}

@Suite("Handler storage")
struct HandlerStorageTests {
  @Test("a handler that unregisters itself keeps what it captures until the pass ends")
  func selfUnregisteringHandlerLivesUntilThePassEnds() {
    let (graph, node) = makeGraphWithChild()
    weak var weakCaptured: GTCaptured?
    var capturedDuringCall = false
    var token: TraitChangeRegistration?
    do {
      let captured = GTCaptured()
      weakCaptured = captured
      token = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        node.unregisterForTraitChanges(token)
        capturedDuringCall = weakCaptured != nil
        _ = captured
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(capturedDuringCall)
    #expect(weakCaptured == nil)
    #expect(graph.statistics.liveRegistrations == 0)
  }

  @Test("a handler unregistered by an earlier handler of the same pass is released after it")
  func handlerUnregisteredByAnotherIsReleasedAfterThePass() {
    let (graph, node) = makeGraphWithChild()
    weak var weakCaptured: GTCaptured?
    var laterCalls = 0
    var later: TraitChangeRegistration?
    var capturedAfterUnregistering = false
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      node.unregisterForTraitChanges(later)
      capturedAfterUnregistering = weakCaptured != nil
    }
    do {
      let captured = GTCaptured()
      weakCaptured = captured
      later = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        laterCalls += 1
        _ = captured
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(laterCalls == 0)
    #expect(capturedAfterUnregistering)
    #expect(weakCaptured == nil)
    #expect(graph.statistics.liveRegistrations == 1)
  }

  @Test("a handler for a trait beyond the filter's exact range hears of that trait only")
  func handlerBeyondTheExactRange() throws {
    // 130 new traits: whatever indices earlier tests took, the last ones are beyond 126.
    let traits = freshTraits(130)
    let last = try #require(traits.last)
    let neighbour = traits[traits.count - 2]
    // Registering for all of them gives each its index, in order.
    TraitNode().registerForTraitChanges(traits) { (_: TraitNode, _: TraitCollection) in }
    let (graph, node) = makeGraphWithChild()
    weak var weakCaptured: GTCaptured?
    var calls = 0
    var token: TraitChangeRegistration?
    do {
      let captured = GTCaptured()
      weakCaptured = captured
      token = node.registerForTraitChanges([last]) { (_: GTNode, _: TraitCollection) in
        _ = captured
        calls += 1
      }
    }

    write(neighbour, 5, into: &graph.root.traitOverrides)
    graph.updateTraitsIfNeeded()
    #expect(calls == 0, "a trait sharing the overflow bit must not call it")

    write(last, 7, into: &graph.root.traitOverrides)
    graph.updateTraitsIfNeeded()
    #expect(calls == 1)
    #expect(graph.statistics.lastPass.callbacksDelivered == 1)

    node.unregisterForTraitChanges(token)
    #expect(weakCaptured == nil)
    write(last, 8, into: &graph.root.traitOverrides)
    graph.updateTraitsIfNeeded()
    #expect(calls == 1)
  }

  @Test("handlers of 130 traits each hear of their own trait only, exact summaries or not")
  func handlersAcrossEverySummaryRange() {
    // An entry's summary is exact up to index 62 and the node's up to 126: 130 consecutive
    // indices reach past at least one of these limits, whatever indices earlier tests took.
    let traits = freshTraits(130)
    let (graph, node) = makeGraphWithChild()
    var calls = [Int](repeating: 0, count: traits.count)
    for (index, trait) in traits.enumerated() {
      node.registerForTraitChanges([trait]) { (_: GTNode, _: TraitCollection) in
        calls[index] += 1
      }
    }

    for (index, trait) in traits.enumerated() {
      write(trait, 1, into: &graph.root.traitOverrides)
      graph.updateTraitsIfNeeded()
      var expected = [Int](repeating: 0, count: traits.count)
      for called in 0...index { expected[called] = 1 }
      #expect(calls == expected, "after writing trait \(index) of the 130")
    }
  }
}

/// Cancels a registration when it goes, as a "cancel on deinit" holder does.
private final class STCanceller {
  let node: TraitNode
  var token: TraitChangeRegistration?

  init(_ node: TraitNode) { self.node = node }

  deinit { node.unregisterForTraitChanges(token) }
}

@Suite("Handler storage: releases that run code")
struct HandlerReleaseReentrancyTests {
  @Test(
    "a handler that moves its node's ancestor away, then detaches its node, runs to its end",
    arguments: [false, true]
  )
  func handlerMovesAncestorThenDetachesItsNode(intoAnotherGraph: Bool) {
    let (graph, ancestor) = makeGraphWithChild()
    let otherGraph = TraitGraph()
    let detachedRoot = GTNode("detached")
    weak var weakCaptured: GTCaptured?
    weak var weakNode: GTNode?
    var capturedAtEnd = false
    do {
      let node = GTNode("node")
      weakNode = node
      ancestor.addTraitChild(node)
      let captured = GTCaptured()
      weakCaptured = captured
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        (intoAnotherGraph ? otherGraph.root : detachedRoot).addTraitChild(ancestor)
        node.removeFromTraitParent()
        capturedAtEnd = weakCaptured != nil
        _ = captured
      }
    }
    graph.updateTraitsIfNeeded()

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(capturedAtEnd)
    #expect(weakNode == nil)
    #expect(weakCaptured == nil)
  }

  @Test("a released handler whose capture unregisters another registration is released once")
  func releaseThatUnregistersAgain() {
    let (graph, node) = makeGraphWithChild()
    let fillers = (0..<6).map { _ in
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
      }
    }
    weak var weakInner: GTCaptured?
    weak var weakCanceller: STCanceller?
    var outer: TraitChangeRegistration?
    do {
      let canceller = STCanceller(node)
      weakCanceller = canceller
      let inner = GTCaptured()
      weakInner = inner
      canceller.token = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in _ = inner
      }
      outer = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in _ = canceller
      }
    }
    // Three tombstones of eight entries: the inner unregistration, run by the outer release,
    // makes five and compacts the table.
    for token in fillers.prefix(3) { node.unregisterForTraitChanges(token) }

    node.unregisterForTraitChanges(outer)

    #expect(weakCanceller == nil)
    #expect(weakInner == nil)
    #expect(graph.statistics.liveRegistrations == 3)
    var calls = 0
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in calls += 1
    }
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(calls == 1)
    #expect(graph.statistics.lastPass.callbacksDelivered == 4)
  }
}
