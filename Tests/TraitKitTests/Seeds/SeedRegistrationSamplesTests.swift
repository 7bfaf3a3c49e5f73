import Foundation
import Testing
import TraitKit

// The registration and override samples of seeds/000 ("Unleash the UIKit trait system", WWDC23),
// seeds/001 ("How to Use Custom Trait Collections in SwiftUI and UIKit") and seeds/004 ("Adapting
// your app when traits change"), copied with the two mechanical edits of DESIGN §2: UIKit's `UI`
// prefix dropped, and `#selector(Type.method)` replaced by the unapplied method reference
// `Type.method`. The seeds' own trait definitions (`MyAppThemeTrait`, `ContainedInSettingsTrait`,
// `UIDensityTrait`, their properties, `NSDirectionalEdgeInsets`) are the module-wide copies in
// SeedValueSamplesTests.swift. `UIView` and `UIViewController` are modelled below by two small
// `TraitNode` subclasses; a view controller is the parent of its view, as in iOS 17's trait chain.

@Suite("Seed registration samples")
struct SeedRegistrationSamplesTests {
  // MARK: - Models of UIKit's classes

  /// `UIView`: a trait node that counts its layout requests.
  class View: TraitNode {
    private(set) var layoutRequests = 0
    /// What the last layout request saw, to show that the action ran after the change.
    private(set) var sizeClassAtLastLayoutRequest: UserInterfaceSizeClass?

    func setNeedsLayout() {
      layoutRequests += 1
      sizeClassAtLastLayoutRequest = traitCollection.horizontalSizeClass
    }
  }

  /// `UIViewController`: a trait node with a root view below it and a `viewDidLoad` hook.
  class ViewController: TraitNode {
    let view = View()

    override init() {
      super.init()
      addTraitChild(view)
    }

    func viewDidLoad() {}
  }

  // MARK: - Seed 000 samples

  class MyView: View {
    private(set) var sizeClassUpdates: [UserInterfaceSizeClass] = []
    /// What the 21:28 handler registered by another object saw: the previous collections.
    var changesHandledForThisView: [TraitCollection] = []

    func updateViews(sizeClass: UserInterfaceSizeClass) {
      sizeClassUpdates.append(sizeClass)
    }

    /// Seed 000 at 21:28, first sample.
    func registerClosureOnSelf() {
      // Register for horizontal size class changes on self
      registerForTraitChanges(
        [TraitHorizontalSizeClass.self]
      ) { (self: Self, previousTraitCollection: TraitCollection) in
        self.updateViews(sizeClass: self.traitCollection.horizontalSizeClass)
      }
    }

    /// Seed 000 at 22:48, first sample.
    func registerActionOnSelf() {
      // Register for horizontal size class changes on self
      registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        action: View.setNeedsLayout
      )
    }
  }

  class MyController: ViewController {
    let anotherView: MyView = MyView()
    private(set) var handledTraitChanges: [(view: MyView, previous: TraitCollection)] = []

    override init() {
      super.init()
      view.addTraitChild(anotherView)
    }

    /// Seed 000 at 18:05.
    func toggleThemeOverride(_ overrideTheme: MyAppTheme) {
      if view.traitOverrides.contains(MyAppThemeTrait.self) {
        // There's an existing theme override; remove it
        view.traitOverrides.remove(MyAppThemeTrait.self)
      } else {
        // There's no existing theme override; apply one
        view.traitOverrides.myAppTheme = overrideTheme
      }
    }

    /// Seed 000 at 21:28, second sample.
    func registerClosureOnAnotherView() {
      // Register for changes to multiple traits on another view
      let anotherView: MyView = self.anotherView
      anotherView.registerForTraitChanges(
        [TraitHorizontalSizeClass.self, ContainedInSettingsTrait.self]
      ) { (view: MyView, previousTraitCollection: TraitCollection) in
        // Handle the trait change for this view...
        view.changesHandledForThisView.append(previousTraitCollection)
      }
    }

    /// Seed 000 at 22:48, second sample.
    func registerTargetActionOnAnotherView() {
      // Register for changes to multiple traits on another view
      let anotherView: MyView = self.anotherView
      anotherView.registerForTraitChanges(
        [TraitHorizontalSizeClass.self, ContainedInSettingsTrait.self],
        target: self,
        action: MyController.handleTraitChange(view:previousTraitCollection:)
      )
    }

    // NB: `@objc` dropped: there is no Objective-C runtime here, and the action is a Swift method
    // reference, not a selector.
    func handleTraitChange(view: MyView, previousTraitCollection: TraitCollection) {
      // Handle the trait change for this view...
      handledTraitChanges.append((view, previousTraitCollection))
    }
  }

  /// A window scene stand-in: the root of a graph whose single child is `controller`.
  private static func hosting<Controller: TraitNode>(
    _ controller: Controller
  ) -> TraitGraph {
    let graph = TraitGraph()
    graph.root.addTraitChild(controller)
    graph.updateTraitsIfNeeded()
    return graph
  }

  @Test(
    "18:05 toggleThemeOverride applies an override, then removes it to restore the inherited theme"
  )
  func toggleThemeOverride() {
    let controller = MyController()
    let graph = Self.hosting(controller)
    graph.root.traitOverrides.myAppTheme = .pastel
    graph.updateTraitsIfNeeded()
    var themes: [(previous: MyAppTheme, current: MyAppTheme)] = []
    controller.anotherView.registerForTraitChanges([MyAppThemeTrait.self]) {
      (view: MyView, previousTraitCollection: TraitCollection) in
      themes.append((previousTraitCollection.myAppTheme, view.traitCollection.myAppTheme))
    }

    controller.toggleThemeOverride(.monochrome)
    #expect(controller.view.traitOverrides.contains(MyAppThemeTrait.self))
    #expect(controller.view.traitOverrides.value(for: MyAppThemeTrait.self) == .monochrome)
    #expect(controller.anotherView.traitCollection.myAppTheme == .monochrome)
    #expect(controller.traitCollection.myAppTheme == .pastel)
    graph.updateTraitsIfNeeded()

    controller.toggleThemeOverride(.bold)
    #expect(!controller.view.traitOverrides.contains(MyAppThemeTrait.self))
    #expect(controller.anotherView.traitCollection.myAppTheme == .pastel)
    graph.updateTraitsIfNeeded()

    #expect(themes.map(\.previous) == [.pastel, .monochrome])
    #expect(themes.map(\.current) == [.monochrome, .pastel])
  }

  @Test("18:05 toggling twice between two passes delivers nothing")
  func toggleThemeOverrideTwiceBetweenPasses() {
    let controller = MyController()
    let graph = Self.hosting(controller)
    var calls = 0
    controller.anotherView.registerForTraitChanges([MyAppThemeTrait.self]) {
      (_: MyView, _: TraitCollection) in
      calls += 1
    }

    controller.toggleThemeOverride(.bold)
    controller.toggleThemeOverride(.bold)
    graph.updateTraitsIfNeeded()

    #expect(calls == 0)
    #expect(!controller.view.traitOverrides.contains(MyAppThemeTrait.self))
  }

  @Test("21:28 the closure registered on self runs with self for size-class changes only")
  func closureOnSelf() {
    let controller = MyController()
    let graph = Self.hosting(controller)
    controller.anotherView.registerClosureOnSelf()
    graph.updateTraitsIfNeeded()
    #expect(controller.anotherView.sizeClassUpdates.isEmpty)

    controller.view.traitOverrides.isContainedInSettings = true
    controller.view.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(controller.anotherView.sizeClassUpdates.isEmpty)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    controller.view.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()

    #expect(controller.anotherView.sizeClassUpdates == [.compact, .regular])
  }

  @Test(
    "21:28 the closure registered on another view gets that view, once per change of its traits"
  )
  func closureOnAnotherView() throws {
    let controller = MyController()
    let graph = Self.hosting(controller)
    controller.registerClosureOnAnotherView()
    let anotherView = controller.anotherView

    controller.view.traitOverrides.isContainedInSettings = true
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.horizontalSizeClass = .regular
    controller.traitOverrides.isContainedInSettings = false
    controller.view.traitOverrides.remove(ContainedInSettingsTrait.self)
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    let previous = anotherView.changesHandledForThisView
    #expect(previous.count == 2)
    let first = try #require(previous.first)
    #expect(first.isContainedInSettings == false)
    #expect(first.horizontalSizeClass == .unspecified)
    let second = try #require(previous.last)
    #expect(second.isContainedInSettings == true)
    #expect(second.horizontalSizeClass == .unspecified)
  }

  @Test("22:48 the action registered on self without a target calls View.setNeedsLayout on self")
  func actionOnSelf() {
    let controller = MyController()
    let graph = Self.hosting(controller)
    controller.anotherView.registerActionOnSelf()

    controller.view.traitOverrides.isContainedInSettings = true
    graph.updateTraitsIfNeeded()
    #expect(controller.anotherView.layoutRequests == 0)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(controller.anotherView.layoutRequests == 1)
    #expect(controller.anotherView.sizeClassAtLastLayoutRequest == .compact)
    #expect(controller.view.layoutRequests == 0)
  }

  @Test(
    "22:48 the target-action form calls the controller with the view and the previous traits"
  )
  func targetActionOnAnotherView() throws {
    let controller = MyController()
    let graph = Self.hosting(controller)
    controller.registerTargetActionOnAnotherView()
    graph.updateTraitsIfNeeded()
    #expect(controller.handledTraitChanges.isEmpty)

    controller.traitOverrides.horizontalSizeClass = .compact
    controller.traitOverrides.isContainedInSettings = true
    graph.updateTraitsIfNeeded()
    controller.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(controller.handledTraitChanges.count == 1)
    let change = try #require(controller.handledTraitChanges.first)
    #expect(change.view === controller.anotherView)
    #expect(change.previous.horizontalSizeClass == .unspecified)
    #expect(change.previous.isContainedInSettings == false)
  }

  @Test("22:48 the view does not keep its target, the controller that owns it, alive")
  func targetActionDoesNotRetainController() {
    let graph = TraitGraph()
    weak var weakController: MyController?
    weak var weakView: MyView?
    do {
      let controller = MyController()
      weakController = controller
      weakView = controller.anotherView
      graph.root.addTraitChild(controller)
      controller.registerTargetActionOnAnotherView()
      controller.registerClosureOnAnotherView()
      controller.anotherView.registerClosureOnSelf()
      controller.anotherView.registerActionOnSelf()
      #expect(graph.statistics.liveRegistrations == 4)
      controller.removeFromTraitParent()
    }
    #expect(weakController == nil)
    #expect(weakView == nil)
    #expect(graph.statistics.liveRegistrations == 0)
  }

  // MARK: - Seed 001 sample

  /// A stand-in for `UICollectionView`: only the property the seed sets.
  final class CollectionView {
    var contentInset = NSDirectionalEdgeInsets(top: 0, leading: 0, bottom: 0, trailing: 0)
  }

  class TaskListViewController: ViewController {
    let collectionView = CollectionView()

    override func viewDidLoad() {
      super.viewDidLoad()

      registerForTraitChanges([UIDensityTrait.self]) {
        (self: Self, previousTraitCollection: TraitCollection) in
        self.updateLayoutForCurrentDensity()
      }
    }

    private func updateLayoutForCurrentDensity() {
      let margins = traitCollection.uiDensity.cellMargins
      collectionView.contentInset = margins
    }
  }

  /// Seed 001's `DensityManager`.
  ///
  /// NB: adapted, not verbatim: Combine's `ObservableObject` and `@Published` do not exist on
  /// Linux, and `UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }` is
  /// modelled by the `connectedScenes` the manager is given.
  final class DensityManager {
    let connectedScenes: [TraitNode]

    init(connectedScenes: [TraitNode]) {
      self.connectedScenes = connectedScenes
    }

    var currentDensity: UIDensity = .default {
      didSet {
        updateAllScenes()
      }
    }

    // NB: the seed's `forEach` kept as written, against the house lint rule.
    // swift-format-ignore: ReplaceForEachWithForLoop
    private func updateAllScenes() {
      connectedScenes
        .forEach { scene in
          scene.traitOverrides.uiDensity = currentDensity
        }
    }
  }

  @Test("001 the density manager's scene overrides reach the observers of every scene")
  func densityManagerUpdatesAllScenes() {
    let graph = TraitGraph()
    let scenes = graph.root.gtAdd(GTNode("first scene"), GTNode("second scene"))
    let controllers = scenes.map { scene in
      let controller = TaskListViewController()
      scene.addTraitChild(controller)
      controller.viewDidLoad()
      return controller
    }
    graph.updateTraitsIfNeeded()
    let manager = DensityManager(connectedScenes: scenes)

    manager.currentDensity = .compact
    #expect(scenes.allSatisfy { $0.traitOverrides.value(for: UIDensityTrait.self) == .compact })
    graph.updateTraitsIfNeeded()

    #expect(
      controllers.map(\.collectionView.contentInset) == [
        UIDensity.compact.cellMargins, UIDensity.compact.cellMargins,
      ]
    )
    manager.currentDensity = .compact
    #expect(graph.statistics.lastPass.callbacksDelivered == 2)
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.rounds == 0)
  }

  @Test("001 the density observer is not called on registration, only when the density changes")
  func densityObserver() {
    let scene = GTNode("window scene")
    let graph = TraitGraph()
    graph.root.addTraitChild(scene)
    let controller = TaskListViewController()
    scene.addTraitChild(controller)
    let untouched = NSDirectionalEdgeInsets(top: 0, leading: 0, bottom: 0, trailing: 0)

    controller.viewDidLoad()
    graph.updateTraitsIfNeeded()
    // The blog says "The system calls your handler once upon registration to set the initial
    // state". It does not (DESIGN R7, as in UIKit): the inset is still the untouched one.
    #expect(controller.collectionView.contentInset == untouched)

    scene.traitOverrides.uiDensity = .compact
    #expect(controller.collectionView.contentInset == untouched)
    graph.updateTraitsIfNeeded()
    #expect(controller.collectionView.contentInset == UIDensity.compact.cellMargins)

    scene.traitOverrides.uiDensity = .default
    graph.updateTraitsIfNeeded()
    #expect(controller.collectionView.contentInset == UIDensity.default.cellMargins)
  }

  @Test("001 the density observer does not run for other traits")
  func densityObserverIgnoresOtherTraits() {
    let graph = TraitGraph()
    let controller = TaskListViewController()
    graph.root.addTraitChild(controller)
    controller.viewDidLoad()
    graph.updateTraitsIfNeeded()
    let untouched = controller.collectionView.contentInset

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.root.traitOverrides.myAppTheme = .bold
    graph.updateTraitsIfNeeded()

    #expect(controller.collectionView.contentInset == untouched)
  }

  // MARK: - Seed 004 samples

  class SizeClassAdaptingViewController: ViewController {
    private(set) var layoutUpdates: [Bool] = []

    override func viewDidLoad() {
      super.viewDidLoad()

      registerForTraitChanges([
        TraitHorizontalSizeClass.self,
        TraitVerticalSizeClass.self,
      ]) { (self: Self, previousTraitCollection: TraitCollection) in
        self.updateLayout()
      }
    }

    func updateLayout() {
      let isCompact = traitCollection.horizontalSizeClass == .compact
      // Update your layout based on the size class.
      layoutUpdates.append(isCompact)
    }
  }

  class ColorAdaptingViewController: ViewController {
    private(set) var colorUpdates = 0

    override func viewDidLoad() {
      super.viewDidLoad()

      registerForTraitChanges(TraitCollection.systemTraitsAffectingColorAppearance) {
        (self: Self, previousTraitCollection: TraitCollection) in
        self.updateColors()
      }
    }

    func updateColors() {
      colorUpdates += 1
    }
  }

  class TraitObservingViewController: ViewController {
    private(set) var layoutUpdates = 0

    private var traitRegistration: TraitChangeRegistration?

    func startObservingTraits() {
      traitRegistration = registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (self: Self, previousTraitCollection: TraitCollection) in
        self.updateLayout()
      }
    }

    func stopObservingTraits() {
      unregisterForTraitChanges(traitRegistration)
      traitRegistration = nil
    }

    func updateLayout() {
      layoutUpdates += 1
    }
  }

  class MigratedViewController: ViewController {
    private(set) var layoutUpdates: [UserInterfaceSizeClass] = []

    override func viewDidLoad() {
      super.viewDidLoad()

      registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (self: Self, previousTraitCollection: TraitCollection) in
        self.updateLayout()
      }
    }

    func updateLayout() {
      layoutUpdates.append(traitCollection.horizontalSizeClass)
    }
  }

  @Test("004 the size-class handler runs whenever either registered size class changes")
  func sizeClassRegistration() {
    let controller = SizeClassAdaptingViewController()
    let graph = Self.hosting(controller)
    controller.viewDidLoad()
    graph.updateTraitsIfNeeded()
    #expect(controller.layoutUpdates.isEmpty)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.verticalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.root.traitOverrides.preferredContentSizeCategory = .extraLarge
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.root.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(controller.layoutUpdates == [true, true, false])
  }

  @Test(
    "004 a registration for the color-appearance set runs once per pass, and only for its traits"
  )
  func colorAppearanceRegistration() {
    let controller = ColorAdaptingViewController()
    let graph = Self.hosting(controller)
    controller.viewDidLoad()
    graph.updateTraitsIfNeeded()
    #expect(controller.colorUpdates == 0)

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.root.traitOverrides.accessibilityContrast = .high
    graph.root.traitOverrides.userInterfaceLevel = .elevated
    graph.updateTraitsIfNeeded()
    #expect(controller.colorUpdates == 1)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.root.traitOverrides.legibilityWeight = .bold
    graph.root.traitOverrides.myAppTheme = .monochrome
    graph.updateTraitsIfNeeded()
    #expect(controller.colorUpdates == 1)

    controller.traitOverrides.listEnvironment = .insetGrouped
    graph.updateTraitsIfNeeded()
    #expect(controller.colorUpdates == 2)
  }

  @Test("004 stopObservingTraits unregisters with the optional token, and stopping twice is safe")
  func startAndStopObserving() {
    let controller = TraitObservingViewController()
    let graph = Self.hosting(controller)

    controller.startObservingTraits()
    #expect(graph.statistics.liveRegistrations == 1)
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(controller.layoutUpdates == 1)

    controller.stopObservingTraits()
    #expect(graph.statistics.liveRegistrations == 0)
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    #expect(controller.layoutUpdates == 1)

    controller.stopObservingTraits()
    controller.startObservingTraits()
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(controller.layoutUpdates == 2)
    #expect(graph.statistics.liveRegistrations == 1)
  }

  @Test("004 the migrated registration runs for horizontal size class changes only")
  func migratedRegistration() {
    let controller = MigratedViewController()
    let graph = Self.hosting(controller)
    controller.viewDidLoad()

    graph.root.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()

    #expect(controller.layoutUpdates == [.regular])
  }

  @Test("004 registrations live as long as their view controller and go away with it")
  func registrationsLiveWithTheirController() {
    let graph = TraitGraph()
    weak var weakController: MigratedViewController?
    do {
      let controller = MigratedViewController()
      weakController = controller
      graph.root.addTraitChild(controller)
      controller.viewDidLoad()
      graph.updateTraitsIfNeeded()
      #expect(graph.statistics.liveRegistrations == 1)
      graph.root.traitOverrides.horizontalSizeClass = .compact
      graph.updateTraitsIfNeeded()
      #expect(controller.layoutUpdates == [.compact])
      controller.removeFromTraitParent()
    }
    #expect(weakController == nil)
    #expect(graph.statistics.liveRegistrations == 0)
  }
}
