import TraitKit

/// The traits the app-shaped tree uses, numbered for the model and the floor.
///
/// Every value is an `Int`: the raw value of a size class, style or theme, the index of a
/// content size category in `ContentSizeCategory.allCases`, and the display scale itself.
enum AppTrait: Int, Sendable, CaseIterable {
  case horizontalSizeClass
  case verticalSizeClass
  case userInterfaceStyle
  case preferredContentSizeCategory
  case displayScale
  case theme

  /// The trait's bit in a mask of `AppTrait`s.
  var bit: UInt32 { 1 << UInt32(rawValue) }

  /// The TraitKit trait.
  var definition: any TraitDefinition.Type {
    switch self {
    case .horizontalSizeClass: TraitHorizontalSizeClass.self
    case .verticalSizeClass: TraitVerticalSizeClass.self
    case .userInterfaceStyle: TraitUserInterfaceStyle.self
    case .preferredContentSizeCategory: TraitPreferredContentSizeCategory.self
    case .displayScale: TraitDisplayScale.self
    case .theme: AppThemeTrait.self
    }
  }

  /// A short name for summaries.
  var label: String {
    switch self {
    case .horizontalSizeClass: "horizontalSizeClass"
    case .verticalSizeClass: "verticalSizeClass"
    case .userInterfaceStyle: "userInterfaceStyle"
    case .preferredContentSizeCategory: "preferredContentSizeCategory"
    case .displayScale: "displayScale"
    case .theme: "theme"
    }
  }

  /// The traits whose bits are set in `mask`, in declaration order.
  static func members(of mask: UInt32) -> [AppTrait] {
    allCases.filter { mask & $0.bit != 0 }
  }

  /// Sets the override of this trait to `value`, or removes it when `value` is nil.
  func write(_ value: Int?, to overrides: inout TraitOverrides) {
    guard let value else {
      overrides.remove(definition)
      return
    }
    switch self {
    case .horizontalSizeClass:
      overrides.horizontalSizeClass = UserInterfaceSizeClass(rawValue: value)!
    case .verticalSizeClass:
      overrides.verticalSizeClass = UserInterfaceSizeClass(rawValue: value)!
    case .userInterfaceStyle:
      overrides.userInterfaceStyle = UserInterfaceStyle(rawValue: value)!
    case .preferredContentSizeCategory:
      overrides.preferredContentSizeCategory = ContentSizeCategory.allCases[value]
    case .displayScale:
      overrides.displayScale = Double(value)
    case .theme:
      overrides.appTheme = AppTheme(rawValue: value)!
    }
  }

  /// The value of this trait in `collection`, in the model's `Int` form.
  func read(_ collection: TraitCollection) -> Int {
    switch self {
    case .horizontalSizeClass: collection.horizontalSizeClass.rawValue
    case .verticalSizeClass: collection.verticalSizeClass.rawValue
    case .userInterfaceStyle: collection.userInterfaceStyle.rawValue
    case .preferredContentSizeCategory:
      ContentSizeCategory.allCases.firstIndex(of: collection.preferredContentSizeCategory)!
    case .displayScale: Int(collection.displayScale)
    case .theme: collection.appTheme.rawValue
    }
  }
}
