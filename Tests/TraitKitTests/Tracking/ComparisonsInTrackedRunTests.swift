import Testing
import TraitKit

// A tracked closure that compares collections depends on the traits the comparison reads: a
// change of one of them can change the comparison's result, so it runs the invalidation (R11);
// a change of a trait the comparison does not read does not.

private enum ComparedCustomTrait: TraitDefinition {
  static let defaultValue = 0
}

private enum LateColorTrait: TraitDefinition {
  static let defaultValue = 0
  static let affectsColorAppearance = true
}

private enum LateLayoutTrait: TraitDefinition {
  static let defaultValue = 0
}

@Suite("Comparisons of collections inside a tracked closure")
struct ComparisonsInTrackedRunTests {
  @Test("comparing with == depends on every trait, custom ones among them")
  func equalityReadsEveryTrait() {
    let reference = TraitCollection(userInterfaceStyle: .dark)
    let tracked = TTTree.trackingA { collection in _ = collection == reference }
    #expect(tracked.invalidations { $0.horizontalSizeClass = .compact } == 1)
    #expect(tracked.invalidations { $0[ComparedCustomTrait.self] = 3 } == 1)
  }

  @Test("comparing with == depends on a trait type registered after the run")
  func equalityReadsTraitTypesRegisteredLater() {
    let tracked = TTTree.trackingA { collection in _ = collection == TraitCollection() }
    #expect(tracked.invalidations { $0[LateLayoutTrait.self] = 1 } == 1)
  }

  @Test("a comparison whose traits keep their values runs no invalidation")
  func equalityUnchangedRunsNothing() {
    let tracked = TTTree.trackingA { collection in _ = collection == TraitCollection() }
    #expect(tracked.invalidations { $0.userInterfaceStyle = .unspecified } == 0)
  }

  @Test("hashing a collection depends on every trait")
  func hashingReadsEveryTrait() {
    var hashes: Set<TraitCollection> = []
    let tracked = TTTree.trackingA { collection in hashes.insert(collection) }
    #expect(tracked.invalidations { $0.displayScale = 3 } == 1)
  }

  @Test("changedTraits(from:) depends on every trait")
  func changedTraitsReadsEveryTrait() {
    let tracked = TTTree.trackingA { collection in
      _ = collection.changedTraits(from: TraitCollection(userInterfaceStyle: .dark))
    }
    #expect(tracked.invalidations { $0.verticalSizeClass = .regular } == 1)
  }

  @Test("hasDifferentColorAppearance depends on the traits that affect color appearance only")
  func colorAppearanceReadsColorTraits() {
    let tracked = TTTree.trackingA { collection in
      _ = collection.hasDifferentColorAppearance(comparedTo: TraitCollection())
    }
    #expect(tracked.invalidations { $0.horizontalSizeClass = .compact } == 0)
    #expect(tracked.invalidations { $0.userInterfaceStyle = .dark } == 1)
    #expect(tracked.invalidations { $0[LateColorTrait.self] = 1 } == 1)
  }

  @Test("containsTraits(in:) depends on the traits the other collection sets")
  func containsTraitsReadsTheOtherCollectionsTraits() {
    let tracked = TTTree.trackingA { collection in
      _ = collection.containsTraits(in: TraitCollection(userInterfaceStyle: .dark))
    }
    #expect(tracked.invalidations { $0.horizontalSizeClass = .compact } == 0)
    #expect(tracked.invalidations { $0.userInterfaceStyle = .dark } == 1)
  }

  @Test("a tracked collection passed as the argument counts as read too")
  func trackedArgumentCounts() {
    let tracked = TTTree.trackingA { collection in
      _ = TraitCollection().containsTraits(in: collection)
    }
    #expect(tracked.invalidations { $0.layoutDirection = .rightToLeft } == 1)
  }

  @Test("a comparison after the run's own write depends on the values it compared")
  func comparisonAfterOwnWrite() {
    let tree = TTTree()
    var wasDark = false
    tree.a.track(.layout) {
      _ = tree.a.traitCollection.horizontalSizeClass
      tree.a.traitOverrides.userInterfaceStyle = .dark
      wasDark = tree.a.traitCollection == TraitCollection(userInterfaceStyle: .dark)
    }
    #expect(wasDark)
    tree.graph.updateTraitsIfNeeded()
    #expect(tree.a.invalidations(of: .layout) == 0)

    tree.a.traitOverrides.userInterfaceStyle = .light
    tree.graph.updateTraitsIfNeeded()
    #expect(tree.a.invalidations(of: .layout) == 1)
  }

  @Test("a collection kept from a tracked closure and compared after it records nothing")
  func keptCollectionComparedAfterRunRecordsNothing() {
    let tree = TTTree()
    var kept = TraitCollection()
    tree.a.track(.layout) {
      kept = tree.a.traitCollection
      _ = kept.userInterfaceStyle
    }
    _ = kept == TraitCollection(horizontalSizeClass: .regular)
    _ = kept.hasDifferentColorAppearance(comparedTo: TraitCollection())
    tree.graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    tree.graph.root.traitOverrides.userInterfaceStyle = .dark
    #expect(tree.invalidationsOfNextPass() == 1)
  }

  @Test("after a run that compared, a run that reads one trait depends on that trait only")
  func runAfterComparisonStartsOver() {
    let tree = TTTree()
    tree.a.track(.layout) { _ = tree.a.traitCollection == TraitCollection() }
    tree.a.track(.layout) { _ = tree.a.traitCollection.horizontalSizeClass }
    tree.graph.root.traitOverrides[GTThemeTrait.self] = 4
    #expect(tree.invalidationsOfNextPass() == 0)
    // That pass narrowed what the node observes: a change of the theme concerns no one now.
    var requests = 0
    tree.graph.onNeedsUpdate = { requests += 1 }
    tree.graph.root.traitOverrides[GTThemeTrait.self] = 5
    #expect(requests == 0)
    tree.graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(requests == 1)
    #expect(tree.invalidationsOfNextPass() == 1)
  }
}
