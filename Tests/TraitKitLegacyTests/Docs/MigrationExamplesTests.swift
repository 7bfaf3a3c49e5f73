// The samples of the TraitKitLegacy.docc catalog, verbatim: `samplesAreVerbatim` in
// TraitKitTests/Docs/ReadmeExamplesTests.swift checks that every ```swift block of
// Sources/TraitKitLegacy/TraitKitLegacy.docc appears in this file, and each test here asserts
// what the prose around its sample says happens. The article names all three versions `MyView`:
// the first stays at file scope, after its imports; the other two are nested in enums.
import Testing
import TraitKit
import TraitKitLegacy

final class MyView: TraitNode, TraitCollectionDidChangeObserving {
  private(set) var layoutUpdates = 0

  override init() {
    super.init()
    adoptTraitCollectionDidChange(interestingTraits: [TraitHorizontalSizeClass.self])
  }

  func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {
    if traitCollection.horizontalSizeClass != previousTraitCollection?.horizontalSizeClass {
      updateLayout()
    }
  }

  func updateLayout() { layoutUpdates += 1 }
}

/// The article's "After: automatic trait tracking" version.
enum TrackedMigration {
  final class MyView: TraitNode {
    var needsLayout = true
    private(set) var layouts: [UserInterfaceSizeClass] = []

    func layoutIfNeeded() {
      guard needsLayout else { return }
      needsLayout = false
      withTraitTracking(slot: .layout, invalidation: MyView.invalidateLayout(of:)) {
        layoutSubviews()
      }
    }

    static func invalidateLayout(of node: TraitNode) {
      (node as? MyView)?.needsLayout = true
    }

    func layoutSubviews() {
      updateLayout(traitCollection.horizontalSizeClass)
    }

    func updateLayout(_ sizeClass: UserInterfaceSizeClass) { layouts.append(sizeClass) }
  }
}

/// The article's "After: a registration" version.
enum RegisteredMigration {
  final class MyView: TraitNode {
    private(set) var layoutUpdates = 0

    override init() {
      super.init()
      registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (self: Self, previousTraitCollection: TraitCollection) in
        self.updateLayout()
      }
    }

    func updateLayout() { layoutUpdates += 1 }
  }
}

@Suite("Migrating from traitCollectionDidChange: the article's examples")
struct MigrationExamplesTests {
  @Test("before: the legacy callback fires for any trait, and must filter for the ones it uses")
  func legacyCallbackFiresForEveryTrait() {
    let graph = TraitGraph()
    let view = MyView()
    graph.root.addTraitChild(view)

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.legacyCallbacksDelivered == 1)
    #expect(graph.statistics.lastPass.wastedLegacyCallbacks == 1)
    #expect(view.layoutUpdates == 0)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.legacyCallbacksDelivered == 1)
    #expect(graph.statistics.lastPass.wastedLegacyCallbacks == 0)
    #expect(view.layoutUpdates == 1)
  }

  @Test("after, tracking: only a change of a trait the layout read invalidates it")
  func trackingInvalidatesOnlyForReadTraits() {
    let graph = TraitGraph()
    let view = TrackedMigration.MyView()
    graph.root.addTraitChild(view)
    view.layoutIfNeeded()

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(!view.needsLayout)
    #expect(graph.statistics.lastPass.invalidationsDelivered == 0)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(view.needsLayout)
    #expect(graph.statistics.lastPass.invalidationsDelivered == 1)

    view.layoutIfNeeded()
    #expect(view.layouts == [.unspecified, .compact])
  }

  @Test("after, a registration: not called at registration, then only for its trait")
  func registrationIsCalledOnlyForItsTrait() {
    let graph = TraitGraph()
    weak var weakView: RegisteredMigration.MyView?
    do {
      let view = RegisteredMigration.MyView()
      weakView = view
      graph.root.addTraitChild(view)
      graph.updateTraitsIfNeeded()
      #expect(view.layoutUpdates == 0)

      graph.root.traitOverrides.userInterfaceStyle = .dark
      graph.updateTraitsIfNeeded()
      #expect(view.layoutUpdates == 0)

      graph.root.traitOverrides.horizontalSizeClass = .compact
      graph.updateTraitsIfNeeded()
      #expect(view.layoutUpdates == 1)
      #expect(graph.statistics.liveRegistrations == 1)
      view.removeFromTraitParent()
    }
    // The handler receives the node instead of capturing it: the node and its registration go.
    #expect(weakView == nil)
  }
}
