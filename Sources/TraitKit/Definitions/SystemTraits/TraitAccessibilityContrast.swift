/// The contrast level an environment asks for, from the Increase Contrast setting.
///
/// The counterpart of UIKit's `UIAccessibilityContrast`, with the same cases and raw values.
public enum AccessibilityContrast: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified contrast: the environment has not been given one.
  case unspecified = -1
  /// The normal contrast level.
  case normal = 0
  /// The high contrast level.
  case high = 1
}

/// The trait that holds the accessibility contrast level of an environment.
///
/// The counterpart of UIKit's `UITraitAccessibilityContrast`. It defaults to
/// ``AccessibilityContrast/unspecified`` and affects color appearance.
public struct TraitAccessibilityContrast: TraitDefinition {
  /// ``AccessibilityContrast/unspecified``.
  public static let defaultValue = AccessibilityContrast.unspecified
  /// `"AccessibilityContrast"`.
  public static let name = "AccessibilityContrast"
  /// `"UITraitAccessibilityContrast"`, UIKit's identifier.
  public static let identifier = "UITraitAccessibilityContrast"
  /// `true`: dynamic colors can resolve to higher-contrast variants.
  public static let affectsColorAppearance = true
}

extension TraitCollection {
  /// The accessibility contrast level: the value of ``TraitAccessibilityContrast``.
  public var accessibilityContrast: AccessibilityContrast { self[TraitAccessibilityContrast.self] }

  /// Creates a collection that sets only ``accessibilityContrast``, as UIKit's
  /// `init(accessibilityContrast:)` does.
  ///
  /// - Parameter accessibilityContrast: The value of ``TraitAccessibilityContrast``.
  public init(accessibilityContrast: AccessibilityContrast) {
    self.init(TraitAccessibilityContrast.self, value: accessibilityContrast)
  }
}

extension MutableTraits {
  /// The accessibility contrast level: the value of ``TraitAccessibilityContrast``.
  public var accessibilityContrast: AccessibilityContrast {
    get { self[TraitAccessibilityContrast.self] }
    set { self[TraitAccessibilityContrast.self] = newValue }
  }
}
