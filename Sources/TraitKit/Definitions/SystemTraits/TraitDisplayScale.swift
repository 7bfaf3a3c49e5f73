/// The trait that holds the display scale of an environment: its pixels per point.
///
/// The counterpart of UIKit's `UITraitDisplayScale`, whose value is a `CGFloat`; here it is a
/// `Double`. It defaults to `0.0`, which means unspecified.
public struct TraitDisplayScale: TraitDefinition {
  /// `0.0`: an unspecified scale.
  public static let defaultValue = 0.0
  /// `"DisplayScale"`.
  public static let name = "DisplayScale"
  /// `"UITraitDisplayScale"`, UIKit's identifier.
  public static let identifier = "UITraitDisplayScale"
  /// `false`: the display scale does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The display scale, `0.0` when unspecified: the value of ``TraitDisplayScale``.
  public var displayScale: Double { self[TraitDisplayScale.self] }

  /// Creates a collection that sets only ``displayScale``, as UIKit's
  /// `init(displayScale:)` does.
  ///
  /// - Parameter displayScale: The value of ``TraitDisplayScale``.
  public init(displayScale: Double) {
    self.init(TraitDisplayScale.self, value: displayScale)
  }
}

extension MutableTraits {
  /// The display scale, `0.0` when unspecified: the value of ``TraitDisplayScale``.
  public var displayScale: Double {
    get { self[TraitDisplayScale.self] }
    set { self[TraitDisplayScale.self] = newValue }
  }
}
