import Testing

@testable import TraitKit

// A read borrows its node's collection in place, unretained. User code that runs during a read —
// a trait value's deinitializer, a trait type's witnesses when the type registers — may change
// the tree and free that collection. These tests read through such changes; run them under
// AddressSanitizer in a release build too (`Scripts/sanitize.sh address-release`): some of the
// mistakes they catch show only once the optimizer drops a retain.

/// A value that runs `onDeinit` when it goes.
private final class LTPayload: Sendable {
  nonisolated(unsafe) var onDeinit: (() -> Void)?
  let id: Int

  init(_ id: Int, onDeinit: (() -> Void)? = nil) {
    self.id = id
    self.onDeinit = onDeinit
  }

  deinit { onDeinit?() }
}

private struct LTPayloadTrait: TraitDefinition {
  static let defaultValue: LTPayload? = nil
}

private struct LTCountTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A trait whose registration, at its first use, runs `hook`.
private struct LTHookTrait: TraitDefinition {
  nonisolated(unsafe) static var hook: (() -> Void)?

  static var defaultValue: Int {
    if let hook {
      Self.hook = nil
      hook()
    }
    return 7
  }
}

/// Runs `body` tracked in `node`'s layout slot, with an invalidation that does nothing.
private func tracked(_ node: TraitNode, _ body: () -> Void) {
  node.withTraitTracking(slot: .layout, invalidation: { _ in }, body)
}

@Suite("Reading while user code changes the tree", .serialized)
struct InPlaceReadLifetimeTests {
  @Test("a tracked read survives a replaced baseline whose value's deinitializer changes the tree")
  func trackedReadSurvivesBaselineDeinit() {
    let (graph, node) = makeGraphWithChild()
    // As payload 1 goes, it changes the node, reads it (which lets go of its collection) and runs
    // a pass.
    node.traitOverrides[LTPayloadTrait.self] = LTPayload(1) { [unowned node, unowned graph] in
      node.traitOverrides[LTPayloadTrait.self] = LTPayload(3)
      _ = node.traitCollection[LTCountTrait.self]
      graph.updateTraitsIfNeeded()
    }
    // Run 1: the slot's baseline is the collection that holds payload 1.
    tracked(node) { _ = node.traitCollection[LTPayloadTrait.self] }
    // The node lets go of that collection: only the baseline holds payload 1 now.
    node.traitOverrides[LTPayloadTrait.self] = LTPayload(2)
    _ = node.traitCollection[LTCountTrait.self]

    // Run 2's read moves the baseline to the node's collection: payload 1 goes.
    var seen: Int?
    tracked(node) { seen = node.traitCollection[LTPayloadTrait.self]?.id }

    #expect(seen == 2 || seen == 3)
    #expect(node.traitCollection[LTPayloadTrait.self]?.id == 3)
  }

  @Test("a tracked first read of a trait type survives its registration changing the tree")
  func trackedFirstReadSurvivesRegistrationCode() {
    let (graph, node) = makeGraphWithChild()
    node.traitOverrides[LTPayloadTrait.self] = LTPayload(1)
    LTHookTrait.hook = { [unowned node] in
      // The node lets go of the collection that the read below reads.
      node.traitOverrides[LTPayloadTrait.self] = LTPayload(2)
      _ = node.traitCollection[LTCountTrait.self]
    }
    var seen = 0
    tracked(node) {
      // The slot's baseline: the node's first collection.
      _ = node.traitCollection[LTCountTrait.self]
      node.traitOverrides[LTCountTrait.self] = 5
      // The node's second collection, which only the node holds.
      _ = node.traitCollection[LTCountTrait.self]
      seen = node.traitCollection[LTHookTrait.self]
    }

    #expect(seen == 7)
    #expect(node.traitCollection[LTPayloadTrait.self]?.id == 2)
    #expect(node._graph === graph)
  }

  @Test("a read survives the release of its node's collection changing the parent")
  func readSurvivesOwnReleaseChangingParent() {
    let graph = TraitGraph()
    let parent = TraitNode()
    let node = TraitNode()
    graph.root.addTraitChild(parent)
    parent.addTraitChild(node)
    parent.traitOverrides[LTCountTrait.self] = 1
    node.traitOverrides[LTPayloadTrait.self] = LTPayload(1) { [unowned parent] in
      // The parent lets go of the collection that the node now shares.
      parent.traitOverrides[LTCountTrait.self] = 2
      _ = parent.traitCollection[LTCountTrait.self]
    }
    _ = node.traitCollection[LTCountTrait.self]
    // The node's own collection goes, with the payload, at its next read.
    node.traitOverrides.remove(LTPayloadTrait.self)

    let seen = node.traitCollection[LTCountTrait.self]

    #expect(seen == 1 || seen == 2)
    #expect(node.traitCollection[LTCountTrait.self] == 2)
  }

  @Test("collections of two nodes taken in one expression in a tracked closure stay apart")
  func twoCollectionsInOneExpression() {
    let graph = TraitGraph()
    let first = TraitNode()
    let second = TraitNode()
    graph.root.addTraitChild(first)
    graph.root.addTraitChild(second)
    first.traitOverrides[LTCountTrait.self] = 1
    second.traitOverrides[LTCountTrait.self] = 2
    func pair<C>(_ lhs: C, _ rhs: C) -> (C, C) { (lhs, rhs) }

    tracked(first) {
      #expect(first.traitCollection != second.traitCollection)
      let both = pair(first.traitCollection, second.traitCollection)
      #expect(both.0[LTCountTrait.self] == 1)
      #expect(both.1[LTCountTrait.self] == 2)
      #expect(
        first.traitCollection[LTCountTrait.self] + 10 * second.traitCollection[LTCountTrait.self]
          == 21
      )
    }
  }

  @Test("a storage's collection cell has a TraitCollection's field offsets and its count's word")
  func cellLayoutMatchesFieldByField() {
    #expect(MemoryLayout<TraitCollection>.offset(of: \TraitCollection._storage) == 0)
    #expect(
      MemoryLayout<TraitCollection>.offset(of: \TraitCollection._word)
        == MemoryLayout<UnsafeRawPointer>.stride
    )
    #expect(MemoryLayout<_StorageHeader>.offset(of: \_StorageHeader.collection) == 0)
    let storage = _Storage.make(count: 5, minimumCapacity: 8)
    #expect(storage._collection.pointee._word == 5 << 1 | 1)
    #expect(storage._collection.pointee._recorder == nil)
  }

  @Test("a collection kept from a tracked closure reads its own values after the node changes")
  func trackedCollectionOutlivesChanges() {
    let (graph, node) = makeGraphWithChild()
    node.traitOverrides[LTPayloadTrait.self] = LTPayload(1)
    var kept: TraitCollection?
    tracked(node) { kept = node.traitCollection }

    node.traitOverrides[LTPayloadTrait.self] = LTPayload(2)
    graph.updateTraitsIfNeeded()

    #expect(kept?[LTPayloadTrait.self]?.id == 1)
    #expect(node.traitCollection[LTPayloadTrait.self]?.id == 2)
  }
}
