/// The layout direction of an environment.
///
/// The counterpart of UIKit's `UITraitEnvironmentLayoutDirection`, with the same cases and raw
/// values. Like UIKit's, it informs the layout direction of views without dictating it.
public enum TraitEnvironmentLayoutDirection: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified direction: the environment has not been given one.
  case unspecified = -1
  /// A left-to-right layout, as for English.
  case leftToRight = 0
  /// A right-to-left layout, as for Arabic and Hebrew.
  case rightToLeft = 1
}

/// The trait that holds the layout direction of an environment.
///
/// The counterpart of UIKit's `UITraitLayoutDirection`. It defaults to
/// ``TraitEnvironmentLayoutDirection/unspecified``.
public struct TraitLayoutDirection: TraitDefinition {
  /// ``TraitEnvironmentLayoutDirection/unspecified``.
  public static let defaultValue = TraitEnvironmentLayoutDirection.unspecified
  /// `"LayoutDirection"`.
  public static let name = "LayoutDirection"
  /// `"UITraitLayoutDirection"`, UIKit's identifier.
  public static let identifier = "UITraitLayoutDirection"
  /// `false`: the layout direction does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The layout direction: the value of ``TraitLayoutDirection``.
  public var layoutDirection: TraitEnvironmentLayoutDirection { self[TraitLayoutDirection.self] }

  /// Creates a collection that sets only ``layoutDirection``, as UIKit's
  /// `init(layoutDirection:)` does.
  ///
  /// - Parameter layoutDirection: The value of ``TraitLayoutDirection``.
  public init(layoutDirection: TraitEnvironmentLayoutDirection) {
    self.init(TraitLayoutDirection.self, value: layoutDirection)
  }
}

extension MutableTraits {
  /// The layout direction: the value of ``TraitLayoutDirection``.
  public var layoutDirection: TraitEnvironmentLayoutDirection {
    get { self[TraitLayoutDirection.self] }
    set { self[TraitLayoutDirection.self] = newValue }
  }
}
