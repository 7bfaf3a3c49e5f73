import Testing

@testable import TraitKit

/// DESIGN §4: unused features cost no memory per node.
@Suite("Node memory")
struct NodeMemoryTests {
  @Test("a node without overrides, registrations or tracking holds no memory for them")
  func unusedFeaturesHoldNoMemory() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    _ = node.traitCollection.userInterfaceStyle
    #expect(node.traitOverrides.contains(TraitUserInterfaceStyle.self) == false)
    #expect(node._overrides == nil)
    #expect(node._observers == nil)
    #expect(node._tracking == nil)
  }

  @Test("the first override write gives a node its override memory, and the node keeps it")
  func firstOverrideWriteAllocates() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    node.traitOverrides.userInterfaceStyle = .dark
    let overrides = node._overrides
    #expect(overrides != nil)
    #expect(node.traitCollection.userInterfaceStyle == .dark)
    node.traitOverrides.remove(TraitUserInterfaceStyle.self)
    graph.updateTraitsIfNeeded()
    #expect(node._overrides == overrides)
    #expect(node.traitCollection.userInterfaceStyle == .unspecified)
  }

  @Test("assigning empty overrides to a node without any gives it no memory")
  func emptyOverrideAssignmentAllocatesNothing() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    node.traitOverrides = TraitOverrides()
    #expect(node._overrides == nil)
    node.traitOverrides = graph.root.traitOverrides
    #expect(node._overrides == nil)
    node.traitOverrides.userInterfaceStyle = .dark
    #expect(node._overrides != nil)
    #expect(node.traitCollection.userInterfaceStyle == .dark)
  }

  @Test("assigning a whole overrides value to a node without any applies it")
  func assigningOverridesToNodeWithoutAny() {
    let graph = TraitGraph()
    let source = TraitNode()
    let node = TraitNode()
    graph.root.addTraitChild(source)
    graph.root.addTraitChild(node)
    source.traitOverrides.horizontalSizeClass = .compact
    var changes = 0
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: TraitNode, _: TraitCollection) in changes += 1
    }
    node.traitOverrides = source.traitOverrides
    graph.updateTraitsIfNeeded()
    #expect(node.traitCollection.horizontalSizeClass == .compact)
    #expect(changes == 1)
  }
}
