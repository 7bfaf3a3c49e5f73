import Testing

@testable import TraitKit

// Every node keeps a summary of the traits observed in its subtree, which the walk relies on to
// skip subtrees: a node's summary covers its own registrations' traits and its children's
// summaries. These tests check that relation after passes in which handlers change what is
// observed.

@Suite("Subtree summaries")
struct SubtreeSummaryTests {
  /// Whether every node of `root`'s tree has a summary that covers its children's.
  private static func summariesCoverChildren(from root: TraitNode) -> Bool {
    var stack = [root]
    while let node = stack.popLast() {
      for child in node.traitChildren {
        guard node._subtreeObserved.contains(child._subtreeObserved) else { return false }
        stack.append(child)
      }
    }
    return true
  }

  @Test("a registration a handler makes above a subtree pass's start leaves summaries covering")
  func registrationAboveSubtreePassStart() {
    // Found by the differential test under internal checks. C's handler, called by a subtree
    // pass from B, registers on A, B's grandparent: the walk's frames take A's new traits
    // (every frame takes them, a superset that costs only visits), and writing B's summary
    // back left X, between A and B, without what B's summary claims.
    let graph = TraitGraph()
    let (a, x, b, c) = (TraitNode(), TraitNode(), TraitNode(), TraitNode())
    graph.root.addTraitChild(a)
    a.addTraitChild(x)
    x.addTraitChild(b)
    b.addTraitChild(c)
    graph.updateTraitsIfNeeded()
    var registered = false
    c.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned a] (_: TraitNode, _: TraitCollection) in
      guard !registered else { return }
      registered = true
      a.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        (_: TraitNode, _: TraitCollection) in
      }
    }
    b.traitOverrides.horizontalSizeClass = .compact

    b.updateTraitsIfNeeded()

    #expect(registered)
    #expect(Self.summariesCoverChildren(from: graph.root))
  }
}
