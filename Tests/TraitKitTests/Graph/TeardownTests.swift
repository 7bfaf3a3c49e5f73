import Testing
import TraitKit

// A tree that goes frees its nodes one at a time, and each release may run user code: a node
// subclass's `deinit`, or the `deinit` of an object a handler captured. That code may reach any
// node of the tree that someone else holds. Each test here trapped ("A node's parent does not
// list it among its children") or read freed memory before a node's children became detached
// roots ahead of its release.

/// A node that takes its content out of the tree when it goes, as a container view might.
private final class TDContainerNode: TraitNode {
  let content: TraitNode

  init(content: TraitNode) {
    self.content = content
    super.init()
    addTraitChild(content)
  }

  deinit { content.removeFromTraitParent() }
}

/// Runs `onDeinit` when it goes.
private final class TDDeinitAction {
  let onDeinit: () -> Void

  init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }

  deinit { onDeinit() }
}

/// Registers a handler on `node` that holds `action`, so that the node's going runs it.
private func hold(_ action: TDDeinitAction, until node: TraitNode) {
  node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
    (_: TraitNode, _: TraitCollection) in withExtendedLifetime(action) {}
  }
}

@Suite("Trees freed while user code runs")
struct TeardownTests {
  @Test("a container that removes its content as it goes works when it goes with its parent")
  func containerGoesWithItsParent() {
    let content = TraitNode()
    do {
      let top = TraitNode()
      top.traitOverrides[GTThemeTrait.self] = 3
      top.addTraitChild(TDContainerNode(content: content))
      #expect(content.traitCollection[GTThemeTrait.self] == 3)
    }
    #expect(content.traitParent == nil)
    #expect(content.traitCollection[GTThemeTrait.self] == 0)
  }

  @Test("the same container, dropped on its own, removes its content")
  func containerGoesAlone() {
    let content = TraitNode()
    do { _ = TDContainerNode(content: content) }
    #expect(content.traitParent == nil)
  }

  @Test("an object a handler holds may detach the node's child when the node goes with its parent")
  func handlerCaptureDetachesChild() {
    let grandchild = TraitNode()
    do {
      let top = TraitNode()
      let child = TraitNode()
      top.addTraitChild(child)
      child.addTraitChild(grandchild)
      hold(TDDeinitAction { grandchild.removeFromTraitParent() }, until: child)
    }
    #expect(grandchild.traitParent == nil)
  }

  @Test("a sibling's teardown finds a kept node whose parent went a detached root, at defaults")
  func siblingTeardownReadsOrphan() {
    let kept = TraitNode()
    var seen: [(parentIsNil: Bool, theme: Int)] = []
    do {
      let top = TraitNode()
      let middle = TraitNode()
      let other = TraitNode()
      top.addTraitChild(middle)
      middle.traitOverrides[GTThemeTrait.self] = 7
      // `other` goes before `kept` is reached: children go from the last added.
      middle.addTraitChild(kept)
      middle.addTraitChild(other)
      #expect(kept.traitCollection[GTThemeTrait.self] == 7)
      hold(
        TDDeinitAction {
          seen.append((kept.traitParent == nil, kept.traitCollection[GTThemeTrait.self]))
        },
        until: other
      )
    }
    #expect(seen.map(\.parentIsNil) == [true])
    #expect(seen.map(\.theme) == [0])
  }

  @Test("a kept subtree that shared a storage of a node that went reads its own values after it")
  func keptSubtreeRevalidates() {
    let kept = TraitNode()
    let below = TraitNode()
    kept.addTraitChild(below)
    var seen: [Int] = []
    do {
      let top = TraitNode()
      let reader = TraitNode()
      let owner = TraitNode()
      let between = TraitNode()
      // The reader goes last; the owner of the storage, and the node between it and the kept
      // subtree, go before it.
      top.addTraitChild(reader)
      top.addTraitChild(owner)
      owner.traitOverrides[GTThemeTrait.self] = 7
      owner.addTraitChild(between)
      between.addTraitChild(kept)
      #expect(below.traitCollection[GTThemeTrait.self] == 7)
      hold(TDDeinitAction { seen.append(below.traitCollection[GTThemeTrait.self]) }, until: reader)
    }
    #expect(seen == [0])
    #expect(below.traitParent === kept && kept.traitParent == nil)
    #expect(below.traitCollection[GTThemeTrait.self] == 0)
  }

  @Test("a graph a handler drops with nodes the pass walks keeps them until the pass ends")
  func graphDroppedWithWalkedNodes() {
    // A review's question. N's handler, called by graph A's pass, moves P, N's parent on the
    // walk's path, into graph B and lets go of B, the last holder of P and N besides A's pass,
    // which walks them without retaining them: P left its parent during a pass, so that pass's
    // graveyard keeps it, and N with it, until the pass ends. Run under AddressSanitizer
    // (`Scripts/sanitize.sh`), a node freed before shows as a use after free.
    let a = TraitGraph()
    var b: TraitGraph? = TraitGraph()
    weak var walked: TraitNode?
    var called = 0
    do {
      let (p, n) = (TraitNode(), TraitNode())
      a.root.addTraitChild(p)
      p.addTraitChild(n)
      walked = p
      a.updateTraitsIfNeeded()
      n.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned p] (_: TraitNode, _: TraitCollection) in
        called += 1
        b?.root.addTraitChild(p)
        b = nil
      }
    }
    a.root.traitOverrides.horizontalSizeClass = .compact

    a.updateTraitsIfNeeded()

    #expect(called == 1)
    #expect(b == nil && walked == nil)
  }
}
