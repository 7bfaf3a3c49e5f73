import Testing

@testable import TraitKit

// An in-place access of a node's overrides holds them until it ends (`TraitNode.traitOverrides`):
// reads of the node and its subtree meanwhile apply the overrides from before the access, and
// other accesses of those overrides trap, as Swift's exclusivity rule traps them on a variable.
// Fixtures start with `OD`.

private struct ODValueTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A trait the node's parent changes during the access, so that a read must refresh the node.
private struct ODAboveTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A boxed trait: a collection that holds one is freed, not kept for reuse, when let go of.
private struct ODTextTrait: TraitDefinition {
  static let defaultValue = ""
}

/// A value whose deinitializer runs `ODProbe.onDeinit` once.
private final class ODProbe: Sendable {
  nonisolated(unsafe) static var onDeinit: (() -> Void)?

  deinit {
    let hook = ODProbe.onDeinit
    ODProbe.onDeinit = nil
    hook?()
  }
}

private struct ODProbeTrait: TraitDefinition {
  static let defaultValue: ODProbe? = nil
}

/// A trait the root writes so that the node is stale when its own overrides change next.
private struct ODElsewhereTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A node under the root whose overrides hold `ODProbeTrait` and `ODValueTrait` = 1, read once,
/// then a second probe written and left unapplied: the next in-place access of its overrides
/// lets go of the collection that holds the first probe before it begins.
private func odNodeReleasingAProbe(_ graph: TraitGraph) -> TraitNode {
  let node = TraitNode()
  graph.root.addTraitChild(node)
  node.traitOverrides[ODProbeTrait.self] = ODProbe()
  node.traitOverrides[ODValueTrait.self] = 1
  _ = node.traitCollection
  // NB: a change above first: a write to a node that is current applies itself at once, and
  // would let go of the first probe then.
  graph.root.traitOverrides[ODElsewhereTrait.self] = 1
  node.traitOverrides[ODProbeTrait.self] = ODProbe()
  return node
}

private struct ODWrap<Tag> {}

/// One trait type per `Tag`: enough of them push later trait types past the 127 that a node's
/// shield tells apart.
private struct ODManyTrait<Tag>: TraitDefinition {
  static var defaultValue: Int { 0 }
}

/// Gives `count` trait types their indices; returns a writer and a reader of the last one.
private func odRegisterTraits<Tag>(
  _: Tag.Type,
  count: Int
) -> (index: Int, write: (TraitNode, Int) -> Void, read: (TraitNode) -> Int) {
  let index = _TraitRegistry.index(of: ODManyTrait<Tag>.self)
  guard count > 1 else {
    return (
      index,
      { node, value in node.traitOverrides[ODManyTrait<Tag>.self] = value },
      { node in node.traitCollection[ODManyTrait<Tag>.self] }
    )
  }
  return odRegisterTraits(ODWrap<Tag>.self, count: count - 1)
}

/// A root, a node under it with an override of `ODValueTrait` to 1 (unless told otherwise), and
/// a child of the node, all read once; the node's registration records the values it saw.
private final class ODFixture {
  let graph = TraitGraph()
  let node = TraitNode()
  let child = TraitNode()
  var seen: [Int] = []

  init(overriding: Bool = true) {
    graph.root.addTraitChild(node)
    node.addTraitChild(child)
    if overriding { node.traitOverrides[ODValueTrait.self] = 1 }
    node.registerForTraitChanges([ODValueTrait.self]) { [unowned self] (node: TraitNode, _) in
      seen.append(node.traitCollection[ODValueTrait.self])
    }
    graph.updateTraitsIfNeeded()
    _ = child.traitCollection
  }

  /// What `reader` reads of the two traits, in the middle of an access of the node's overrides
  /// that writes `ODValueTrait` to 2 and then changes `ODAboveTrait` at the root.
  func readDuringAccess(_ reader: TraitNode) -> (value: Int, above: Int) {
    var read: (Int, Int) = (0, 0)
    func edit(_ overrides: inout TraitOverrides) {
      overrides[ODValueTrait.self] = 2
      graph.root.traitOverrides[ODAboveTrait.self] = 5
      let collection = reader.traitCollection
      read = (collection[ODValueTrait.self], collection[ODAboveTrait.self])
    }
    edit(&node.traitOverrides)
    return read
  }
}

@Suite("Reads during an in-place access of overrides (R6)")
struct OverridesDuringAccessTests {
  @Test(
    "a read that refreshes the node during an access applies the overrides from before it",
    arguments: [false, true]
  )
  func readDuringAccessAppliesOverridesFromBefore(readingChild: Bool) {
    let fixture = ODFixture()

    let read = fixture.readDuringAccess(readingChild ? fixture.child : fixture.node)

    // The overrides' value from before the access, and the change made above meanwhile.
    #expect(read.value == 1)
    #expect(read.above == 5)
    // Once the access ends, its write is the node's, and its subtree's.
    #expect(fixture.node.traitCollection[ODValueTrait.self] == 2)
    #expect(fixture.child.traitCollection[ODValueTrait.self] == 2)
    #expect(fixture.child.traitCollection[ODAboveTrait.self] == 5)
    fixture.graph.updateTraitsIfNeeded()
    #expect(fixture.seen == [2])
  }

  @Test("a read that need not refresh the node during an access sees its collection from before")
  func readOfCurrentNodeDuringAccess() {
    let fixture = ODFixture()
    var read = 0
    func edit(_ overrides: inout TraitOverrides) {
      overrides[ODValueTrait.self] = 2
      read = fixture.node.traitCollection[ODValueTrait.self]
    }

    edit(&fixture.node.traitOverrides)

    #expect(read == 1)
    #expect(fixture.node.traitCollection[ODValueTrait.self] == 2)
  }

  @Test("an edit undone within an access, after a read that refreshed the node, calls no one (R5)")
  func editUndoneAfterReadDuringAccess() {
    let fixture = ODFixture()
    var read = 0
    func editAndUndo(_ overrides: inout TraitOverrides) {
      let saved = overrides
      overrides[ODValueTrait.self] = 2
      fixture.graph.root.traitOverrides[ODAboveTrait.self] = 5
      read = fixture.child.traitCollection[ODValueTrait.self]
      overrides = saved
    }

    editAndUndo(&fixture.node.traitOverrides)

    #expect(read == 1)
    #expect(fixture.node.traitCollection[ODValueTrait.self] == 1)
    #expect(fixture.child.traitCollection[ODValueTrait.self] == 1)
    fixture.graph.updateTraitsIfNeeded()
    #expect(fixture.seen == [])
  }

  @Test(
    "writes in a row, with no read between, are all applied by a read during the next access",
    arguments: [true, false]
  )
  func writesInARowThenReadDuringAccess(overridingBefore: Bool) {
    // Without overrides before, the node's collection was its parent's, which it did not keep.
    let fixture = ODFixture(overriding: overridingBefore)
    fixture.node.traitOverrides[ODValueTrait.self] = 3
    fixture.node.traitOverrides[ODAboveTrait.self] = 4

    let read = fixture.readDuringAccess(fixture.child)

    // The second write of the row came before the access, and the node overrides the trait
    // the root changes during it.
    #expect(read.value == 3)
    #expect(read.above == 4)
    #expect(fixture.child.traitCollection[ODValueTrait.self] == 2)
    #expect(fixture.child.traitCollection[ODAboveTrait.self] == 4)
    fixture.graph.updateTraitsIfNeeded()
    #expect(fixture.seen == [2])
  }

  @Test(
    "after a write that changed no value, a read during an access applies the overrides from before it",
    arguments: [false, true]
  )
  func readAfterWriteOfTheInheritedValue(boxedAbove: Bool) {
    // helper-56's review: the node shared its parent's collection without holding it, and read
    // its overrides' values from it after the parent let go of it (reused, or freed when boxed).
    let graph = TraitGraph()
    let root = graph.root
    let node = TraitNode()
    root.addTraitChild(node)
    if boxedAbove { root.traitOverrides[ODTextTrait.self] = String(repeating: "x", count: 40) }
    root.traitOverrides[ODAboveTrait.self] = 100
    root.traitOverrides[ODValueTrait.self] = 1
    #expect(node.traitCollection[ODValueTrait.self] == 1)
    // The value the node inherits: no value changes, and the node stays current.
    node.traitOverrides[ODValueTrait.self] = 1
    var read = 0
    func edit(_ overrides: inout TraitOverrides) {
      overrides[ODAboveTrait.self] = 7
      for value in [2, 3, 4] {
        if boxedAbove {
          root.traitOverrides[ODTextTrait.self] = String(repeating: "y", count: 40 + value)
        }
        root.traitOverrides[ODValueTrait.self] = value
        _ = root.traitCollection
      }
      read = node.traitCollection[ODValueTrait.self]
    }

    edit(&node.traitOverrides)

    #expect(read == 1)
    #expect(node.traitCollection[ODValueTrait.self] == 1)
    #expect(node.traitCollection[ODAboveTrait.self] == 7)
  }

  @Test("a value's deinitializer run as an access begins reads the overrides from before it")
  func deinitializerReadsAsAccessBegins() {
    let graph = TraitGraph()
    let node = odNodeReleasingAProbe(graph)
    var readInDeinitializer: Int?
    ODProbe.onDeinit = {
      graph.root.traitOverrides[ODAboveTrait.self] = 3
      readInDeinitializer = node.traitCollection[ODValueTrait.self]
    }
    defer { ODProbe.onDeinit = nil }
    func edit(_ overrides: inout TraitOverrides) {
      overrides[ODValueTrait.self] = 2
    }

    edit(&node.traitOverrides)

    #expect(readInDeinitializer == 1)
    #expect(node.traitCollection[ODValueTrait.self] == 2)
    #expect(node.traitCollection[ODAboveTrait.self] == 3)
  }

  @Test("a value's deinitializer run as an access begins traps if it writes the same overrides")
  func deinitializerWritesAsAccessBeginsTraps() async {
    // helper-56's review: such a write left the overrides unapplied while the access took the
    // older ones for its reads, and for good once it ended without a change.
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let graph = TraitGraph()
      let node = odNodeReleasingAProbe(graph)
      ODProbe.onDeinit = { node.traitOverrides[ODValueTrait.self] = 9 }
      func edit(_ overrides: inout TraitOverrides) {}
      edit(&node.traitOverrides)
    }
    #expect(gtStandardError(result).contains("Overlapping accesses to a node's traitOverrides"))
  }

  @Test("with trait types numbered below 128, as in most processes, a read applies them the same")
  func readDuringAccessWithFewTraitTypes() async {
    // NB: in a process of its own, whose first trait types these are: the node's shield holds
    // its overridden traits. This suite's process numbers many more, before them or after.
    await #expect(processExitsWith: .success) {
      let fixture = ODFixture()
      precondition(_TraitRegistry.index(of: ODAboveTrait.self) <= _TraitFilter.lastExactIndex)
      let read = fixture.readDuringAccess(fixture.child)
      precondition(read == (1, 5), "read \(read) during the access")
      precondition(fixture.child.traitCollection[ODValueTrait.self] == 2)
    }
  }

  @Test("overrides of traits past the 127th trait type apply from before an access during it")
  func overridesPastTheShieldsExactTraits() async {
    // NB: in a process of its own, whose trait types this test alone numbers.
    await #expect(processExitsWith: .success) {
      let trait = odRegisterTraits(ODWrap<Void>.self, count: 140)
      precondition(trait.index > _TraitFilter.lastExactIndex, "trait \(trait.index) is exact")
      let graph = TraitGraph()
      let node = TraitNode()
      graph.root.addTraitChild(node)
      // An override of the value the node inherits: only the overridden traits themselves tell
      // it from none.
      trait.write(graph.root, 4)
      trait.write(node, 4)
      node.traitOverrides[ODValueTrait.self] = 1
      _ = node.traitCollection
      var read = 0
      func edit(_ overrides: inout TraitOverrides) {
        overrides[ODValueTrait.self] = 2
        trait.write(graph.root, 9)
        read = trait.read(node)
      }
      edit(&node.traitOverrides)
      precondition(read == 4, "read \(read) during the access, not the override's 4")
      precondition(trait.read(node) == 4, "read \(trait.read(node)) after the access")
    }
  }

  @Test("a node refreshed twice during an access keeps the collection its children share (R6)")
  func nodeRefreshedTwiceDuringAccessKeepsSharedCollection() throws {
    // helper-58's review: the refresh during an access made the node's collection anew each
    // time, so that the outer refresh let go of the collection that the inner one had made and
    // that a child, refreshed in between, shares without a reference: the child read freed
    // memory.
    let graph = TraitGraph()
    let above = TraitNode()
    let node = TraitNode()
    let first = TraitNode()
    let second = TraitNode()
    graph.root.addTraitChild(above)
    graph.root.addTraitChild(node)
    node.addTraitChild(first)
    node.addTraitChild(second)
    node.traitOverrides[ODValueTrait.self] = 7
    var deinitializerRan = false
    above.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload {
      deinitializerRan = true
      _ = second.traitCollection
    }
    _ = above.traitCollection
    _ = first.traitCollection
    _ = second.traitCollection
    // The node keeps the collection it inherited from the root, and `above`'s collection holds
    // the last reference to the first payload: `above`'s next refresh lets go of it.
    above.addTraitChild(node)
    let replacement = GTDeinitPayload()
    above.traitOverrides[GTDeinitPayloadTrait.self] = replacement
    func edit(_ overrides: inout TraitOverrides) {
      // Refreshes `above`, the node and `first`, in that order; in the middle, the payload's
      // deinitializer reads `second`, which refreshes the node first.
      _ = first.traitCollection
    }

    edit(&node.traitOverrides)

    #expect(deinitializerRan)
    // A node without overrides shares its parent's collection (checked before anything reads
    // the child's, which pointed at freed memory).
    try #require(second._resolvedIsCurrent && node._resolvedIsCurrent)
    try #require(second._resolvedRef.toOpaque() == node._resolvedRef.toOpaque())
    #expect(first._resolvedRef.toOpaque() == node._resolvedRef.toOpaque())
    #expect(second.traitCollection[ODValueTrait.self] == 7)
    #expect(second.traitCollection[GTDeinitPayloadTrait.self] === replacement)
  }

  @Test("reading a node's overrides during an in-place access of them traps")
  func readingOverridesDuringAccessTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      func edit(_ overrides: inout TraitOverrides) {
        overrides[ODValueTrait.self] = 2
        _ = node.traitOverrides
      }
      edit(&node.traitOverrides)
    }
    #expect(gtStandardError(result).contains("Overlapping accesses to a node's traitOverrides"))
  }

  @Test("assigning a node's overrides during an in-place access of them traps")
  func assigningOverridesDuringAccessTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      func edit(_ overrides: inout TraitOverrides) {
        overrides[ODValueTrait.self] = 2
        node.traitOverrides = TraitOverrides()
      }
      edit(&node.traitOverrides)
    }
    #expect(gtStandardError(result).contains("Overlapping accesses to a node's traitOverrides"))
  }

  @Test("a second in-place access of a node's overrides during the first traps")
  func nestedAccessTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      func edit(_ overrides: inout TraitOverrides) {
        overrides[ODValueTrait.self] = 2
        node.traitOverrides[ODAboveTrait.self] = 3
      }
      edit(&node.traitOverrides)
    }
    #expect(gtStandardError(result).contains("Overlapping accesses to a node's traitOverrides"))
  }

  @Test("accesses of different nodes' overrides may overlap")
  func accessesOfDifferentNodesOverlap() {
    let fixture = ODFixture()
    func edit(_ overrides: inout TraitOverrides) {
      overrides[ODValueTrait.self] = 2
      fixture.child.traitOverrides[ODValueTrait.self] = 7
      fixture.child.traitOverrides = fixture.child.traitOverrides
    }

    edit(&fixture.node.traitOverrides)

    #expect(fixture.node.traitCollection[ODValueTrait.self] == 2)
    #expect(fixture.child.traitCollection[ODValueTrait.self] == 7)
  }
}
