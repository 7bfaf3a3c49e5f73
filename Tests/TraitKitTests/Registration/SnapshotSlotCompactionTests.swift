import Testing

@testable import TraitKit

// A node keeps one snapshot slot per distinct baseline of its registrations. Slots that no
// registration uses any more are removed once the table is idle and they are more than half of
// its slots, so that looking up a baseline, which registering and every move to a new
// collection do, reads the slots in use rather than every one the node ever had (DESIGN §4: cost
// follows the observers that must be told).

/// The number of the node's snapshot slots that hold a collection, and of all its slots.
private func slots(of node: TraitNode) -> (held: Int, all: Int) {
  let table = node._observers!
  let all = table._snapshotSlotCount
  return ((0..<Int32(all)).filter { table._snapshotState($0).isHeld }.count, all)
}

/// A graph with one child of the root, `node`.
private func graphWithNode() -> (TraitGraph, GTNode) {
  let graph = TraitGraph()
  let node = GTNode("node")
  graph.root.addTraitChild(node)
  return (graph, node)
}

/// Registers on `node`, for `traits`, one handler at each of `count` distinct collections (the
/// unobserved theme trait set to `first`, `first + 1`, …), each logging its name and the
/// theme of its `previous`.
private func registerAtDistinctCollections(
  _ node: GTNode,
  _ count: Int,
  first: Int,
  traits: [TraitKit.Trait],
  name: String,
  log: GTLog
) {
  for offset in 0..<count {
    node.traitOverrides[GTThemeTrait.self] = first + offset
    node.registerForTraitChanges(traits) { (_: GTNode, previous: TraitCollection) in
      log.append("\(name)\(offset) \(previous[GTThemeTrait.self])")
    }
  }
}

@Suite("Snapshot slots a node no longer uses are removed (DESIGN §4)")
struct SnapshotSlotCompactionTests {
  @Test("registrations made at 200 collections and all called leave one slot, not 201")
  func calledRegistrationsLeaveOneSlot() {
    let log = GTLog()
    let (graph, node) = graphWithNode()
    registerAtDistinctCollections(
      node,
      200,
      first: 1,
      traits: [TraitHorizontalSizeClass.self],
      name: "r",
      log: log
    )
    #expect(slots(of: node).all == 200)
    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries.count == 200)
    #expect(slots(of: node) == (held: 1, all: 1))
    // Registering and cancelling at a new collection reads one slot and makes one.
    node.traitOverrides[GTThemeTrait.self] = 1_000
    let token = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
    }
    #expect(slots(of: node) == (held: 2, all: 2))
    node.unregisterForTraitChanges(token)
    #expect(slots(of: node).held == 1)
  }

  @Test("cancelling registrations made at 200 collections leaves no slot behind")
  func cancelledRegistrationsLeaveNoSlot() {
    let (_, node) = graphWithNode()
    var tokens: [TraitChangeRegistration] = []
    for theme in 1...200 {
      node.traitOverrides[GTThemeTrait.self] = theme
      tokens.append(
        node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
          (_: GTNode, _: TraitCollection) in
        }
      )
    }
    let kept = tokens.removeLast()
    for token in tokens { node.unregisterForTraitChanges(token) }
    // At most 8 free slots beyond slot 0 stay (the table's floor), and slot 0 itself.
    #expect(slots(of: node).held == 1)
    #expect(slots(of: node).all <= 10)
    node.unregisterForTraitChanges(kept)
    #expect(slots(of: node).held == 0)
  }

  @Test("registrations renumbered with their slots still see their own baselines")
  func renumberedRegistrationsSeeTheirBaselines() {
    // r0…r49 observe the size class and s0…s29 the style, each made at its own collection. The
    // size class change moves the r's to one slot and frees 50 of 80: the slots are removed,
    // and the s's renumbered. The style change then gives each s its own baseline's theme.
    let log = GTLog()
    let (graph, node) = graphWithNode()
    registerAtDistinctCollections(
      node,
      50,
      first: 100,
      traits: [TraitHorizontalSizeClass.self],
      name: "r",
      log: log
    )
    registerAtDistinctCollections(
      node,
      30,
      first: 200,
      traits: [TraitUserInterfaceStyle.self],
      name: "s",
      log: log
    )
    node.traitOverrides[GTThemeTrait.self] = 300
    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries == (0..<50).map { "r\($0) \(100 + $0)" })
    #expect(slots(of: node) == (held: 31, all: 31))

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(log.entries.suffix(30) == (0..<30).map { "s\($0) \(200 + $0)" })
    gtChangeSizeClass(graph, to: .regular)
    #expect(log.entries.suffix(50) == (0..<50).map { "r\($0) 300" })
    // The s's at the dark collection, the r's at the regular one.
    #expect(slots(of: node).held == 2)
  }

  @Test("a table with a few free slots keeps them for the next baselines")
  func fewFreeSlotsStay() {
    let log = GTLog()
    let (graph, node) = graphWithNode()
    registerAtDistinctCollections(
      node,
      6,
      first: 1,
      traits: [TraitHorizontalSizeClass.self],
      name: "r",
      log: log
    )
    gtChangeSizeClass(graph, to: .compact)
    #expect(slots(of: node) == (held: 1, all: 7))
  }
}
