/// Whether an environment's screen supports 3D Touch.
///
/// The counterpart of UIKit's `UIForceTouchCapability`, with the same cases and raw values.
public enum ForceTouchCapability: Int, Sendable, Hashable, CaseIterable, Codable {
  /// The capability is not known: the environment has not been given one.
  case unknown = 0
  /// 3D Touch is not available.
  case unavailable = 1
  /// 3D Touch is available.
  case available = 2
}

/// The trait that holds the 3D Touch capability of an environment.
///
/// The counterpart of UIKit's `UITraitForceTouchCapability`. It defaults to
/// ``ForceTouchCapability/unknown``, UIKit's unspecified value for this trait.
public struct TraitForceTouchCapability: TraitDefinition {
  /// ``ForceTouchCapability/unknown``.
  public static let defaultValue = ForceTouchCapability.unknown
  /// `"ForceTouchCapability"`.
  public static let name = "ForceTouchCapability"
  /// `"UITraitForceTouchCapability"`, UIKit's identifier.
  public static let identifier = "UITraitForceTouchCapability"
  /// `false`: the capability does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The 3D Touch capability: the value of ``TraitForceTouchCapability``.
  public var forceTouchCapability: ForceTouchCapability { self[TraitForceTouchCapability.self] }

  /// Creates a collection that sets only ``forceTouchCapability``, as UIKit's
  /// `init(forceTouchCapability:)` does.
  ///
  /// - Parameter forceTouchCapability: The value of ``TraitForceTouchCapability``.
  public init(forceTouchCapability: ForceTouchCapability) {
    self.init(TraitForceTouchCapability.self, value: forceTouchCapability)
  }
}

extension MutableTraits {
  /// The 3D Touch capability: the value of ``TraitForceTouchCapability``.
  public var forceTouchCapability: ForceTouchCapability {
    get { self[TraitForceTouchCapability.self] }
    set { self[TraitForceTouchCapability.self] = newValue }
  }
}
