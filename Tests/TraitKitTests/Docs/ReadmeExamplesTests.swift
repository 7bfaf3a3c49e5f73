// The README's quick start and the main samples of the TraitKit.docc articles, verbatim. Every
// ```swift block of README.md and of Sources/TraitKit/TraitKit.docc appears in this file (the
// last test checks it, and checks those of TraitKitLegacy.docc against
// Tests/TraitKitLegacyTests/Docs/MigrationExamplesTests.swift), and each test asserts what the
// prose around its samples says happens.
// Declarations come first, in the order the documents show them; statements are in the tests.
// Type names start with `Document` (as in "the document editor" the samples build), so that they
// cannot clash with the fixtures of other suites in this module.

import Foundation
import Testing
import TraitKit

enum DocumentMode: Int {
  case reading
  case editing
}

struct DocumentModeTrait: TraitDefinition {
  static let defaultValue = DocumentMode.reading
}

extension TraitCollection {
  var documentMode: DocumentMode { self[DocumentModeTrait.self] }
}

extension MutableTraits {
  var documentMode: DocumentMode {
    get { self[DocumentModeTrait.self] }
    set { self[DocumentModeTrait.self] = newValue }
  }
}

enum DocumentTheme: Int, Codable {
  case standard
  case sepia
  case highContrast
}

struct DocumentThemeTrait: TraitDefinition {
  static let defaultValue = DocumentTheme.standard
  static let affectsColorAppearance = true
  static let name = "DocumentTheme"
  static let identifier = "com.example.document.theme"
}

extension TraitCollection {
  var documentTheme: DocumentTheme { self[DocumentThemeTrait.self] }
}

extension MutableTraits {
  var documentTheme: DocumentTheme {
    get { self[DocumentThemeTrait.self] }
    set { self[DocumentThemeTrait.self] = newValue }
  }
}

// MARK: - Observing trait changes

final class DocumentPageView: TraitNode {
  private(set) var layoutRequests = 0
  private(set) var colorUpdates = 0
  private(set) var appliedModes: [DocumentMode] = []
  private var modeRegistration: TraitChangeRegistration?

  override init() {
    super.init()
    registerForTraitChanges(
      [TraitHorizontalSizeClass.self],
      action: DocumentPageView.setNeedsLayout
    )
    registerForTraitChanges(
      TraitCollection.systemTraitsAffectingColorAppearance + [DocumentThemeTrait.self]
    ) { (self: Self, previousTraitCollection: TraitCollection) in
      self.updateColors()
    }
  }

  func startObservingMode() {
    modeRegistration = registerForTraitChanges([DocumentModeTrait.self]) {
      (self: Self, previousTraitCollection: TraitCollection) in
      self.apply(self.traitCollection.documentMode)
    }
  }

  func stopObservingMode() {
    unregisterForTraitChanges(modeRegistration)
    modeRegistration = nil
  }

  func setNeedsLayout() { layoutRequests += 1 }
  func updateColors() { colorUpdates += 1 }
  func apply(_ mode: DocumentMode) { appliedModes.append(mode) }
}

final class DocumentController: TraitNode {
  let pageView = DocumentPageView()
  private(set) var toolbarReloads = 0
  private(set) var pagesInEditingMode = 0
  private(set) var previousSizeClasses: [UserInterfaceSizeClass] = []

  override init() {
    super.init()
    addTraitChild(pageView)
    pageView.registerForTraitChanges(
      [TraitHorizontalSizeClass.self, DocumentModeTrait.self],
      target: self,
      action: DocumentController.reloadToolbar
    )
    pageView.registerForTraitChanges(
      [DocumentModeTrait.self],
      target: self,
      action: DocumentController.pageModeDidChange(_:)
    )
    pageView.registerForTraitChanges(
      [TraitHorizontalSizeClass.self],
      target: self,
      action: DocumentController.handleTraitChange(view:previousTraitCollection:)
    )
  }

  func reloadToolbar() { toolbarReloads += 1 }

  func pageModeDidChange(_ view: DocumentPageView) {
    if view.traitCollection.documentMode == .editing { pagesInEditingMode += 1 }
  }

  func handleTraitChange(view: DocumentPageView, previousTraitCollection: TraitCollection) {
    previousSizeClasses.append(previousTraitCollection.horizontalSizeClass)
  }
}

final class DocumentToolbar {
  private(set) var reloads = 0

  func reload() { reloads += 1 }
}

// MARK: - Automatic trait tracking

final class DocumentLayoutView: TraitNode {
  var needsLayout = true
  var needsDisplay = true
  private(set) var appliedLayouts: [UserInterfaceSizeClass] = []
  private(set) var draws = 0

  func layoutIfNeeded() {
    guard needsLayout else { return }
    needsLayout = false
    withTraitTracking(slot: .layout, invalidation: DocumentLayoutView.invalidateLayout(of:)) {
      layoutSubviews()
    }
  }

  static func invalidateLayout(of node: TraitNode) {
    (node as? DocumentLayoutView)?.needsLayout = true
  }

  func layoutSubviews() {
    if traitCollection.horizontalSizeClass == .compact {
      applyLayout(.compact)
    } else {
      applyLayout(.regular)
    }
  }

  func displayIfNeeded() {
    guard needsDisplay else { return }
    needsDisplay = false
    withTraitTracking(slot: .display, invalidation: DocumentLayoutView.invalidateDisplay(of:)) {
      draw()
    }
  }

  static func invalidateDisplay(of node: TraitNode) {
    (node as? DocumentLayoutView)?.needsDisplay = true
  }

  func draw() {
    let dark = traitCollection.userInterfaceStyle == .dark
    let increased = traitCollection.accessibilityContrast == .high
    fill(dark: dark, increasedContrast: increased)
  }

  func applyLayout(_ sizeClass: UserInterfaceSizeClass) { appliedLayouts.append(sizeClass) }
  func fill(dark: Bool, increasedContrast: Bool) { draws += 1 }
}

// MARK: - Differences from UIKit

struct DocumentTitleTrait: TraitDefinition {
  static let defaultValue = ""

  static func valuesEqual(_ lhs: String, _ rhs: String) -> Bool {
    lhs.lowercased() == rhs.lowercased()
  }
}

struct DocumentCursor: Sendable {  // 8 bytes of plain data, not Equatable
  var line: Int32
  var column: Int32
}

struct DocumentCursorTrait: TraitDefinition {
  static let defaultValue = DocumentCursor(line: 0, column: 0)
}

struct DocumentAspectTrait: TraitDefinition {
  static let defaultValue: Double? = nil  // boxed: 9 bytes
}

struct DocumentZoomTrait: TraitDefinition {
  static let defaultValue = 100
  static let identifier = "com.example.document.zoom"
}

// MARK: - Tests

@Suite("README and documentation examples")
struct ReadmeExamplesTests {
  // MARK: README

  @Test("the README quick start calls the handler once, after the pass, with the previous mode")
  func readmeQuickStart() {
    let graph = TraitGraph()
    let page = TraitNode()
    graph.root.addTraitChild(page)

    // Register for the traits you use. The handler receives the observed node: no [weak self].
    var previousModes: [DocumentMode] = []
    page.registerForTraitChanges([DocumentModeTrait.self]) {
      (page: TraitNode, previousTraitCollection: TraitCollection) in
      previousModes.append(previousTraitCollection.documentMode)
    }

    // Overrides flow down the tree. Values are current at once; handlers wait for the pass.
    graph.root.traitOverrides.documentMode = .editing
    let modeBeforePass = page.traitCollection.documentMode  // .editing
    graph.updateTraitsIfNeeded()  // calls the handler once: previousModes == [.reading]

    #expect(modeBeforePass == .editing)
    #expect(previousModes == [.reading])
    #expect(page.traitCollection.documentMode == .editing)
    graph.updateTraitsIfNeeded()
    #expect(previousModes == [.reading])
  }

  // MARK: Getting started

  @Test("getting started: collections are values, and a set default equals an unset trait")
  func gettingStartedCollections() {
    let editing = TraitCollection { mutableTraits in
      mutableTraits.documentMode = .editing
      mutableTraits.horizontalSizeClass = .regular
    }
    let compactEditing = editing.modifyingTraits { mutableTraits in
      mutableTraits.horizontalSizeClass = .compact
    }
    let sepia = TraitCollection(DocumentThemeTrait.self, value: .sepia)
    let merged = TraitCollection(traitsFrom: [compactEditing, sepia])

    #expect(editing.documentMode == .editing)
    #expect(editing.horizontalSizeClass == .regular)
    #expect(compactEditing.documentMode == .editing)
    #expect(compactEditing.horizontalSizeClass == .compact)
    #expect(merged.documentMode == .editing)
    #expect(merged.horizontalSizeClass == .compact)
    #expect(merged.documentTheme == .sepia)

    let changed = compactEditing.changedTraits(from: editing)  // [TraitHorizontalSizeClass.self]
    let reading = TraitCollection(DocumentModeTrait.self, value: .reading)
    let isDefault = reading == TraitCollection()  // true: .reading is the default

    #expect(
      changed.map { ObjectIdentifier($0) } == [ObjectIdentifier(TraitHorizontalSizeClass.self)]
    )
    #expect(isDefault)
    #expect(TraitCollection().documentMode == .reading)
  }

  @Test("getting started: overrides flow down at once, and the pass calls the handler once")
  func gettingStartedTree() {
    let graph = TraitGraph(baseTraits: TraitCollection { $0.userInterfaceIdiom = .pad })
    let window = TraitNode()
    let page = TraitNode()
    graph.root.addTraitChild(window)
    window.addTraitChild(page)

    #expect(page.traitParent === window)
    #expect(window.traitChildren.count == 1 && window.traitChildren.first === page)
    #expect(page.traitCollection.userInterfaceIdiom == .pad)

    window.traitOverrides.documentMode = .editing
    let mode = page.traitCollection.documentMode  // .editing, inherited from the window
    let overridden = window.traitOverrides.contains(DocumentModeTrait.self)  // true

    #expect(mode == .editing)
    #expect(overridden)
    #expect(!page.traitOverrides.contains(DocumentModeTrait.self))

    var previousModes: [DocumentMode] = []
    page.registerForTraitChanges([DocumentModeTrait.self]) {
      (page: TraitNode, previousTraitCollection: TraitCollection) in
      previousModes.append(previousTraitCollection.documentMode)
    }

    #expect(previousModes.isEmpty)

    window.traitOverrides.remove(DocumentModeTrait.self)
    graph.updateTraitsIfNeeded()  // one call: previousModes == [.editing]

    #expect(previousModes == [.editing])
    #expect(page.traitCollection.documentMode == .reading)
    #expect(graph.statistics.lastPass.callbacksDelivered == 1)
  }

  // MARK: Observing trait changes

  @Test("observing: the self forms call the page's own methods, only for their traits")
  func observingSelfForms() {
    let graph = TraitGraph()
    let page = DocumentPageView()
    graph.root.addTraitChild(page)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(page.layoutRequests == 1)
    #expect(page.colorUpdates == 0)

    graph.root.traitOverrides.documentTheme = .sepia
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(page.colorUpdates == 1)
    #expect(page.layoutRequests == 1)
  }

  @Test("observing: a kept token stops one registration and leaves the others")
  func observingTokens() {
    let graph = TraitGraph()
    let page = DocumentPageView()
    graph.root.addTraitChild(page)

    page.startObservingMode()
    graph.root.traitOverrides.documentMode = .editing
    graph.updateTraitsIfNeeded()
    #expect(page.appliedModes == [.editing])

    page.stopObservingMode()
    page.stopObservingMode()
    graph.root.traitOverrides.documentMode = .reading
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    #expect(page.appliedModes == [.editing])
    #expect(page.layoutRequests == 1)
  }

  @Test("observing: another object's closure and the three target-action forms each run once")
  func observingOtherObjects() {
    let graph = TraitGraph()
    let controller = DocumentController()
    graph.root.addTraitChild(controller)

    var modesSeen: [DocumentMode] = []
    let pageView = controller.pageView
    pageView.registerForTraitChanges([TraitHorizontalSizeClass.self, DocumentModeTrait.self]) {
      (view: DocumentPageView, previousTraitCollection: TraitCollection) in
      modesSeen.append(view.traitCollection.documentMode)
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.root.traitOverrides.documentMode = .editing
    graph.updateTraitsIfNeeded()

    #expect(modesSeen == [.editing])
    #expect(controller.toolbarReloads == 1)
    #expect(controller.pagesInEditingMode == 1)
    #expect(controller.previousSizeClasses == [.unspecified])
  }

  @Test("observing: a semantic set combines with a custom trait")
  func observingSemanticSets() {
    let traits = TraitCollection.systemTraitsAffectingColorAppearance + [DocumentThemeTrait.self]
    #expect(traits.count == 7)
    #expect(DocumentThemeTrait.affectsColorAppearance)
    let before = TraitCollection()
    let after = before.replacing(DocumentThemeTrait.self, value: .highContrast)
    #expect(after.hasDifferentColorAppearance(comparedTo: before))
  }

  @Test("observing: registering calls nothing; later changes are delivered at most once a round")
  func observingNoInitialCallAndOncePerRound() {
    let graph = TraitGraph()
    let page = TraitNode()
    graph.root.addTraitChild(page)
    graph.root.traitOverrides.horizontalSizeClass = .compact

    var calls = 0
    page.registerForTraitChanges([TraitHorizontalSizeClass.self, TraitVerticalSizeClass.self]) {
      (page: TraitNode, previousTraitCollection: TraitCollection) in
      calls += 1
    }
    graph.updateTraitsIfNeeded()  // calls == 0: the registration came after the change

    #expect(calls == 0)

    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.root.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()  // calls == 1: one call for both traits

    #expect(calls == 1)

    graph.root.traitOverrides.verticalSizeClass = .regular
    graph.root.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()  // calls == 1: changed and changed back before the pass

    #expect(calls == 1)
  }

  @Test("observing: parents before children, and a node's registrations in the order made")
  func observingOrder() {
    let graph = TraitGraph()
    let parent = TraitNode()
    let child = TraitNode()
    graph.root.addTraitChild(parent)
    parent.addTraitChild(child)

    var order: [String] = []
    child.registerForTraitChanges([DocumentModeTrait.self]) { (_: TraitNode, _: TraitCollection) in
      order.append("child, first")
    }
    child.registerForTraitChanges([DocumentModeTrait.self]) { (_: TraitNode, _: TraitCollection) in
      order.append("child, second")
    }
    parent.registerForTraitChanges([DocumentModeTrait.self]) { (_: TraitNode, _: TraitCollection) in
      order.append("parent")
    }
    graph.root.traitOverrides.documentMode = .editing
    graph.updateTraitsIfNeeded()  // order == ["parent", "child, first", "child, second"]

    #expect(order == ["parent", "child, first", "child, second"])
  }

  @Test("observing: TraitCollection.current is the observed node's collection during a handler")
  func observingCurrent() {
    let graph = TraitGraph()
    let page = TraitNode()
    graph.root.addTraitChild(page)

    var themes: [DocumentTheme] = []
    page.registerForTraitChanges([DocumentThemeTrait.self]) {
      (page: TraitNode, previousTraitCollection: TraitCollection) in
      themes.append(TraitCollection.current.documentTheme)  // page.traitCollection's theme
    }
    page.traitOverrides.documentTheme = .sepia
    graph.updateTraitsIfNeeded()  // themes == [.sepia]

    let outside = TraitCollection.current.documentTheme  // .standard: no pass is running
    let inside = TraitCollection(DocumentThemeTrait.self, value: .highContrast).performAsCurrent {
      TraitCollection.current.documentTheme  // .highContrast
    }

    #expect(themes == [.sepia])
    #expect(outside == .standard)
    #expect(inside == .highContrast)
  }

  @Test("observing: a detached node's registrations stop counting, and end with the node")
  func observingLifetime() {
    let graph = TraitGraph()

    weak var weakPage: DocumentPageView?
    var registrationsWhileAttached = 0
    do {
      let temporaryPage = DocumentPageView()
      weakPage = temporaryPage
      graph.root.addTraitChild(temporaryPage)
      registrationsWhileAttached = graph.statistics.liveRegistrations  // 2
      temporaryPage.removeFromTraitParent()
    }
    // weakPage == nil: the page is gone, and its registrations with it. Nothing to unregister.

    #expect(registrationsWhileAttached == 2)
    #expect(weakPage == nil)
    #expect(graph.statistics.liveRegistrations == 0)
  }

  @Test("observing: a dead target's registration counts until a pass skips it and removes it")
  func observingDeadTarget() {
    let graph = TraitGraph()
    let page = TraitNode()
    graph.root.addTraitChild(page)

    do {
      let toolbar = DocumentToolbar()
      page.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: toolbar,
        action: DocumentToolbar.reload
      )
    }
    // The toolbar is gone: the registration held it weakly. It counts until a pass meets it.
    let registrationsBeforePass = graph.statistics.liveRegistrations  // 1
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()  // skips the dead target's registration, and removes it
    let registrationsAfterPass = graph.statistics.liveRegistrations  // 0

    #expect(registrationsBeforePass == 1)
    #expect(registrationsAfterPass == 0)
    #expect(graph.statistics.lastPass.callbacksDelivered == 0)
  }

  // MARK: Automatic trait tracking

  @Test("tracking: a layout is invalidated by the traits it read, and by no others")
  func trackingLayout() {
    let graph = TraitGraph()
    let view = DocumentLayoutView()
    graph.root.addTraitChild(view)
    view.layoutIfNeeded()  // the first layout records that it read horizontalSizeClass

    graph.root.traitOverrides.documentMode = .editing
    graph.updateTraitsIfNeeded()  // a trait the layout did not read: nothing to invalidate

    #expect(!view.needsLayout)
    #expect(graph.statistics.lastPass.invalidationsDelivered == 0)

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()  // runs the invalidation: view.needsLayout is true again

    #expect(view.needsLayout)
    #expect(graph.statistics.lastPass.invalidationsDelivered == 1)

    view.layoutIfNeeded()  // lays out for .compact, recording the reads anew

    #expect(view.appliedLayouts == [.regular, .compact])
    #expect(!view.needsLayout)
  }

  @Test("tracking: the invalidation runs before the node's registrations")
  func trackingBeforeRegistrations() {
    let graph = TraitGraph()
    let view = DocumentLayoutView()
    graph.root.addTraitChild(view)
    view.layoutIfNeeded()

    var layoutWasInvalidated: [Bool] = []
    view.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (view: DocumentLayoutView, previousTraitCollection: TraitCollection) in
      layoutWasInvalidated.append(view.needsLayout)
    }
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()  // layoutWasInvalidated == [true]

    #expect(layoutWasInvalidated == [true])
  }

  @Test("tracking: a slot is invalidated once per pass however many of its traits changed")
  func trackingOncePerPass() {
    let graph = TraitGraph()
    let view = DocumentLayoutView()
    graph.root.addTraitChild(view)
    view.layoutIfNeeded()
    view.displayIfNeeded()  // the drawing reads userInterfaceStyle and accessibilityContrast

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.root.traitOverrides.accessibilityContrast = .high
    graph.updateTraitsIfNeeded()  // one invalidation of the display slot; the layout is untouched

    #expect(view.needsDisplay)
    #expect(!view.needsLayout)
    #expect(graph.statistics.lastPass.invalidationsDelivered == 1)

    view.displayIfNeeded()
    #expect(view.draws == 2)
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.invalidationsDelivered == 0)
  }

  // MARK: The update pass and its cost

  @Test("update pass: a handler's change to a node already visited gets a second round")
  func updatePassRounds() {
    let graph = TraitGraph()
    let sidebar = TraitNode()
    let editor = TraitNode()
    graph.root.addTraitChild(sidebar)
    graph.root.addTraitChild(editor)

    var sidebarModes: [DocumentMode] = []
    sidebar.registerForTraitChanges([DocumentModeTrait.self]) {
      (sidebar: TraitNode, previousTraitCollection: TraitCollection) in
      sidebarModes.append(sidebar.traitCollection.documentMode)
    }
    editor.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (editor: TraitNode, previousTraitCollection: TraitCollection) in
      let regular = editor.traitCollection.horizontalSizeClass == .regular
      sidebar.traitOverrides.documentMode = regular ? .editing : .reading
    }

    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()  // round 1 calls the editor, round 2 the sidebar
    let rounds = graph.statistics.lastPass.rounds  // 2

    #expect(sidebarModes == [.editing])
    #expect(rounds == 2)
    #expect(graph.statistics.lastPass.callbacksDelivered == 2)
  }

  @Test("update pass: a subtree pass delivers within its subtree and leaves the graph dirty")
  func updatePassSubtree() {
    let graph = TraitGraph()
    let sidebar = TraitNode()
    let editor = TraitNode()
    graph.root.addTraitChild(sidebar)
    graph.root.addTraitChild(editor)
    var calls: [String] = []
    sidebar.registerForTraitChanges([DocumentThemeTrait.self]) {
      (_: TraitNode, _: TraitCollection) in
      calls.append("sidebar")
    }
    editor.registerForTraitChanges([DocumentThemeTrait.self]) {
      (_: TraitNode, _: TraitCollection) in
      calls.append("editor")
    }

    var passRequests = 0
    graph.onNeedsUpdate = { passRequests += 1 }

    graph.root.traitOverrides.documentTheme = .sepia
    editor.updateTraitsIfNeeded()  // calls == ["editor"]; the sidebar waits
    editor.traitOverrides.documentTheme = .highContrast  // the graph is still dirty: no request
    graph.updateTraitsIfNeeded()  // calls == ["editor", "sidebar", "editor"]

    #expect(calls == ["editor", "sidebar", "editor"])
    #expect(passRequests == 1)
  }

  @Test("update pass: onNeedsUpdate runs once per clean-to-dirty change, for observed traits only")
  func updatePassOnNeedsUpdate() {
    let graph = TraitGraph()
    let page = TraitNode()
    graph.root.addTraitChild(page)
    page.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: TraitNode, _: TraitCollection) in
    }

    var passRequests = 0
    graph.onNeedsUpdate = { passRequests += 1 }  // a host would schedule a pass here

    graph.root.traitOverrides.horizontalSizeClass = .compact  // observed: passRequests == 1
    page.traitOverrides.horizontalSizeClass = .regular  // already dirty: passRequests == 1
    graph.updateTraitsIfNeeded()  // the graph is clean again
    graph.root.traitOverrides.userInterfaceStyle = .dark  // nobody observes it: passRequests == 1
    graph.root.traitOverrides.horizontalSizeClass = .compact  // an equal write: passRequests == 1

    #expect(passRequests == 1)
    #expect(page.traitCollection.userInterfaceStyle == .dark)  // changed, but nobody is told
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.rounds == 0)  // the graph stayed clean: nothing to deliver
  }

  @Test("update pass: a change reaches its one observer among a thousand nodes in two visits")
  func updatePassCost() {
    let graph = TraitGraph()
    let pages = (0..<1_000).map { _ in TraitNode() }
    for page in pages { graph.root.addTraitChild(page) }
    pages[0].registerForTraitChanges([DocumentThemeTrait.self]) {
      (_: TraitNode, _: TraitCollection) in
    }

    graph.root.traitOverrides.documentTheme = .sepia
    graph.updateTraitsIfNeeded()
    let statistics = graph.statistics
    // statistics.liveNodes == 1_001          the root and the pages
    // statistics.liveRegistrations == 1
    // statistics.lastPass.rounds == 1
    // statistics.lastPass.nodesVisited == 2  the root and pages[0]
    // statistics.lastPass.callbacksDelivered == 1

    #expect(statistics.liveNodes == 1_001)
    #expect(statistics.liveRegistrations == 1)
    #expect(statistics.lastPass.rounds == 1)
    #expect(statistics.lastPass.nodesVisited == 2)
    #expect(statistics.lastPass.callbacksDelivered == 1)
    #expect(statistics.lastPass.invalidationsDelivered == 0)
  }

  // MARK: Differences from UIKit

  @Test("differences: collections are never stale, and reading a missing override is nil")
  func differencesNeverStale() {
    let graph = TraitGraph()
    let page = TraitNode()
    graph.root.addTraitChild(page)

    graph.root.traitOverrides.userInterfaceStyle = .dark
    let style = page.traitCollection.userInterfaceStyle  // .dark, before any pass
    let override = page.traitOverrides.value(for: DocumentModeTrait.self)  // nil, no trap
    page.unregisterForTraitChanges(nil)  // does nothing

    #expect(style == .dark)
    #expect(override == nil)
  }

  @Test("differences: traitsFrom merges custom traits, and containsTraits compares them")
  func differencesCustomTraitsMerge() {
    let first = TraitCollection { $0.documentTheme = .sepia }
    let second = TraitCollection { $0.documentTheme = .highContrast }
    let merged = TraitCollection(traitsFrom: [first, second])  // .highContrast: the last one wins
    let contains = merged.containsTraits(in: first)  // false: the themes differ

    #expect(merged.documentTheme == .highContrast)
    #expect(!contains)
    #expect(merged.containsTraits(in: second))
  }

  @Test("differences: a custom valuesEqual decides equality, and the hash agrees with it")
  func differencesCustomEquality() {
    let draft = TraitCollection(DocumentTitleTrait.self, value: "Draft")
    let shouting = TraitCollection(DocumentTitleTrait.self, value: "DRAFT")
    let same = draft == shouting  // true: valuesEqual ignores case
    let unique = Set([draft, shouting]).count  // 1: custom traits hash by presence only

    #expect(same)
    #expect(draft.hashValue == shouting.hashValue)
    #expect(unique == 1)
    #expect(draft != TraitCollection(DocumentTitleTrait.self, value: "Final"))
  }

  @Test("differences: each write of a value that is not Equatable is a change")
  func differencesNonEquatableWrites() {
    let graph = TraitGraph()
    let page = TraitNode()
    graph.root.addTraitChild(page)

    var cursorChanges = 0
    page.registerForTraitChanges([DocumentCursorTrait.self]) {
      (_: TraitNode, _: TraitCollection) in
      cursorChanges += 1
    }
    let cursor = DocumentCursor(line: 3, column: 14)
    page.traitOverrides[DocumentCursorTrait.self] = cursor
    graph.updateTraitsIfNeeded()  // cursorChanges == 1
    page.traitOverrides[DocumentCursorTrait.self] = cursor  // the same bits, but a new write
    graph.updateTraitsIfNeeded()  // cursorChanges == 2
    graph.updateTraitsIfNeeded()  // cursorChanges == 2: a value not rewritten is no change

    #expect(cursorChanges == 2)
  }

  @Test("differences: an Equatable value with identical bytes is one value, NaN included")
  func differencesIdenticalBytes() {
    let unknown = TraitCollection(DocumentAspectTrait.self, value: .nan)
    let same = unknown == TraitCollection(DocumentAspectTrait.self, value: .nan)  // true

    #expect(same)
    #expect(unknown != TraitCollection(DocumentAspectTrait.self, value: 1.5))
  }

  @Test("differences: decoding keeps unknown entries, and any later write drops the kept one")
  func differencesUnknownEntries() throws {
    let json = Data(#"{"UITraitUserInterfaceStyle": 2, "com.example.document.zoom": 150}"#.utf8)
    let decoded = try JSONDecoder().decode(TraitCollection.self, from: json)
    // decoded.userInterfaceStyle == .dark; DocumentZoomTrait was never used, so the zoom entry
    // is unknown: it is kept, and encoded back unchanged.
    let kept = try JSONEncoder().encode(decoded)  // both entries; the zoom is still 150
    let zoomed = decoded.replacing(DocumentZoomTrait.self, value: 200)
    let replaced = try JSONEncoder().encode(zoomed)  // both entries; the zoom is now 200

    #expect(decoded.userInterfaceStyle == .dark)
    #expect(
      try Self.object(kept) == ["UITraitUserInterfaceStyle": 2, "com.example.document.zoom": 150]
    )
    #expect(
      try Self.object(replaced) == [
        "UITraitUserInterfaceStyle": 2, "com.example.document.zoom": 200,
      ]
    )
    #expect(zoomed[DocumentZoomTrait.self] == 200)
    // Even a write of the default drops the kept entry; a default is not encoded.
    let defaulted = decoded.replacing(DocumentZoomTrait.self, value: 100)
    #expect(try Self.object(JSONEncoder().encode(defaulted)) == ["UITraitUserInterfaceStyle": 2])
  }

  // MARK: The documents themselves

  @Test("every Swift sample of the README and of both catalogs appears verbatim in its test file")
  func samplesAreVerbatim() throws {
    let thisFile = URL(fileURLWithPath: #filePath)
    let packageRoot = thisFile.deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let legacyFile = packageRoot.appendingPathComponent(
      "Tests/TraitKitLegacyTests/Docs/MigrationExamplesTests.swift"
    )
    let checks = [
      (
        documents: [packageRoot.appendingPathComponent("README.md")]
          + (try Self.articles(in: packageRoot, "Sources/TraitKit/TraitKit.docc")),
        source: thisFile, minimum: 11
      ),
      (
        documents: try Self.articles(in: packageRoot, "Sources/TraitKitLegacy/TraitKitLegacy.docc"),
        source: legacyFile, minimum: 3
      ),
    ]

    for check in checks {
      let source = try String(contentsOf: check.source, encoding: .utf8)
      var samples = 0
      for document in check.documents {
        let text = try String(contentsOf: document, encoding: .utf8)
        for block in Self.swiftBlocks(in: text) {
          samples += 1
          #expect(
            Self.appears(block, in: source),
            """
            \(document.lastPathComponent) has a sample \(check.source.lastPathComponent) lacks:
            \(block)
            """
          )
        }
      }
      #expect(samples >= check.minimum, "too few samples for \(check.source.lastPathComponent)")
    }
  }

  // MARK: - Helpers

  /// The Markdown articles of the DocC catalog at `path` under `root`, by name.
  private static func articles(in root: URL, _ path: String) throws -> [URL] {
    let catalog = root.appendingPathComponent(path)
    return try FileManager.default.contentsOfDirectory(atPath: catalog.path)
      .filter { $0.hasSuffix(".md") }.sorted()
      .map { catalog.appendingPathComponent($0) }
  }

  /// The top-level members of an encoded JSON object, as integers.
  private static func object(_ data: Data) throws -> [String: Int] {
    try JSONDecoder().decode([String: Int].self, from: data)
  }

  /// The contents of the ```swift blocks of a Markdown document.
  private static func swiftBlocks(in markdown: String) -> [String] {
    var blocks: [String] = []
    var current: [Substring]?
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.drop { $0 == " " }
      if let lines = current {
        if trimmed.hasPrefix("```") {
          blocks.append(lines.joined(separator: "\n"))
          current = nil
        } else {
          current = lines + [line]
        }
      } else if trimmed.hasPrefix("```swift") {
        current = []
      }
    }
    return blocks
  }

  /// Whether `block`, indented by some number of spaces, is a run of whole lines of `source`.
  private static func appears(_ block: String, in source: String) -> Bool {
    let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
    let indent = lines.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
    let dedented = lines.map { $0.isEmpty ? "" : String($0.dropFirst(indent)) }
    return stride(from: 0, through: 12, by: 2).contains { extra in
      let padding = String(repeating: " ", count: extra)
      let indented = dedented.map { $0.isEmpty ? "" : padding + $0 }.joined(separator: "\n")
      return ("\n" + source + "\n").contains("\n" + indented + "\n")
    }
  }
}
