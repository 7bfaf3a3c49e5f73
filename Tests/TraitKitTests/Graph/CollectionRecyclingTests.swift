import Testing
import TraitKit

// A pass keeps the collections that registrations stop using as baselines, and reuses those that
// nobody else holds for the next change. These tests hold the reuse to the plain behaviour: a
// trait value goes as soon as no collection in use holds it, as it would without the reuse.

@Suite("Collection recycling")
struct CollectionRecyclingTests {
  @Test("a replaced value goes at the end of the pass that stops using it as a baseline")
  func replacedValueGoesWithItsLastBaseline() {
    let (graph, node) = makeGraphWithChild()
    var calls = 0
    node.registerForTraitChanges([GTDeinitPayloadTrait.self]) { (_: GTNode, _: TraitCollection) in
      calls += 1
    }
    weak var weakFirst: GTDeinitPayload?
    do {
      let first = GTDeinitPayload()
      weakFirst = first
      graph.root.traitOverrides[GTDeinitPayloadTrait.self] = first
    }
    graph.updateTraitsIfNeeded()
    #expect(weakFirst != nil, "the registration's baseline holds it")

    graph.root.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload()
    graph.updateTraitsIfNeeded()

    #expect(calls == 2)
    #expect(weakFirst == nil)
  }

  @Test("a value whose deinitializer runs a pass of the same graph goes after the pass ends")
  func deinitializerRunsAPass() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    node.registerForTraitChanges([GTDeinitPayloadTrait.self, GTThemeTrait.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("theme \(node.traitCollection[GTThemeTrait.self])")
    }
    graph.root.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload { [unowned graph] in
      log.append("first goes")
      graph.root.traitOverrides[GTThemeTrait.self] = 2
      graph.updateTraitsIfNeeded()
    }
    graph.updateTraitsIfNeeded()

    graph.root.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload()
    graph.root.traitOverrides[GTThemeTrait.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["theme 0", "theme 1", "first goes", "theme 2"])
    #expect(node.traitCollection[GTThemeTrait.self] == 2)
  }

  @Test("a value's deinitializer that asks for a pass with nothing to do keeps the pass's counters")
  func deinitializerNoOpPassKeepsCounters() {
    let (graph, node) = makeGraphWithChild()
    var calls = 0
    node.registerForTraitChanges([GTDeinitPayloadTrait.self]) { (_: GTNode, _: TraitCollection) in
      calls += 1
    }
    var deinitializerRan = false
    graph.root.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload { [unowned graph] in
      deinitializerRan = true
      graph.updateTraitsIfNeeded()
      node.updateTraitsIfNeeded()
    }
    graph.updateTraitsIfNeeded()

    // The pass that delivers the replacement lets go of the first payload as it ends.
    graph.root.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload()
    graph.updateTraitsIfNeeded()

    #expect(deinitializerRan)
    #expect(calls == 2)
    #expect(graph.statistics.lastPass.rounds == 1)
    #expect(graph.statistics.lastPass.callbacksDelivered == 1)
    // Afterwards, a call on the clean graph resets them.
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.rounds == 0)
    #expect(graph.statistics.lastPass.callbacksDelivered == 0)
  }

  @Test("a collection that two nodes let go of in one pass goes after the pass ends too")
  func collectionLetGoOfTwiceGoesAfterThePass() {
    let graph = TraitGraph()
    let first = GTNode("first")
    let middle = GTNode("middle")
    let last = GTNode("last")
    graph.root.gtAdd(first, middle, last)
    // The middle node has a collection of its own, between the two that share the root's.
    middle.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload()
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    for node in [first, middle, last] {
      node.registerForTraitChanges([GTDeinitPayloadTrait.self, GTThemeTrait.self]) {
        (node: GTNode, _: TraitCollection) in
        log.append("\(node.name) theme \(node.traitCollection[GTThemeTrait.self])")
      }
    }
    graph.root.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload { [unowned graph] in
      log.append("root's first goes")
      graph.root.traitOverrides[GTThemeTrait.self] = 2
      graph.updateTraitsIfNeeded()
    }
    graph.updateTraitsIfNeeded()
    log.removeAll()

    graph.root.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload()
    graph.root.traitOverrides[GTThemeTrait.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(
      log.entries == [
        "first theme 1", "middle theme 1", "last theme 1", "root's first goes",
        "first theme 2", "middle theme 2", "last theme 2",
      ]
    )
  }
}
