import Testing

@testable import TraitKit

// A table keeps the extent a run found, and trusts it while its count of edits has not moved
// since. The count is 32 bits: after 2³² edits it would match again, and a run would call the
// registrations of an extent that no longer holds, among them cancelled ones whose closures are
// gone (helper-68). Every way back to the same count passes 0, so the edit that wraps the count
// to 0 drops the kept extent. The tests set the count by hand where real edits would take
// billions of passes, and make the edit that wraps it a real one.

@Suite("The extent a run keeps, and the count of edits that guards it")
struct RunExtentEditsTests {
  /// A node under a graph's root with twelve registrations of the size class, each logging its
  /// index and capturing a payload of its own, which goes when the registration is cancelled;
  /// after a pass that called them in a run, and the node's table, which kept the run's extent.
  private static func keptExtent(
    log: GTLog
  ) -> (graph: TraitGraph, node: GTNode, tokens: [TraitChangeRegistration], table: _NodeObservers) {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    let tokens = (0..<12).map { index in
      let payload = GTDeinitPayload()
      return node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        withExtendedLifetime(payload) { log.append("r\(index)") }
      }
    }
    gtChangeSizeClass(graph, to: .compact)
    return (graph, node, tokens, node._observers.unsafelyUnwrapped)
  }

  @Test("a pass's run keeps its extent, and a cancel outside a pass makes it stale")
  func aRunKeepsItsExtent() {
    let (_, node, tokens, table) = Self.keptExtent(log: GTLog())
    #expect(table.extentSlot >= 0)
    #expect(table.extentEdits == table.edits)
    #expect(table.extentStart == 1 && table.extentEnd == 12)

    node.unregisterForTraitChanges(tokens[5])

    #expect(table.extentEdits != table.edits)
  }

  @Test("the edit that wraps the count to 0 drops the kept extent")
  func wrappingEditDropsTheExtent() {
    let (_, node, tokens, table) = Self.keptExtent(log: GTLog())
    node.unregisterForTraitChanges(tokens[5])
    // As the edits up to the last before the count wraps would, none of them passing 0.
    table.edits = .max

    node.unregisterForTraitChanges(tokens[7])

    #expect(table.edits == 0)
    #expect(table.extentSlot == -1)
  }

  @Test("after 2³² edits, a pass calls each live registration once and no cancelled one")
  func passAfterTheCountComesBack() {
    let log = GTLog()
    let (graph, node, tokens, table) = Self.keptExtent(log: log)
    let stamp = table.extentEdits
    node.unregisterForTraitChanges(tokens[5])
    table.edits = .max
    node.unregisterForTraitChanges(tokens[7])
    // As `stamp` more edits would, from 0: the count is the kept extent's again.
    table.edits = stamp
    log.removeAll()

    gtChangeSizeClass(graph, to: .regular)

    #expect(log.entries == (0..<12).filter { $0 != 5 && $0 != 7 }.map { "r\($0)" })
    #expect(graph.statistics.lastPass.callbacksDelivered == 10)
  }
}
