import Testing
import TraitKit

// A pass keeps the collections that registrations stop using as baselines, and reuses those that
// nobody else holds for the next change. These tests hold the reuse to the plain behaviour: a
// trait value goes as soon as no collection in use holds it, as it would without the reuse.

/// A value that runs `onDeinit` when it goes.
private final class CRPayload: Sendable {
  nonisolated(unsafe) var onDeinit: (() -> Void)?

  init(onDeinit: (() -> Void)? = nil) {
    self.onDeinit = onDeinit
  }

  deinit { onDeinit?() }
}

private struct CRPayloadTrait: TraitDefinition {
  static let defaultValue: CRPayload? = nil
}

@Suite("Collection recycling")
struct CollectionRecyclingTests {
  @Test("a replaced value goes at the end of the pass that stops using it as a baseline")
  func replacedValueGoesWithItsLastBaseline() {
    let (graph, node) = makeGraphWithChild()
    var calls = 0
    node.registerForTraitChanges([CRPayloadTrait.self]) { (_: GTNode, _: TraitCollection) in
      calls += 1
    }
    weak var weakFirst: CRPayload?
    do {
      let first = CRPayload()
      weakFirst = first
      graph.root.traitOverrides[CRPayloadTrait.self] = first
    }
    graph.updateTraitsIfNeeded()
    #expect(weakFirst != nil, "the registration's baseline holds it")

    graph.root.traitOverrides[CRPayloadTrait.self] = CRPayload()
    graph.updateTraitsIfNeeded()

    #expect(calls == 2)
    #expect(weakFirst == nil)
  }

  @Test("a value whose deinitializer runs a pass of the same graph goes after the pass ends")
  func deinitializerRunsAPass() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    node.registerForTraitChanges([CRPayloadTrait.self, GTThemeTrait.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("theme \(node.traitCollection[GTThemeTrait.self])")
    }
    graph.root.traitOverrides[CRPayloadTrait.self] = CRPayload { [unowned graph] in
      log.append("first goes")
      graph.root.traitOverrides[GTThemeTrait.self] = 2
      graph.updateTraitsIfNeeded()
    }
    graph.updateTraitsIfNeeded()

    graph.root.traitOverrides[CRPayloadTrait.self] = CRPayload()
    graph.root.traitOverrides[GTThemeTrait.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["theme 0", "theme 1", "first goes", "theme 2"])
    #expect(node.traitCollection[GTThemeTrait.self] == 2)
  }
}
