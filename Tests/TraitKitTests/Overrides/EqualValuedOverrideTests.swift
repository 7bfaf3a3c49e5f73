import Testing

@testable import TraitKit

/// A node whose parent's style observers number `leaves`; the middle node between the root and
/// them is where the tests override.
private func eqTree(leaves: Int) -> (graph: TraitGraph, middle: GTNode, calls: GTCounter) {
  let graph = TraitGraph()
  let middle = GTNode("middle")
  graph.root.addTraitChild(middle)
  let calls = GTCounter()
  for index in 0..<leaves {
    let leaf = GTNode("leaf \(index)")
    middle.addTraitChild(leaf)
    leaf.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: GTNode, _: TraitCollection) in calls.value += 1
    }
  }
  graph.updateTraitsIfNeeded()
  return (graph, middle, calls)
}

@Suite("Overrides equal to the value a node inherits")
struct EqualValuedOverrideTests {
  @Test("adding an override of the value a node inherits costs no pass (§4)")
  func addingEqualValuedOverrideCostsNoPass() {
    let (graph, middle, calls) = eqTree(leaves: 50)
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }
    _ = middle.traitCollection

    middle.traitOverrides.userInterfaceStyle = .unspecified
    graph.updateTraitsIfNeeded()

    #expect(middle.traitOverrides.contains(TraitUserInterfaceStyle.self))
    #expect(graph.statistics.lastPass.nodesVisited == 0)
    #expect(requests == 0)
    #expect(calls.value == 0)
    // The override shields the leaves from the root now.
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(calls.value == 0)
    #expect(middle.traitCollection.userInterfaceStyle == .unspecified)
  }

  @Test("removing an override of the value a node would inherit costs no pass (§4)")
  func removingEqualValuedOverrideCostsNoPass() {
    let (graph, middle, calls) = eqTree(leaves: 50)
    middle.traitOverrides.userInterfaceStyle = .unspecified
    graph.root.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    _ = middle.traitCollection
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }

    middle.traitOverrides.remove(TraitUserInterfaceStyle.self)
    graph.updateTraitsIfNeeded()

    #expect(graph.statistics.lastPass.nodesVisited == 0)
    #expect(requests == 0)
    #expect(calls.value == 0)
    // Nothing shields the leaves from the root now.
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(calls.value == 50)
  }

  @Test("an override that changes a value still reaches every observer, and only them")
  func valueChangingOverrideStillDelivers() {
    let (graph, middle, calls) = eqTree(leaves: 50)
    _ = middle.traitCollection
    middle.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(calls.value == 50)
    #expect(graph.statistics.lastPass.nodesVisited == 52)
    // Back to the value it inherits by removing the override: a change too.
    middle.traitOverrides.remove(TraitUserInterfaceStyle.self)
    graph.updateTraitsIfNeeded()
    #expect(calls.value == 100)
  }

  @Test("an override of the value a pending change above gave still lets that change through")
  func equalValuedOverrideUnderPendingChange() {
    let (graph, middle, calls) = eqTree(leaves: 3)
    graph.root.traitOverrides.userInterfaceStyle = .dark
    _ = middle.traitCollection
    // The leaves have not heard of dark yet; the middle node now shields them from the root.
    middle.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(calls.value == 3)
    #expect(graph.statistics.lastPass.callbacksDelivered == 3)
  }

  @Test("an override of the value a running pass carries down still lets it through")
  func equalValuedOverrideDuringThePass() {
    let graph = TraitGraph()
    let early = GTNode("early")
    let middle = GTNode("middle")
    let leaf = GTNode("leaf")
    graph.root.addTraitChild(early)
    graph.root.addTraitChild(middle)
    middle.addTraitChild(leaf)
    var heard: [UserInterfaceStyle] = []
    leaf.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (leaf: GTNode, _: TraitCollection) in heard.append(leaf.traitCollection.userInterfaceStyle)
    }
    early.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: GTNode, _: TraitCollection) in
      // Ahead of the walk: the middle node takes the value the walk brings it.
      _ = middle.traitCollection
      middle.traitOverrides.userInterfaceStyle = .dark
    }
    graph.updateTraitsIfNeeded()

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(heard == [.dark])
  }

  @Test("a node detached after an override of the value it inherited reads its own overrides only")
  func detachedAfterEqualValuedOverride() {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let node = GTNode("node")
    graph.root.addTraitChild(parent)
    parent.traitOverrides[GTThemeTrait.self] = 2
    parent.addTraitChild(node)
    #expect(node.traitCollection[GTThemeTrait.self] == 2)

    node.traitOverrides[GTFlagTrait.self] = false
    node.removeFromTraitParent()

    #expect(node.traitCollection[GTThemeTrait.self] == 0)
    #expect(node.traitCollection[GTFlagTrait.self] == false)
    #expect(node.traitOverrides.contains(GTFlagTrait.self))
  }

  @Test("a node detached after its overrides were replaced whole with equal values reads its own")
  func detachedAfterEqualWholeReplacement() {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let node = GTNode("node")
    graph.root.addTraitChild(parent)
    parent.traitOverrides[GTThemeTrait.self] = 2
    parent.addTraitChild(node)
    #expect(node.traitCollection[GTThemeTrait.self] == 2)

    var saved = TraitOverrides()
    saved[GTFlagTrait.self] = false
    eqAssign(&node.traitOverrides, saved)
    node.removeFromTraitParent()

    #expect(node.traitCollection[GTThemeTrait.self] == 0)
    #expect(node.traitOverrides.contains(GTFlagTrait.self))
  }
}

/// Assigns `value` to `overrides` whole, through an in-place access.
private func eqAssign(_ overrides: inout TraitOverrides, _ value: TraitOverrides) {
  overrides = value
}
