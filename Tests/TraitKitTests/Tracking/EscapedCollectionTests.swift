import Testing

@testable import TraitKit

// A collection obtained inside a tracked closure carries its recorder's address, unretained. One
// that escapes may outlive that recorder, and a recorder made later may get the same address:
// reads through the old collection must not count as reads of the new recorder's node.

@Suite("Collections that outlive their tracked run")
struct EscapedCollectionTests {
  @Test("a kept collection of a node that went records nothing in a later run at its address")
  func keptCollectionOfGoneNode() {
    let graph = TraitGraph()
    var spurious = 0
    var reusedAddress = false
    // NB: malloc hands a freed recorder's address to the next recorder of its size at once, as a
    // rule; the loop stops at the first reuse, and the check holds whether or not one happened.
    for _ in 0..<200 where !reusedAddress {
      var escaped = TraitCollection()
      do {
        let gone = TraitNode()
        graph.root.addTraitChild(gone)
        gone.traitOverrides.verticalSizeClass = .regular
        gone.withTraitTracking(
          slot: .layout,
          invalidation: { _ in },
          { escaped = gone.traitCollection }
        )
        gone.removeFromTraitParent()
      }
      let reader = TraitNode()
      graph.root.addTraitChild(reader)
      var invalidations = 0
      let layout = {
        _ = reader.traitCollection.userInterfaceStyle
        reusedAddress = reader.traitCollection._word == escaped._word
        // A read of the gone node's values, not of the reader's.
        _ = escaped.verticalSizeClass
      }
      reader.withTraitTracking(slot: .layout, invalidation: { _ in invalidations += 1 }, layout)
      reader.traitOverrides.verticalSizeClass = .compact
      graph.updateTraitsIfNeeded()
      spurious += invalidations
      reader.removeFromTraitParent()
    }
    #expect(spurious == 0)
  }

  @Test("a collection that carries a running recorder but another storage records nothing")
  func foreignStorageWithLiveRecorder() throws {
    let graph = TraitGraph()
    let reader = TraitNode()
    graph.root.addTraitChild(reader)
    let foreign = TraitCollection(TraitVerticalSizeClass.self, value: .regular)
    var invalidations = 0
    let layout = {
      let own = reader.traitCollection
      _ = own.userInterfaceStyle
      guard let recorder = own._recorder else {
        Issue.record("a collection obtained in a tracked closure carries its recorder")
        return
      }
      // What an escaped collection is once its recorder's address went to this run's recorder.
      let impostor = TraitCollection(_storage: foreign._storage, recorder: recorder)
      #expect(impostor.verticalSizeClass == .regular)
    }
    reader.withTraitTracking(slot: .layout, invalidation: { _ in invalidations += 1 }, layout)

    reader.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 0)

    reader.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 1)
  }

  @Test("a collection obtained again after its node changed during the run records its reads")
  func collectionAfterChangeInRun() {
    let graph = TraitGraph()
    let view = TraitNode()
    graph.root.addTraitChild(view)
    var invalidations = 0
    let layout = {
      _ = view.traitCollection.userInterfaceStyle
      view.traitOverrides.verticalSizeClass = .regular
      let changed = view.traitCollection
      _ = changed.horizontalSizeClass
      // Read through the collection as the run first read it, too: the baseline.
      _ = changed.verticalSizeClass
    }
    view.withTraitTracking(slot: .layout, invalidation: { _ in invalidations += 1 }, layout)
    graph.updateTraitsIfNeeded()
    invalidations = 0

    view.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(invalidations == 1)
  }
}
