import Testing
import TraitKit

// A token remembers where its entry was in the node's table, and cancelling looks there first;
// a table whose registrations are all cancelled starts again from its first entry. These tests
// hold both shortcuts to the plain behaviour: a token cancels exactly its own registration, and
// the registrations that remain are called once each, in the order they were made.

@Suite("Cancelling by token")
struct CancellationTests {
  @Test("a token cancels its own registration after cancellations have moved the entries")
  func tokenFindsItsMovedEntry() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    var tokens: [String: TraitChangeRegistration] = [:]
    for index in 0..<40 {
      tokens["r\(index)"] = gtRegisterLogging("r\(index)", on: node, into: log)
    }
    // Twenty-one tombstones of forty: the table compacts, and r21…r39 move to the front.
    for index in 0..<21 { node.unregisterForTraitChanges(tokens["r\(index)"]) }
    // Refill the table past r30's first position, so that its token points at another entry.
    for index in 40..<71 {
      tokens["r\(index)"] = gtRegisterLogging("r\(index)", on: node, into: log)
    }

    node.unregisterForTraitChanges(tokens["r30"])
    node.unregisterForTraitChanges(tokens["r30"])
    gtChangeSizeClass(graph, to: .compact)

    let expected = (21..<71).filter { $0 != 30 }.map { "r\($0)" }
    #expect(log.entries == expected)
    #expect(graph.statistics.liveRegistrations == expected.count)
  }

  @Test("a token made before a compaction cancels nothing once its registration is gone")
  func staleTokenCancelsNothing() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    let tokens = (0..<40).map { gtRegisterLogging("r\($0)", on: node, into: log) }
    for token in tokens.prefix(21) { node.unregisterForTraitChanges(token) }
    for index in 40..<61 { gtRegisterLogging("r\(index)", on: node, into: log) }

    // Each of these tokens now points at a live entry of another registration.
    for token in tokens.prefix(21) { node.unregisterForTraitChanges(token) }
    gtChangeSizeClass(graph, to: .compact)

    let expected = (21..<61).map { "r\($0)" }
    #expect(log.entries == expected)
    #expect(graph.statistics.liveRegistrations == expected.count)
  }

  @Test("a full table reuses the room of its tombstones, and tokens still find their entries")
  func fullTableCompactsBeforeGrowing() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    // Eight entries fill a table of eight; cancelling three leaves tombstones that the next
    // registration compacts away instead of growing the table.
    let tokens = (0..<8).map { gtRegisterLogging("r\($0)", on: node, into: log) }
    for index in [1, 3, 5] { node.unregisterForTraitChanges(tokens[index]) }
    let late = (8..<12).map { gtRegisterLogging("r\($0)", on: node, into: log) }

    node.unregisterForTraitChanges(tokens[6])
    node.unregisterForTraitChanges(late[1])
    node.unregisterForTraitChanges(tokens[3])
    gtChangeSizeClass(graph, to: .compact)

    #expect(log.entries == ["r0", "r2", "r4", "r7", "r8", "r10", "r11"])
    #expect(graph.statistics.liveRegistrations == 7)
  }

  @Test("a table emptied by cancelling takes new registrations and calls them in order")
  func emptiedTableStartsAgain() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    let first = (0..<3).map { gtRegisterLogging("old\($0)", on: node, into: log) }
    for token in first.reversed() { node.unregisterForTraitChanges(token) }
    #expect(graph.statistics.liveRegistrations == 0)

    let second = (0..<3).map { gtRegisterLogging("new\($0)", on: node, into: log) }
    // The old tokens point at the positions the new registrations now hold.
    for token in first { node.unregisterForTraitChanges(token) }
    node.unregisterForTraitChanges(second[1])
    gtChangeSizeClass(graph, to: .compact)

    #expect(log.entries == ["new0", "new2"])
    #expect(graph.statistics.liveRegistrations == 2)
  }

  @Test("registrations made after a pass emptied the table hear only later changes")
  func tableEmptiedDuringAPassStartsAgainAfterIt() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    var tokens: [TraitChangeRegistration] = []
    // The first handler cancels both registrations during the pass, so the table is emptied
    // only when the delivery ends.
    tokens.append(
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        log.append("canceller")
        for token in tokens { node.unregisterForTraitChanges(token) }
      }
    )
    tokens.append(gtRegisterLogging("cancelled", on: node, into: log))
    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries == ["canceller"])
    #expect(graph.statistics.liveRegistrations == 0)

    gtRegisterLogging("after", on: node, into: log)
    gtChangeSizeClass(graph, to: .compact)
    gtChangeSizeClass(graph, to: .regular)

    #expect(log.entries == ["canceller", "after"])
    #expect(graph.statistics.liveRegistrations == 1)
  }

  @Test("a registration made while registering, by a value that goes, keeps the order of ids")
  func nestedRegistrationKeepsIdOrder() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    let first = gtRegisterLogging("p0", on: node, into: log)
    // The node's own collection holds the payload; dropping the override leaves it stale.
    node.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload { [unowned node] in
      gtRegisterLogging("nested", on: node, into: log)
    }
    _ = node.traitCollection[GTDeinitPayloadTrait.self]
    node.traitOverrides[GTDeinitPayloadTrait.self] = nil
    // Registering resolves the node's collection first, which lets the payload go: its
    // registration comes before this one, in position and in id.
    let outer = gtRegisterLogging("outer", on: node, into: log)
    let fillers = (0..<40).map { gtRegisterLogging("f\($0)", on: node, into: log) }
    #expect(graph.statistics.liveRegistrations == 43)

    // Twenty-two tombstones of 43: a compaction moves `outer`, so cancelling it searches the
    // table by id.
    node.unregisterForTraitChanges(first)
    for token in fillers.prefix(21) { node.unregisterForTraitChanges(token) }
    node.unregisterForTraitChanges(outer)
    gtChangeSizeClass(graph, to: .compact)

    #expect(log.entries == ["nested"] + (21..<40).map { "f\($0)" })
  }
}
