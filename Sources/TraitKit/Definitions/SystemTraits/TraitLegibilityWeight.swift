/// The font weight an environment asks for, from the Bold Text setting.
///
/// The counterpart of UIKit's `UILegibilityWeight`, with the same cases and raw values.
public enum LegibilityWeight: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified weight: the environment has not been given one.
  case unspecified = -1
  /// The regular font weight.
  case regular = 0
  /// The bold font weight.
  case bold = 1
}

/// The trait that holds the legibility weight of an environment.
///
/// The counterpart of UIKit's `UITraitLegibilityWeight`. It defaults to
/// ``LegibilityWeight/unspecified``.
public struct TraitLegibilityWeight: TraitDefinition {
  /// ``LegibilityWeight/unspecified``.
  public static let defaultValue = LegibilityWeight.unspecified
  /// `"LegibilityWeight"`.
  public static let name = "LegibilityWeight"
  /// `"UITraitLegibilityWeight"`, UIKit's identifier.
  public static let identifier = "UITraitLegibilityWeight"
  /// `false`: the legibility weight does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The legibility weight: the value of ``TraitLegibilityWeight``.
  public var legibilityWeight: LegibilityWeight { self[TraitLegibilityWeight.self] }

  /// Creates a collection that sets only ``legibilityWeight``, as UIKit's
  /// `init(legibilityWeight:)` does.
  ///
  /// - Parameter legibilityWeight: The value of ``TraitLegibilityWeight``.
  public init(legibilityWeight: LegibilityWeight) {
    self.init(TraitLegibilityWeight.self, value: legibilityWeight)
  }
}

extension MutableTraits {
  /// The legibility weight: the value of ``TraitLegibilityWeight``.
  public var legibilityWeight: LegibilityWeight {
    get { self[TraitLegibilityWeight.self] }
    set { self[TraitLegibilityWeight.self] = newValue }
  }
}
