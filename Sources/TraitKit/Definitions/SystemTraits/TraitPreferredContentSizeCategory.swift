/// The text size a person prefers: the Dynamic Type size.
///
/// The counterpart of UIKit's `UIContentSizeCategory`. UIKit's type is a string-backed struct;
/// this one is an enum with the same names, whose raw values are UIKit's strings (for example
/// `"UICTContentSizeCategoryL"` for ``large``). Categories compare by size, ``unspecified``
/// being the smallest:
///
/// ```swift
/// if traitCollection.preferredContentSizeCategory >= .accessibilityMedium {
///   // Stack the label above its value.
/// }
/// ```
public enum ContentSizeCategory: String, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified size: the environment has not been given one.
  case unspecified = "_UICTContentSizeCategoryUnspecified"
  /// The extra-small size.
  case extraSmall = "UICTContentSizeCategoryXS"
  /// The small size.
  case small = "UICTContentSizeCategoryS"
  /// The medium size.
  case medium = "UICTContentSizeCategoryM"
  /// The large size, the system's default.
  case large = "UICTContentSizeCategoryL"
  /// The extra-large size.
  case extraLarge = "UICTContentSizeCategoryXL"
  /// The extra-extra-large size.
  case extraExtraLarge = "UICTContentSizeCategoryXXL"
  /// The extra-extra-extra-large size, the largest that is not an accessibility size.
  case extraExtraExtraLarge = "UICTContentSizeCategoryXXXL"
  /// The medium accessibility size.
  case accessibilityMedium = "UICTContentSizeCategoryAccessibilityM"
  /// The large accessibility size.
  case accessibilityLarge = "UICTContentSizeCategoryAccessibilityL"
  /// The extra-large accessibility size.
  case accessibilityExtraLarge = "UICTContentSizeCategoryAccessibilityXL"
  /// The extra-extra-large accessibility size.
  case accessibilityExtraExtraLarge = "UICTContentSizeCategoryAccessibilityXXL"
  /// The extra-extra-extra-large accessibility size, the largest of all.
  case accessibilityExtraExtraExtraLarge = "UICTContentSizeCategoryAccessibilityXXXL"

  /// Whether this is one of the accessibility sizes, ``accessibilityMedium`` and larger.
  public var isAccessibilityCategory: Bool { sizeOrder >= Self.accessibilityMedium.sizeOrder }

  /// The position of the category from the smallest, ``unspecified``, to the largest.
  private var sizeOrder: Int {
    switch self {
    case .unspecified: 0
    case .extraSmall: 1
    case .small: 2
    case .medium: 3
    case .large: 4
    case .extraLarge: 5
    case .extraExtraLarge: 6
    case .extraExtraExtraLarge: 7
    case .accessibilityMedium: 8
    case .accessibilityLarge: 9
    case .accessibilityExtraLarge: 10
    case .accessibilityExtraExtraLarge: 11
    case .accessibilityExtraExtraExtraLarge: 12
    }
  }
}

extension ContentSizeCategory: Comparable {
  /// Returns whether `lhs` is a smaller text size than `rhs`.
  ///
  /// ``ContentSizeCategory/unspecified`` is smaller than every other category.
  public static func < (lhs: ContentSizeCategory, rhs: ContentSizeCategory) -> Bool {
    lhs.sizeOrder < rhs.sizeOrder
  }
}

/// The trait that holds the preferred text size of an environment.
///
/// The counterpart of UIKit's `UITraitPreferredContentSizeCategory`. It defaults to
/// ``ContentSizeCategory/unspecified``.
public struct TraitPreferredContentSizeCategory: TraitDefinition {
  /// ``ContentSizeCategory/unspecified``.
  public static let defaultValue = ContentSizeCategory.unspecified
  /// `"PreferredContentSizeCategory"`.
  public static let name = "PreferredContentSizeCategory"
  /// `"UITraitPreferredContentSizeCategory"`, UIKit's identifier.
  public static let identifier = "UITraitPreferredContentSizeCategory"
  /// `false`: the text size does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The preferred text size: the value of ``TraitPreferredContentSizeCategory``.
  public var preferredContentSizeCategory: ContentSizeCategory {
    self[TraitPreferredContentSizeCategory.self]
  }

  /// Creates a collection that sets only ``preferredContentSizeCategory``, as UIKit's
  /// `init(preferredContentSizeCategory:)` does.
  ///
  /// - Parameter preferredContentSizeCategory: The value of ``TraitPreferredContentSizeCategory``.
  public init(preferredContentSizeCategory: ContentSizeCategory) {
    self.init(TraitPreferredContentSizeCategory.self, value: preferredContentSizeCategory)
  }
}

extension MutableTraits {
  /// The preferred text size: the value of ``TraitPreferredContentSizeCategory``.
  public var preferredContentSizeCategory: ContentSizeCategory {
    get { self[TraitPreferredContentSizeCategory.self] }
    set { self[TraitPreferredContentSizeCategory.self] = newValue }
  }
}
