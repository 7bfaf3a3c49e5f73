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

  @Test("a node a handler moves off the walk's path keeps its new ancestors' summaries covering")
  func frameNodeMovedOffThePath() {
    // Found by review. X's handler, called by a subtree pass from S, moves T, on the walk's
    // path, under P, outside the subtree, then registers on the root: T's frame, which took the
    // root's new traits too, wrote them into T's summary, and P did not have them.
    let graph = TraitGraph()
    let (p, s, t, x) = (TraitNode(), TraitNode(), TraitNode(), TraitNode())
    graph.root.addTraitChild(p)
    graph.root.addTraitChild(s)
    s.addTraitChild(t)
    t.addTraitChild(x)
    graph.updateTraitsIfNeeded()
    var moved = false
    x.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned graph, unowned p, unowned t] (_: TraitNode, _: TraitCollection) in
      guard !moved else { return }
      moved = true
      p.addTraitChild(t)
      graph.root.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        (_: TraitNode, _: TraitCollection) in
      }
    }
    s.traitOverrides.horizontalSizeClass = .compact

    s.updateTraitsIfNeeded()

    #expect(moved)
    #expect(Self.summariesCoverChildren(from: graph.root))
  }

  @Test("a node a handler sends from the walk's path to another graph still hears its changes")
  func frameNodeSentToAnotherGraph() {
    // Found by review. X's handler moves T, on graph A's walk path, under Q in graph B, runs
    // B's pass, and registers on A's root: T's frame wrote A's new traits into T's summary, so
    // a later registration at X stopped its propagation at T, and Q never learned of it: B's
    // walk skipped Q, and X missed the change.
    let a = TraitGraph()
    let b = TraitGraph()
    let (a1, t, x, q) = (TraitNode(), TraitNode(), TraitNode(), TraitNode())
    a.root.addTraitChild(a1)
    a1.addTraitChild(t)
    t.addTraitChild(x)
    b.root.addTraitChild(q)
    a.updateTraitsIfNeeded()
    b.updateTraitsIfNeeded()
    var moved = false
    x.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned a, unowned b, unowned q, unowned t] (_: TraitNode, _: TraitCollection) in
      guard !moved else { return }
      moved = true
      q.addTraitChild(t)
      b.updateTraitsIfNeeded()
      a.root.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        (_: TraitNode, _: TraitCollection) in
      }
    }
    a.root.traitOverrides.horizontalSizeClass = .compact
    a.updateTraitsIfNeeded()
    var called = 0
    x.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: TraitNode, _: TraitCollection) in
      called += 1
    }

    b.root.traitOverrides.userInterfaceStyle = .dark
    b.updateTraitsIfNeeded()

    #expect(moved)
    #expect(Self.summariesCoverChildren(from: b.root))
    #expect(called == 1)
  }

  @Test("a node a handler moves back into the graph from a detached frame stays covered")
  func frameNodeBackFromDetachedFrame() {
    // Found by review. N's handler, called by a subtree pass from P, detaches P, moves M, P's
    // child on the walk's path, from the detached P under R, and registers on Z: M's frame,
    // which took Z's new traits too, wrote them into M's summary, and R did not have them. M left
    // its parent outside the graph, where the walk could not note the move.
    let graph = TraitGraph()
    let (r, p, m, n, z) = (TraitNode(), TraitNode(), TraitNode(), TraitNode(), TraitNode())
    for node in [r, p, z] { graph.root.addTraitChild(node) }
    p.addTraitChild(m)
    m.addTraitChild(n)
    graph.updateTraitsIfNeeded()
    var token: TraitChangeRegistration?
    token = n.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned p, unowned m, unowned r, unowned z] (node: TraitNode, _: TraitCollection) in
      node.unregisterForTraitChanges(token)
      p.removeFromTraitParent()
      r.addTraitChild(m)
      z.registerForTraitChanges([TraitAccessibilityContrast.self]) {
        (_: TraitNode, _: TraitCollection) in
      }
    }
    p.traitOverrides.userInterfaceStyle = .dark

    p.updateTraitsIfNeeded()

    #expect(token != nil && m.traitParent === r)
    #expect(Self.summariesCoverChildren(from: graph.root))
  }
}
