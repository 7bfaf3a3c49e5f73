/// The app-level changes the migration comparisons make.
enum MigrationWorkload: String, Sendable, CaseIterable {
  /// Device rotation: the scene swaps its horizontal and vertical size classes.
  case rotation
  /// Dark Mode: the scene toggles its interface style.
  case darkMode
  /// Dynamic Type: the scene changes its preferred content size category.
  case dynamicType
  /// The app's theme, switched at the scene.
  case theme
  /// A local override on one screen: one view controller toggles a dark-style override, as
  /// UIKit's `overrideUserInterfaceStyle` does.
  case localOverride

  /// The dotted benchmark name.
  var name: String {
    switch self {
    case .rotation: "Migration.deviceRotation"
    case .darkMode: "Migration.darkMode"
    case .dynamicType: "Migration.dynamicType"
    case .theme: "Migration.appTheme"
    case .localOverride: "Migration.localOverride"
    }
  }

  /// The traits the workload changes.
  var traits: [AppTrait] {
    switch self {
    case .rotation: [.horizontalSizeClass, .verticalSizeClass]
    case .darkMode: [.userInterfaceStyle]
    case .dynamicType: [.preferredContentSizeCategory]
    case .theme: [.theme]
    case .localOverride: [.userInterfaceStyle]
    }
  }

  /// What changes, for the summary.
  func change(in app: AppShape) -> String {
    switch self {
    case .rotation:
      "the scene swaps its size classes, h compact × v regular ↔ h regular × v compact"
    case .darkMode:
      "the scene toggles userInterfaceStyle light ↔ dark"
    case .dynamicType:
      "the scene toggles preferredContentSizeCategory large ↔ extraExtraLarge"
    case .theme:
      "the scene cycles the custom theme trait (Int enum, affectsColorAppearance) "
        + "pastel → bold → monochrome → standard"
    case .localOverride:
      "one view controller (\(app.shape.subtree(of: app.localScreen).count) nodes) toggles a "
        + "userInterfaceStyle override dark ↔ removed (inherits light)"
    }
  }

  /// The changes of one cycle, which returns the tree to its initial state.
  func cycle(in app: AppShape) -> [AppChange] {
    let scene = app.scene
    let large = ContentSizeCategoryIndex.large
    let larger = ContentSizeCategoryIndex.extraExtraLarge
    return switch self {
    case .rotation:
      [
        AppChange(node: scene, writes: [(.horizontalSizeClass, 2), (.verticalSizeClass, 1)]),
        AppChange(node: scene, writes: [(.horizontalSizeClass, 1), (.verticalSizeClass, 2)]),
      ]
    case .darkMode:
      [
        AppChange(node: scene, writes: [(.userInterfaceStyle, 2)]),
        AppChange(node: scene, writes: [(.userInterfaceStyle, 1)]),
      ]
    case .dynamicType:
      [
        AppChange(node: scene, writes: [(.preferredContentSizeCategory, larger)]),
        AppChange(node: scene, writes: [(.preferredContentSizeCategory, large)]),
      ]
    case .theme:
      [AppTheme.pastel, .bold, .monochrome, .standard].map {
        AppChange(node: scene, writes: [(.theme, $0.rawValue)])
      }
    case .localOverride:
      [
        AppChange(node: app.localScreen, writes: [(.userInterfaceStyle, 2)]),
        AppChange(node: app.localScreen, writes: [(.userInterfaceStyle, nil)]),
      ]
    }
  }
}
