import Testing
import TraitKit
import TraitKitLegacy

/// The "before" of seed 004's migration section, with the `UI` prefix dropped.
private final class LegacyLayoutView: TraitNode, TraitCollectionDidChangeObserving {
  var layoutUpdates: [UserInterfaceSizeClass] = []
  var calls = 0

  override init() {
    super.init()
    adoptTraitCollectionDidChange(interestingTraits: [TraitHorizontalSizeClass.self])
  }

  func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {
    calls += 1
    if traitCollection.horizontalSizeClass != previousTraitCollection?.horizontalSizeClass {
      updateLayout()
    }
  }

  func updateLayout() {
    layoutUpdates.append(traitCollection.horizontalSizeClass)
  }
}

/// The "after" of seed 004's migration section: a registration set up in the node's setup code.
private final class RegisteringLayoutView: TraitNode {
  var layoutUpdates: [UserInterfaceSizeClass] = []
  var calls = 0

  func viewDidLoad() {
    registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (self: Self, previousTraitCollection: TraitCollection) in
      self.calls += 1
      self.updateLayout()
    }
  }

  func updateLayout() {
    layoutUpdates.append(traitCollection.horizontalSizeClass)
  }
}

@Suite("Seed migration: traitCollectionDidChange to registerForTraitChanges")
struct SeedMigrationTests {
  @Test(
    "both styles see the same size-class changes; only the legacy one is also called for others"
  )
  func sideBySide() {
    let graph = TraitGraph()
    let legacy = LegacyLayoutView()
    let migrated = RegisteringLayoutView()
    migrated.viewDidLoad()
    graph.root.addTraitChild(legacy)
    graph.root.addTraitChild(migrated)

    let changes: [(inout TraitOverrides) -> Void] = [
      { $0.horizontalSizeClass = .compact },
      { $0.userInterfaceStyle = .dark },
      { $0.preferredContentSizeCategory = .extraLarge },
      { $0.horizontalSizeClass = .regular },
      { $0.displayScale = 2 },
    ]
    var legacyCalls = 0
    var registrationCalls = 0
    var wasted = 0
    for change in changes {
      change(&graph.root.traitOverrides)
      graph.updateTraitsIfNeeded()
      legacyCalls += graph.statistics.lastPass.legacyCallbacksDelivered
      registrationCalls += graph.statistics.lastPass.callbacksDelivered
      wasted += graph.statistics.lastPass.wastedLegacyCallbacks
    }

    #expect(legacy.layoutUpdates == [.compact, .regular])
    #expect(migrated.layoutUpdates == legacy.layoutUpdates)
    #expect(legacy.calls == 5)
    #expect(migrated.calls == 2)
    #expect(legacyCalls == 5)
    #expect(registrationCalls == 2)
    #expect(wasted == 3)
  }
}
