import Testing

@testable import TraitKit

// A write to the overrides of a node that was current applies itself to the node's collection
// at once, from the collection the node inherited, which nothing above changed: the node stays
// current, so that a read after the write, or another write in a row, finds nothing to do.
// Unless code that the write ran (`onNeedsUpdate`) changed more first. Fixtures start with `WA`.

private struct WAValueTrait: TraitDefinition {
  static let defaultValue = 0
}

private struct WAOtherTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A value whose deinitializer runs `onDeinit`.
private final class WAPayload: Equatable, Sendable {
  let key: Int
  nonisolated(unsafe) var onDeinit: (() -> Void)?

  init(_ key: Int) { self.key = key }

  deinit { onDeinit?() }

  static func == (lhs: WAPayload, rhs: WAPayload) -> Bool { lhs.key == rhs.key }
}

private struct WAPayloadTrait: TraitDefinition {
  static let defaultValue: WAPayload? = nil
}

/// A graph whose root has `parent` under it, and `node` under that, all current; the caller keeps
/// the graph alive (nodes do not).
private func waTree() -> (graph: TraitGraph, parent: TraitNode, node: TraitNode) {
  let graph = TraitGraph()
  let parent = TraitNode()
  let node = TraitNode()
  graph.root.addTraitChild(parent)
  parent.addTraitChild(node)
  graph.root.traitOverrides[WAOtherTrait.self] = 1
  _ = node.traitCollection
  return (graph, parent, node)
}

/// Runs the case of the soak's use after free; returns what went wrong, or nil.
///
/// Seed 10317710013399532211, sequence 21944: a node that applied its own write while its
/// parent was stale kept the collection it had inherited, which the parent's later refresh made
/// anew; dropping its last override then made the node share the old one, which nothing held.
private func waDropOverrideAfterParentRemade() -> String? {
  let (graph, parent, node) = waTree()
  defer { withExtendedLifetime(graph) {} }
  // Each with a collection of its own, the node's made from the parent's; all current.
  parent.traitOverrides[WAOtherTrait.self] = 2
  node.traitOverrides[WAValueTrait.self] = 1
  _ = node.traitCollection
  _ = parent.traitCollection
  // An override of the value the parent inherits: no value changes, the parent stays current,
  // and its next refresh makes its collection anew.
  parent.traitOverrides[WAValueTrait.self] = 0
  node.traitOverrides[WAValueTrait.self] = 2
  _ = parent.traitCollection

  node.traitOverrides.remove(WAValueTrait.self)

  let values = (node.traitCollection[WAValueTrait.self], node.traitCollection[WAOtherTrait.self])
  guard values == (0, 2) else { return "the node reads \(values), not (0, 2)" }
  // NB: after a read, which revalidates a node the write left stale.
  guard node._resolvedRef.toOpaque() == parent._resolvedRef.toOpaque() else {
    return "the node shares another collection than its parent's"
  }
  return nil
}

@Suite("A write to a current node's overrides applies itself at once")
struct OverridesWriteAppliesAtOnceTests {
  @Test(
    "a write to a current node leaves it and its ancestors current, holding the write, and its subtree reads it (R3, R6)"
  )
  func writeLeavesNodeCurrent() {
    let (graph, parent, node) = waTree()
    defer { withExtendedLifetime(graph) {} }
    #expect(parent._resolvedIsCurrent)

    parent.traitOverrides[WAValueTrait.self] = 4

    // The write changed nothing above the node: its ancestors stay current; below, it did.
    #expect(parent._resolvedIsCurrent)
    #expect(graph.root._resolvedIsCurrent)
    #expect(!node._resolvedIsCurrent)
    #expect(parent.traitCollection[WAValueTrait.self] == 4)
    #expect(node.traitCollection[WAValueTrait.self] == 4)
    #expect(node.traitCollection[WAOtherTrait.self] == 1)
  }

  @Test(
    "writes in a row to a node each apply at once, and its registration hears the last value once, from the first (R5)"
  )
  func writesInARowAreHeardOnce() {
    let (graph, parent, node) = waTree()
    defer { withExtendedLifetime(graph) {} }
    var calls: [(previous: Int, now: Int)] = []
    node.registerForTraitChanges([WAValueTrait.self]) {
      (node: TraitNode, previous: TraitCollection) in
      calls.append((previous[WAValueTrait.self], node.traitCollection[WAValueTrait.self]))
    }

    for value in [1, 2, 3] {
      parent.traitOverrides[WAValueTrait.self] = value
      #expect(parent._resolvedIsCurrent)
    }
    parent.traitOverrides.remove(WAOtherTrait.self)
    var whole = parent.traitOverrides
    whole[WAValueTrait.self] = 5
    parent.traitOverrides = whole
    #expect(parent._resolvedIsCurrent)
    graph.updateTraitsIfNeeded()

    #expect(calls.map(\.previous) == [0])
    #expect(calls.map(\.now) == [5])
  }

  @Test(
    "a node that drops its last override after writes shares its parent's collection as it is, after the parent made it anew (R6)"
  )
  func droppedOverrideSharesParentsCurrentCollection() {
    #expect(waDropOverrideAfterParentRemade() == nil)
  }

  @Test(
    "the same in a process whose shields hold the traits, where the parent's write changes no value"
  )
  func droppedOverrideWithExactShields() async {
    // NB: in a process of its own, where this suite's traits are the first numbered: in the
    // shared test process they may be numbered past the 127 that a shield holds, and the
    // parent's override of the value it inherits then counts as a change, which leaves the node
    // stale and steers around the case.
    await #expect(processExitsWith: .success) {
      _ = _TraitRegistry.index(of: WAValueTrait.self)
      _ = _TraitRegistry.index(of: WAOtherTrait.self)
      precondition(_TraitRegistry.index(of: WAOtherTrait.self) <= _TraitFilter.lastExactIndex)
      if let failure = waDropOverrideAfterParentRemade() { preconditionFailure(failure) }
    }
  }

  @Test("a write to a stale node waits for the next read, which applies it (R6)")
  func writeToStaleNodeWaits() {
    let (graph, parent, node) = waTree()
    defer { withExtendedLifetime(graph) {} }
    graph.root.traitOverrides[WAOtherTrait.self] = 2

    parent.traitOverrides[WAValueTrait.self] = 4

    #expect(!parent._resolvedIsCurrent)
    #expect(node.traitCollection[WAValueTrait.self] == 4)
    #expect(node.traitCollection[WAOtherTrait.self] == 2)
  }

  @Test("a value's deinitializer run as a write applies itself reads the write (R6)")
  func deinitializerDuringTheWriteReadsIt() {
    let (graph, parent, node) = waTree()
    defer { withExtendedLifetime(graph) {} }
    var reads: [Int?] = []
    do {
      let payload = WAPayload(1)
      payload.onDeinit = {
        reads.append(parent.traitCollection[WAPayloadTrait.self]?.key)
        reads.append(node.traitCollection[WAPayloadTrait.self]?.key)
      }
      parent.traitOverrides[WAPayloadTrait.self] = payload
    }
    _ = node.traitCollection
    #expect(reads.isEmpty)

    // The overrides let go of the first payload during the access; the parent's collection,
    // the last to hold it, as the write applies itself.
    parent.traitOverrides[WAPayloadTrait.self] = WAPayload(2)
    #expect(reads == [2, 2])
  }

  @Test(
    "onNeedsUpdate that changes a value above the node as the write marks it leaves every read exact (R6)",
    arguments: [false, true]
  )
  func onNeedsUpdateChangesAbove(readsFirst: Bool) {
    let (graph, parent, node) = waTree()
    defer { withExtendedLifetime(graph) {} }
    graph.updateTraitsIfNeeded()
    graph.onNeedsUpdate = {
      graph.onNeedsUpdate = nil
      if readsFirst { _ = parent.traitCollection }
      graph.root.traitOverrides[WAOtherTrait.self] = 9
    }
    // An observer, so that the write marks a change for the next pass.
    node.registerForTraitChanges([WAValueTrait.self]) { (_: TraitNode, _: TraitCollection) in }

    parent.traitOverrides[WAValueTrait.self] = 3

    #expect(graph.onNeedsUpdate == nil)
    #expect(parent.traitCollection[WAOtherTrait.self] == 9)
    #expect(parent.traitCollection[WAValueTrait.self] == 3)
    #expect(node.traitCollection[WAOtherTrait.self] == 9)
    #expect(node.traitCollection[WAValueTrait.self] == 3)
  }

  @Test(
    "onNeedsUpdate that moves the node to another graph as the write marks it leaves its reads exact (R4, R6)"
  )
  func onNeedsUpdateMovesNode() {
    let (graph, parent, node) = waTree()
    defer { withExtendedLifetime(graph) {} }
    graph.updateTraitsIfNeeded()
    let other = TraitGraph()
    other.root.traitOverrides[WAOtherTrait.self] = 6
    graph.onNeedsUpdate = {
      graph.onNeedsUpdate = nil
      other.root.addTraitChild(parent)
    }
    node.registerForTraitChanges([WAValueTrait.self]) { (_: TraitNode, _: TraitCollection) in }

    parent.traitOverrides[WAValueTrait.self] = 3

    #expect(graph.onNeedsUpdate == nil)
    #expect(parent.traitCollection[WAOtherTrait.self] == 6)
    #expect(parent.traitCollection[WAValueTrait.self] == 3)
    #expect(node.traitCollection[WAOtherTrait.self] == 6)
    #expect(node.traitCollection[WAValueTrait.self] == 3)
  }
}
