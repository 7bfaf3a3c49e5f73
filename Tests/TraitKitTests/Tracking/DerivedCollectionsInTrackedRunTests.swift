import Foundation
import Testing
import TraitKit

// A collection made from one obtained inside a tracked closure holds that one's values, so
// making it — or describing or encoding the tracked one — counts as reading every trait of the
// tracked one (R11). Before, the made collection carried no recorder and the making recorded
// nothing: a layout that resolved colors against `traitCollection.modifyingTraits { … }` missed
// its invalidation when a trait it read that way changed.

private enum DerivedCustomTrait: TraitDefinition {
  static let defaultValue = 0
}

@Suite("Collections made from a tracked collection")
struct DerivedCollectionsInTrackedRunTests {
  @Test("a read through modifyingTraits' result depends on the trait it read, and only changes")
  func modifyingTraitsResult() {
    let tracked = TTTree.trackingA { collection in
      _ = collection.modifyingTraits { $0.userInterfaceLevel = .elevated }.horizontalSizeClass
    }
    // A write of the value the collection holds changes nothing it was made from.
    #expect(tracked.invalidations { $0.horizontalSizeClass = .unspecified } == 0)
    #expect(tracked.invalidations { $0.horizontalSizeClass = .compact } == 1)
  }

  @Test("a read inside modifyingTraits' closure depends on the trait it read")
  func readInsideModifyingTraits() {
    let tracked = TTTree.trackingA { collection in
      _ = collection.modifyingTraits { $0.verticalSizeClass = $0.horizontalSizeClass }
    }
    #expect(tracked.invalidations { $0.horizontalSizeClass = .compact } == 1)
  }

  @Test("a read through replacing's result depends on the trait it read, custom ones too")
  func replacingResult() {
    let tracked = TTTree.trackingA { collection in
      _ = collection.replacing(TraitUserInterfaceStyle.self, value: .dark)[DerivedCustomTrait.self]
    }
    #expect(tracked.invalidations { $0[DerivedCustomTrait.self] = 2 } == 1)
  }

  @Test("a read through a merge depends on the tracked collection merged")
  func mergedResult() {
    let tracked = TTTree.trackingA { collection in
      let dark = TraitCollection(TraitUserInterfaceStyle.self, value: .dark)
      _ = TraitCollection(traitsFrom: [dark, collection]).horizontalSizeClass
    }
    #expect(tracked.invalidations { $0.horizontalSizeClass = .compact } == 1)
  }

  @Test("describing or encoding a tracked collection depends on every trait")
  func descriptionAndEncoding() throws {
    let described = TTTree.trackingA { collection in _ = "\(collection)" }
    #expect(described.invalidations { $0.horizontalSizeClass = .compact } == 1)
    let encoded = TTTree.trackingA { collection in _ = try? JSONEncoder().encode(collection) }
    #expect(encoded.invalidations { $0[DerivedCustomTrait.self] = 5 } == 1)
  }

  @Test("making a collection from an untracked one records nothing")
  func untrackedSourceRecordsNothing() {
    let tree = TTTree()
    let outside = tree.a.traitCollection
    tree.a.track(.layout) {
      _ = outside.modifyingTraits { $0.userInterfaceLevel = .elevated }.horizontalSizeClass
    }
    #expect(tree.invalidations { $0.horizontalSizeClass = .compact } == 0)
  }
}
