import Testing

@testable import TraitKit

// A storage slot is one word: an unboxed value's bits, or, for a trait whose values are boxed,
// 0 (no box: the default) or the box's address. These tests hold the boxed kinds to that: a
// plain-data value that is boxed because it is not `Equatable`, whose default's bits are not 0,
// and a class value whose box must be retained by every copy and released exactly once.

/// Plain data of 8 bytes, not `Equatable`: stored boxed.
private struct SSMark: Sendable {
  var line: Int32
  var column: Int32
}

/// A boxed plain-data trait whose default's bits are not 0.
private struct SSMarkTrait: TraitDefinition {
  static let defaultValue = SSMark(line: 7, column: 3)
}

/// A value that counts its deinitializations.
private final class SSTracked: Sendable {
  nonisolated(unsafe) static var deinits = 0
  let id: Int
  init(_ id: Int) { self.id = id }
  deinit { Self.deinits += 1 }
}

private struct SSTrackedTrait: TraitDefinition {
  static let defaultValue: SSTracked? = nil
}

private struct SSCountTrait: TraitDefinition {
  static let defaultValue = 0
}

@Suite("Slot storage", .serialized)
struct SlotStorageTests {
  @Test("a slot is one word")
  func slotIsOneWord() {
    #expect(MemoryLayout<_RawSlot>.size == MemoryLayout<UInt64>.size)
    #expect(MemoryLayout<_RawSlot>.stride == MemoryLayout<UInt64>.stride)
  }

  @Test("a boxed plain-data trait with a nonzero default reads its default, a write, its default")
  func boxedPlainDataReadsItsDefault() {
    let index = _TraitRegistry.index(of: SSMarkTrait.self)
    #expect(_TraitRegistry.isBoxed(index))
    let (graph, node) = makeGraphWithChild()

    #expect(TraitCollection()[SSMarkTrait.self].line == 7)
    #expect(node.traitCollection[SSMarkTrait.self].column == 3)

    node.traitOverrides[SSMarkTrait.self] = SSMark(line: 1, column: 2)
    #expect(node.traitCollection[SSMarkTrait.self].line == 1)
    let written = node.traitCollection
    #expect(written.changedTraits(from: TraitCollection()).contains { $0 == SSMarkTrait.self })

    node.traitOverrides.remove(SSMarkTrait.self)
    #expect(node.traitCollection[SSMarkTrait.self].line == 7)
    #expect(node.traitCollection == TraitCollection())
    #expect(written[SSMarkTrait.self].column == 2)
    let modified = TraitCollection().modifyingTraits {
      $0[SSMarkTrait.self] = SSMark(line: 5, column: 6)
    }
    #expect(modified[SSMarkTrait.self].line == 5)
    #expect(modified.modifyingTraits { $0[SSCountTrait.self] = 1 }[SSMarkTrait.self].column == 6)
    #expect(node._graph === graph)
  }

  @Test("a boxed value lives while any copy of its collection does, and is freed once")
  func boxedValueIsRetainedByCopiesAndFreedOnce() {
    SSTracked.deinits = 0
    do {
      let first = TraitCollection(SSTrackedTrait.self, value: SSTracked(1))
      // Copies: one with another trait added, one merged, one with the value removed.
      let grown = first.modifyingTraits { $0[SSCountTrait.self] = 3 }
      let merged = TraitCollection(traitsFrom: [
        TraitCollection(SSCountTrait.self, value: 4), first,
      ])
      let emptied = grown.modifyingTraits { $0[SSTrackedTrait.self] = nil }
      #expect(SSTracked.deinits == 0)
      #expect(grown[SSTrackedTrait.self]?.id == 1)
      #expect(merged[SSTrackedTrait.self]?.id == 1)
      #expect(emptied[SSTrackedTrait.self] == nil)
      #expect(emptied[SSCountTrait.self] == 3)
      withExtendedLifetime(first) {}
    }
    #expect(SSTracked.deinits == 1)

    // A node's override replaced twice, then the node gone: each value freed once.
    do {
      let (graph, node) = makeGraphWithChild()
      node.traitOverrides[SSTrackedTrait.self] = SSTracked(2)
      _ = node.traitCollection[SSTrackedTrait.self]
      node.traitOverrides[SSTrackedTrait.self] = SSTracked(3)
      #expect(node.traitCollection[SSTrackedTrait.self]?.id == 3)
      graph.updateTraitsIfNeeded()
      node.removeFromTraitParent()
    }
    #expect(SSTracked.deinits == 3)
  }
}
