/// The visual level of content: in the base layer, or elevated above it.
///
/// The counterpart of UIKit's `UIUserInterfaceLevel`, with the same cases and raw values.
public enum UserInterfaceLevel: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified level: the environment has not been given one.
  case unspecified = -1
  /// The level of the window's main content.
  case base = 0
  /// The level of content above the base, such as a popover or a sheet.
  case elevated = 1
}

/// The trait that holds the visual level of an environment's content.
///
/// The counterpart of UIKit's `UITraitUserInterfaceLevel`. It defaults to
/// ``UserInterfaceLevel/unspecified`` and affects color appearance.
public struct TraitUserInterfaceLevel: TraitDefinition {
  /// ``UserInterfaceLevel/unspecified``.
  public static let defaultValue = UserInterfaceLevel.unspecified
  /// `"UserInterfaceLevel"`.
  public static let name = "UserInterfaceLevel"
  /// `"UITraitUserInterfaceLevel"`, UIKit's identifier.
  public static let identifier = "UITraitUserInterfaceLevel"
  /// `true`: dynamic colors can resolve differently for elevated content.
  public static let affectsColorAppearance = true
}

extension TraitCollection {
  /// The interface level: the value of ``TraitUserInterfaceLevel``.
  public var userInterfaceLevel: UserInterfaceLevel { self[TraitUserInterfaceLevel.self] }

  /// Creates a collection that sets only ``userInterfaceLevel``, as UIKit's
  /// `init(userInterfaceLevel:)` does.
  ///
  /// - Parameter userInterfaceLevel: The value of ``TraitUserInterfaceLevel``.
  public init(userInterfaceLevel: UserInterfaceLevel) {
    self.init(TraitUserInterfaceLevel.self, value: userInterfaceLevel)
  }
}

extension MutableTraits {
  /// The interface level: the value of ``TraitUserInterfaceLevel``.
  public var userInterfaceLevel: UserInterfaceLevel {
    get { self[TraitUserInterfaceLevel.self] }
    set { self[TraitUserInterfaceLevel.self] = newValue }
  }
}
