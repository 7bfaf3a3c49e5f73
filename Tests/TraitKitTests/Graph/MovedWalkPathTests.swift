import Testing
import TraitKit

// R5, R10: when a round leaves a change pending at a node it went past, it marks that node's
// ancestors as having a pending change below them, so that the next round finds the way there.
// It used to mark the nodes on its walk's path instead, one of which a handler may have moved
// since: here into another graph, whose pass then ran. That node kept the mark, which its new
// ancestors did not have, and a later change below it stopped marking there
// (`TraitNode._keepPending`): the graph's root never heard of it, and its pass found nothing to
// do, although the graph had asked for one. Found by the in-run tracking differential test once
// invalidations took nodes to another graph and back (helper-35; seed 0x7ea17c17, sequence 2646:
// a slot's invalidation was missed; seed 0x5eed0001, sequence 5316 failed the same way).

@Suite("A walk's path that a handler moves")
struct MovedWalkPathTests {
  @Test("a node that joins a walk's path moved into another graph hears in that graph's pass")
  func nodeUnderAPathNodeMovedIntoAnotherGraph() {
    let first = TraitGraph()
    let second = TraitGraph(baseTraits: TraitCollection { $0.horizontalSizeClass = .regular })
    // A: root → path → parent → node.
    let (path, parent, node) = (TraitNode(), TraitNode(), TraitNode())
    first.root.addTraitChild(path)
    path.addTraitChild(parent)
    parent.addTraitChild(node)
    var log: [String] = []
    var moved = false
    // Once, as A's round visits `node`, whose walk's path is A's root, `path` and `parent`: a
    // new child of `parent` makes the round consider `node` again, so that it leaves the change
    // pending there and marks its path; `parent` leaves `path`, and `path` leaves for B, whose
    // pass runs.
    _ = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned second, unowned path, unowned parent] (_: TraitNode, _: TraitCollection) in
      guard !moved else { return }
      moved = true
      parent.addTraitChild(TraitNode())
      parent.removeFromTraitParent()
      second.root.addTraitChild(path)
      second.updateTraitsIfNeeded()
    }
    first.root.traitOverrides.horizontalSizeClass = .compact
    first.updateTraitsIfNeeded()
    second.updateTraitsIfNeeded()
    #expect(moved)

    // A node that B's base traits make regular joins `path` in B.
    let joining = TraitNode()
    _ = joining.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (joining: TraitNode, previous: TraitCollection) in
      log.append("\(previous.horizontalSizeClass) → \(joining.traitCollection.horizontalSizeClass)")
    }
    var requests = 0
    second.onNeedsUpdate = { requests += 1 }
    path.addTraitChild(joining)
    #expect(requests == 1)
    second.updateTraitsIfNeeded()
    #expect(log == ["unspecified → regular"])
  }
}
