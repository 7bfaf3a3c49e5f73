/// The light or dark appearance of an interface.
///
/// The counterpart of UIKit's `UIUserInterfaceStyle`, with the same cases and raw values.
public enum UserInterfaceStyle: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified style: the environment has not been given one.
  case unspecified = 0
  /// The light interface style.
  case light = 1
  /// The dark interface style.
  case dark = 2
}

/// The trait that holds the light or dark interface style of an environment.
///
/// The counterpart of UIKit's `UITraitUserInterfaceStyle`. It defaults to
/// ``UserInterfaceStyle/unspecified`` and affects color appearance.
public struct TraitUserInterfaceStyle: TraitDefinition {
  /// ``UserInterfaceStyle/unspecified``.
  public static let defaultValue = UserInterfaceStyle.unspecified
  /// `"UserInterfaceStyle"`.
  public static let name = "UserInterfaceStyle"
  /// `"UITraitUserInterfaceStyle"`, UIKit's identifier.
  public static let identifier = "UITraitUserInterfaceStyle"
  /// `true`: dynamic colors resolve differently in light and dark styles.
  public static let affectsColorAppearance = true
}

extension TraitCollection {
  /// The interface style: the value of ``TraitUserInterfaceStyle``.
  public var userInterfaceStyle: UserInterfaceStyle { self[TraitUserInterfaceStyle.self] }

  /// Creates a collection that sets only ``userInterfaceStyle``, as UIKit's
  /// `init(userInterfaceStyle:)` does.
  ///
  /// - Parameter userInterfaceStyle: The value of ``TraitUserInterfaceStyle``.
  public init(userInterfaceStyle: UserInterfaceStyle) {
    self.init(TraitUserInterfaceStyle.self, value: userInterfaceStyle)
  }
}

extension MutableTraits {
  /// The interface style: the value of ``TraitUserInterfaceStyle``.
  public var userInterfaceStyle: UserInterfaceStyle {
    get { self[TraitUserInterfaceStyle.self] }
    set { self[TraitUserInterfaceStyle.self] = newValue }
  }
}
