import Testing
import TraitKit

// A node's table numbers its registrations in 32 bits, and a token carries the number and the
// table's serial. These tests hold the numbering to the plain behaviour: a token cancels exactly
// its own registration, on its own node, however the table was numbered since it was made.

@Suite("Registration numbers and tokens")
struct NumberingTests {
  @Test("a token cancels nothing on another node whose registration has the same number")
  func otherNodesTokenCancelsNothing() {
    let graph = TraitGraph()
    let first = GTNode("first")
    let second = GTNode("second")
    graph.root.gtAdd(first, second)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    // Both registrations are the first of a new table: the same number, at the same position.
    let firstToken = gtRegisterLogging("first", on: first, into: log)
    gtRegisterLogging("second", on: second, into: log)

    second.unregisterForTraitChanges(firstToken)
    gtChangeSizeClass(graph, to: .compact)

    #expect(log.entries == ["first", "second"])
    #expect(graph.statistics.liveRegistrations == 2)
  }

  @Test("tokens made before a node's registration numbers ran out still cancel their own")
  func tokensOutliveRenumbering() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    node._setNextRegistrationNumber(.max - 3)
    // r0…r2 take the last numbers; r3 finds none left, and the table numbers its entries again.
    let tokens = (0..<6).map { gtRegisterLogging("r\($0)", on: node, into: log) }

    node.unregisterForTraitChanges(tokens[1])
    node.unregisterForTraitChanges(tokens[4])
    gtChangeSizeClass(graph, to: .compact)

    #expect(log.entries == ["r0", "r2", "r3", "r5"])
    #expect(graph.statistics.liveRegistrations == 4)
  }

  @Test("a token of a retired numbering cancels nothing once its registration is gone")
  func staleTokenOfRetiredNumberingCancelsNothing() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    node._setNextRegistrationNumber(.max - 40)
    let old = (0..<40).map { gtRegisterLogging("r\($0)", on: node, into: log) }
    // The 21st cancellation compacts the table: r21…r39 move to the front, so that the stale
    // tokens' positions hold other registrations. Then the numbers run out, and the stale
    // tokens are of a retired numbering.
    for token in old.prefix(21) { node.unregisterForTraitChanges(token) }
    let late = (40..<70).map { gtRegisterLogging("r\($0)", on: node, into: log) }

    for token in old.prefix(21) { node.unregisterForTraitChanges(token) }
    node.unregisterForTraitChanges(old[30])
    node.unregisterForTraitChanges(late[5])
    gtChangeSizeClass(graph, to: .compact)

    let expected = (21..<70).filter { $0 != 30 && $0 != 45 }.map { "r\($0)" }
    #expect(log.entries == expected)
    #expect(graph.statistics.liveRegistrations == expected.count)
  }

  @Test("tokens survive the numbers running out twice")
  func tokensSurviveTwoRenumberings() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    node._setNextRegistrationNumber(.max - 2)
    let first = (0..<4).map { gtRegisterLogging("a\($0)", on: node, into: log) }
    node._setNextRegistrationNumber(.max - 1)
    let second = (0..<3).map { gtRegisterLogging("b\($0)", on: node, into: log) }
    let third = (0..<2).map { gtRegisterLogging("c\($0)", on: node, into: log) }

    for token in [first[0], first[3], second[1], third[0]] {
      node.unregisterForTraitChanges(token)
    }
    // Each cancelled token again: it now stands for nothing.
    for token in [first[0], first[3], second[1], third[0]] {
      node.unregisterForTraitChanges(token)
    }
    gtChangeSizeClass(graph, to: .compact)

    #expect(log.entries == ["a1", "a2", "b0", "b2", "c1"])
    #expect(graph.statistics.liveRegistrations == 5)
  }

  @Test("the numbers running out during a delivery keep its order and its tokens")
  func renumberingDuringDelivery() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    var late: TraitChangeRegistration?
    // r0…r2 take the last numbers, so that "late", registered by r1's handler, finds none left.
    node._setNextRegistrationNumber(.max - 3)
    let early = gtRegisterLogging("r0", on: node, into: log)
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("r1")
      if late == nil { late = gtRegisterLogging("late", on: node, into: log) }
    }
    gtRegisterLogging("r2", on: node, into: log)

    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries == ["r0", "r1", "r2"])

    node.unregisterForTraitChanges(early)
    log.removeAll()
    gtChangeSizeClass(graph, to: .regular)
    #expect(log.entries == ["r1", "r2", "late"])
    node.unregisterForTraitChanges(late)
    log.removeAll()
    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries == ["r1", "r2"])
  }

  @Test("numbering a node's registrations backwards traps and names the invariant")
  func numberingBackwardsTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      node._setNextRegistrationNumber(10)
      node._setNextRegistrationNumber(9)
    }
    #expect(
      gtStandardError(result).contains(
        "Invariant: a table numbers its registrations in increasing order"
      )
    )
  }
}
