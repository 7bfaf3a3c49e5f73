/// The trait that holds the horizontal size class of an environment.
///
/// The counterpart of UIKit's `UITraitHorizontalSizeClass`. It defaults to
/// ``UserInterfaceSizeClass/unspecified``.
public struct TraitHorizontalSizeClass: TraitDefinition {
  /// ``UserInterfaceSizeClass/unspecified``.
  public static let defaultValue = UserInterfaceSizeClass.unspecified
  /// `"HorizontalSizeClass"`.
  public static let name = "HorizontalSizeClass"
  /// `"UITraitHorizontalSizeClass"`, UIKit's identifier.
  public static let identifier = "UITraitHorizontalSizeClass"
  /// `false`: the size class does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The horizontal size class: the value of ``TraitHorizontalSizeClass``.
  public var horizontalSizeClass: UserInterfaceSizeClass { self[TraitHorizontalSizeClass.self] }

  /// Creates a collection that sets only ``horizontalSizeClass``, as UIKit's
  /// `init(horizontalSizeClass:)` does.
  ///
  /// - Parameter horizontalSizeClass: The value of ``TraitHorizontalSizeClass``.
  public init(horizontalSizeClass: UserInterfaceSizeClass) {
    self.init(TraitHorizontalSizeClass.self, value: horizontalSizeClass)
  }
}

extension MutableTraits {
  /// The horizontal size class: the value of ``TraitHorizontalSizeClass``.
  public var horizontalSizeClass: UserInterfaceSizeClass {
    get { self[TraitHorizontalSizeClass.self] }
    set { self[TraitHorizontalSizeClass.self] = newValue }
  }
}
