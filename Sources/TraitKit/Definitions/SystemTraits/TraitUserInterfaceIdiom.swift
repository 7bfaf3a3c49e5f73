/// The kind of interface an environment is designed for.
///
/// The counterpart of UIKit's `UIUserInterfaceIdiom`, with the same cases and raw values.
public enum UserInterfaceIdiom: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified idiom: the environment has not been given one.
  case unspecified = -1
  /// An interface designed for iPhone and iPod touch.
  case phone = 0
  /// An interface designed for iPad.
  case pad = 1
  /// An interface designed for Apple TV.
  case tv = 2
  /// An interface designed for an in-car experience.
  case carPlay = 3
  /// An interface designed for the Mac.
  case mac = 5
  /// An interface designed for Apple Vision Pro.
  case vision = 6
}

/// The trait that holds the interface idiom of an environment.
///
/// The counterpart of UIKit's `UITraitUserInterfaceIdiom`. It defaults to
/// ``UserInterfaceIdiom/unspecified`` and affects color appearance.
public struct TraitUserInterfaceIdiom: TraitDefinition {
  /// ``UserInterfaceIdiom/unspecified``.
  public static let defaultValue = UserInterfaceIdiom.unspecified
  /// `"UserInterfaceIdiom"`.
  public static let name = "UserInterfaceIdiom"
  /// `"UITraitUserInterfaceIdiom"`, UIKit's identifier.
  public static let identifier = "UITraitUserInterfaceIdiom"
  /// `true`: dynamic colors can resolve differently for each idiom.
  public static let affectsColorAppearance = true
}

extension TraitCollection {
  /// The interface idiom: the value of ``TraitUserInterfaceIdiom``.
  public var userInterfaceIdiom: UserInterfaceIdiom { self[TraitUserInterfaceIdiom.self] }

  /// Creates a collection that sets only ``userInterfaceIdiom``, as UIKit's
  /// `init(userInterfaceIdiom:)` does.
  ///
  /// - Parameter userInterfaceIdiom: The value of ``TraitUserInterfaceIdiom``.
  public init(userInterfaceIdiom: UserInterfaceIdiom) {
    self.init(TraitUserInterfaceIdiom.self, value: userInterfaceIdiom)
  }
}

extension MutableTraits {
  /// The interface idiom: the value of ``TraitUserInterfaceIdiom``.
  public var userInterfaceIdiom: UserInterfaceIdiom {
    get { self[TraitUserInterfaceIdiom.self] }
    set { self[TraitUserInterfaceIdiom.self] = newValue }
  }
}
