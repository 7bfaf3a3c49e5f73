/// The kinds of node in the app-shaped tree, each with the traits its code actually uses.
enum AppNodeKind: String, Sendable, CaseIterable {
  /// The graph's root, standing for the screen: it uses nothing and observes nothing.
  case screen
  /// The window scene: lays out its windows by size class.
  case scene
  /// A window: its tint and background follow the style and the theme.
  case window
  /// A navigation controller: collapses or expands its stack by size class.
  case navigationController
  /// A navigation bar: its title font, colours and tint.
  case navigationBar
  /// A view controller: picks its layout by size class.
  case viewController
  /// A size-class-dependent container (stack or grid).
  case container
  /// A label: its font follows Dynamic Type.
  case label
  /// An image view: its image variant follows the style and the display scale.
  case imageView
  /// A view coloured by the app theme.
  case themedView
  /// A list cell: font, colours, layout and theme accent.
  case cell

  /// The traits the kind's code reads, as a mask of `AppTrait` bits.
  var uses: UInt32 {
    let traits: [AppTrait] =
      switch self {
      case .screen: []
      case .scene, .navigationController, .viewController, .container:
        [.horizontalSizeClass, .verticalSizeClass]
      case .window: [.userInterfaceStyle, .theme]
      case .navigationBar: [.preferredContentSizeCategory, .userInterfaceStyle, .theme]
      case .label: [.preferredContentSizeCategory]
      case .imageView: [.userInterfaceStyle, .displayScale]
      case .themedView: [.theme]
      case .cell:
        [.preferredContentSizeCategory, .userInterfaceStyle, .horizontalSizeClass, .theme]
      }
    return traits.reduce(0) { $0 | $1.bit }
  }

  /// The plural for summaries.
  var plural: String {
    switch self {
    case .screen: "screens"
    case .scene: "scenes"
    case .window: "windows"
    case .navigationController: "nav controllers"
    case .navigationBar: "nav bars"
    case .viewController: "view controllers"
    case .container: "containers"
    case .label: "labels"
    case .imageView: "image views"
    case .themedView: "themed views"
    case .cell: "cells"
    }
  }
}
