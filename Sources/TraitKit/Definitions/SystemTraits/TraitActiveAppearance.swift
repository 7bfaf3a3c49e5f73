/// Whether an interface looks active, as the content of a key window does.
///
/// The counterpart of UIKit's `UIUserInterfaceActiveAppearance`, with the same cases and raw
/// values. In UIKit it varies with window activation on macOS and is always ``active`` elsewhere.
public enum UserInterfaceActiveAppearance: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified appearance: the environment has not been given one.
  case unspecified = -1
  /// The inactive appearance.
  case inactive = 0
  /// The active appearance.
  case active = 1
}

/// The trait that holds the active appearance of an environment.
///
/// The counterpart of UIKit's `UITraitActiveAppearance`. It defaults to
/// ``UserInterfaceActiveAppearance/unspecified``.
public struct TraitActiveAppearance: TraitDefinition {
  /// ``UserInterfaceActiveAppearance/unspecified``.
  public static let defaultValue = UserInterfaceActiveAppearance.unspecified
  /// `"ActiveAppearance"`.
  public static let name = "ActiveAppearance"
  /// `"UITraitActiveAppearance"`, UIKit's identifier.
  public static let identifier = "UITraitActiveAppearance"
  /// `false`: the active appearance does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The active appearance: the value of ``TraitActiveAppearance``.
  public var activeAppearance: UserInterfaceActiveAppearance { self[TraitActiveAppearance.self] }

  /// Creates a collection that sets only ``activeAppearance``, as UIKit's
  /// `init(activeAppearance:)` does.
  ///
  /// - Parameter activeAppearance: The value of ``TraitActiveAppearance``.
  public init(activeAppearance: UserInterfaceActiveAppearance) {
    self.init(TraitActiveAppearance.self, value: activeAppearance)
  }
}

extension MutableTraits {
  /// The active appearance: the value of ``TraitActiveAppearance``.
  public var activeAppearance: UserInterfaceActiveAppearance {
    get { self[TraitActiveAppearance.self] }
    set { self[TraitActiveAppearance.self] = newValue }
  }
}
