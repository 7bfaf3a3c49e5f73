import Testing
import TraitKit

// A handler closure is kept in its registration's entry, except when its traits lie beyond what
// a 128-bit filter summarizes exactly; then it is kept in a box with its trait list. These tests
// hold both forms to the same behaviour, and check when the entry lets the closure go.

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
}
