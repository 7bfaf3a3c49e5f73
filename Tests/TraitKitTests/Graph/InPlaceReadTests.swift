import Testing

@testable import TraitKit

// `TraitNode.traitCollection` is an addressor: a read such as `node.traitCollection[T.self]`
// borrows the collection in place, from a cell in the node or the storage itself or, for a read
// a tracked closure records, from a per-thread cell. These tests hold the cells to their contract.

/// A trait that nothing else in the test process reads, writes or observes.
private struct IPFirstReadTrait: TraitDefinition {
  static let defaultValue = 41
}

/// A trait first registered by `laterTraitReadsItsDefault`, after the node's collection exists.
private struct IPLaterTrait: TraitDefinition {
  static let defaultValue = 43
}

/// A boxed trait first registered by `laterTraitReadsItsDefault`.
private struct IPLaterBoxedTrait: TraitDefinition {
  static let defaultValue: String? = "later"
}

@Suite("Reading a node's collection in place")
struct InPlaceReadTests {
  @Test("a storage holds a collection of itself, laid out as a TraitCollection")
  func storageHoldsItsOwnCollection() {
    #expect(
      MemoryLayout<(storage: UnsafeRawPointer, word: UInt)>.size
        == MemoryLayout<TraitCollection>.size
    )
    #expect(
      MemoryLayout<(storage: UnsafeRawPointer, word: UInt)>.alignment
        == MemoryLayout<TraitCollection>.alignment
    )
    let made = _Storage.make(count: 2, minimumCapacity: 4)
    let copied = made.copy(count: 3)
    for storage in [made, copied, _Storage.empty] {
      let cell = storage._collection.pointee
      #expect(cell._storage === storage)
      #expect(cell._recorder == nil)
      #expect(cell._word == TraitCollection._countWord(storage.count))
    }
    #expect(copied.count == 3)
    copied.reinitialize(from: made, count: 1)
    #expect(copied._collection.pointee._storage === copied)
    #expect(copied._collection.pointee._word == TraitCollection._countWord(2))
  }

  @Test("a node's cell is its stored resolved collection, laid out as a TraitCollection")
  func nodeCellIsItsStoredCollection() {
    typealias Cell = (storage: Unmanaged<_Storage>, word: UInt)
    #expect(MemoryLayout<Cell>.size == MemoryLayout<TraitCollection>.size)
    #expect(MemoryLayout<Cell>.alignment == MemoryLayout<TraitCollection>.alignment)
    #expect(MemoryLayout<Cell>.offset(of: \.storage) == 0)
    #expect(MemoryLayout<Cell>.offset(of: \.word) == MemoryLayout<UnsafeRawPointer>.stride)

    let (graph, node) = makeGraphWithChild()
    node.traitOverrides[VTCountTrait.self] = 1
    graph.updateTraitsIfNeeded()
    #expect(node.traitCollection[VTCountTrait.self] == 1)  // brings the node's cell up to date
    let cell = node._resolvedCollection
    #expect(cell == node._resolvedCollection)
    // Inside the node object, past its header: the stored property, not a temporary.
    let offset =
      UInt(bitPattern: cell) - UInt(bitPattern: Unmanaged.passUnretained(node).toOpaque())
    #expect(offset >= 2 * UInt(MemoryLayout<UnsafeRawPointer>.stride))
    #expect(offset < 256)
    #expect(cell.pointee._storage === node._resolvedRef.takeUnretainedValue())
    #expect(cell.pointee._recorder == nil)
    #expect(cell.pointee._word == TraitCollection._countWord(node._resolvedStorage().count))
    #expect(cell.pointee[VTCountTrait.self] == 1)

    // The same address holds the node's next resolved collection: the cell is the stored one,
    // not a copy.
    node.traitOverrides[VTCountTrait.self] = 2
    graph.updateTraitsIfNeeded()
    #expect(node.traitCollection[VTCountTrait.self] == 2)
    #expect(node._resolvedCollection == cell)
    #expect(cell.pointee._storage === node._resolvedRef.takeUnretainedValue())
    #expect(cell.pointee[VTCountTrait.self] == 2)
    #expect(cell.pointee._recorder == nil)
  }

  @Test("a collection taken from a node keeps its values after the node changes")
  func takenCollectionOutlivesChanges() {
    let (graph, node) = makeGraphWithChild()
    node.traitOverrides[VTCountTrait.self] = 1
    let taken = node.traitCollection

    node.traitOverrides[VTCountTrait.self] = 2
    graph.root.traitOverrides[VTLabelTrait.self] = "changed"
    graph.updateTraitsIfNeeded()
    node.removeFromTraitParent()

    #expect(taken[VTCountTrait.self] == 1)
    #expect(taken[VTLabelTrait.self] == "")
    #expect(node.traitCollection[VTCountTrait.self] == 2)
    #expect(node.traitCollection[VTLabelTrait.self] == "")
  }

  @Test("collections taken from two nodes in one tracked closure each record against their node")
  func trackedCollectionsKeepTheirRecorders() {
    let graph = TraitGraph()
    let first = TraitNode()
    let second = TraitNode()
    graph.root.addTraitChild(first)
    graph.root.addTraitChild(second)
    var invalidations = 0
    first.withTraitTracking(
      slot: .layout,
      invalidation: { _ in invalidations += 1 },
      {
        let fromFirst = first.traitCollection
        let fromSecond = second.traitCollection
        _ = fromFirst[VTCountTrait.self]
        _ = fromSecond[VTLabelTrait.self]
      }
    )

    // Neither read was recorded against the other node.
    first.traitOverrides[VTLabelTrait.self] = "first"
    second.traitOverrides[VTCountTrait.self] = 1
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 0)

    second.traitOverrides[VTLabelTrait.self] = "second"
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 1)
  }

  @Test("a trait registered after a node's collection was made reads as its default there")
  func laterTraitReadsItsDefault() {
    let (graph, node) = makeGraphWithChild()
    node.traitOverrides[VTCountTrait.self] = 7
    graph.updateTraitsIfNeeded()
    #expect(node.traitCollection[VTCountTrait.self] == 7)
    let count = node._resolvedStorage().count
    let kept = node.traitCollection

    // Registered elsewhere, at indices beyond the node's collection: the node's cell and a
    // collection taken from it bound the read by the count they carry.
    #expect(TraitCollection(IPLaterTrait.self, value: 1)[IPLaterTrait.self] == 1)
    #expect(TraitCollection(IPLaterBoxedTrait.self, value: "x")[IPLaterBoxedTrait.self] == "x")
    let index = _TraitRegistry.registeredIndex(of: IPLaterTrait.self)
    #expect(index.map { $0 >= count } == true)

    #expect(node.traitCollection[IPLaterTrait.self] == 43)
    #expect(node.traitCollection[IPLaterBoxedTrait.self] == "later")
    #expect(kept[IPLaterTrait.self] == 43)
    #expect(kept[IPLaterBoxedTrait.self] == "later")
    #expect(kept[VTCountTrait.self] == 7)
  }

  @Test("the first read of a trait type finds its default and registers the type")
  func firstReadRegisters() {
    #expect(_TraitRegistry.registeredIndex(of: IPFirstReadTrait.self) == nil)
    let node = TraitNode()

    #expect(node.traitCollection[IPFirstReadTrait.self] == 41)
    #expect(_TraitRegistry.registeredIndex(of: IPFirstReadTrait.self) != nil)
    #expect(node.traitCollection[IPFirstReadTrait.self] == 41)
  }
}
