/// The trait that holds the vertical size class of an environment.
///
/// The counterpart of UIKit's `UITraitVerticalSizeClass`. It defaults to
/// ``UserInterfaceSizeClass/unspecified``.
public struct TraitVerticalSizeClass: TraitDefinition {
  /// ``UserInterfaceSizeClass/unspecified``.
  public static let defaultValue = UserInterfaceSizeClass.unspecified
  /// `"VerticalSizeClass"`.
  public static let name = "VerticalSizeClass"
  /// `"UITraitVerticalSizeClass"`, UIKit's identifier.
  public static let identifier = "UITraitVerticalSizeClass"
  /// `false`: the size class does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The vertical size class: the value of ``TraitVerticalSizeClass``.
  public var verticalSizeClass: UserInterfaceSizeClass { self[TraitVerticalSizeClass.self] }

  /// Creates a collection that sets only ``verticalSizeClass``, as UIKit's
  /// `init(verticalSizeClass:)` does.
  ///
  /// - Parameter verticalSizeClass: The value of ``TraitVerticalSizeClass``.
  public init(verticalSizeClass: UserInterfaceSizeClass) {
    self.init(TraitVerticalSizeClass.self, value: verticalSizeClass)
  }
}

extension MutableTraits {
  /// The vertical size class: the value of ``TraitVerticalSizeClass``.
  public var verticalSizeClass: UserInterfaceSizeClass {
    get { self[TraitVerticalSizeClass.self] }
    set { self[TraitVerticalSizeClass.self] = newValue }
  }
}
