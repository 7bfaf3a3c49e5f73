/// The color gamut of an environment's display.
///
/// The counterpart of UIKit's `UIDisplayGamut`, with the same cases, spelled as in UIKit's Swift
/// interface (``SRGB`` and ``P3``), and the same raw values.
public enum DisplayGamut: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified gamut: the environment has not been given one.
  case unspecified = -1
  // NB: `SRGB` and `P3` keep UIKit's capitalization, so that UIKit code ports by dropping `UI`.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// The sRGB display gamut.
  case SRGB = 0
  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// The Display P3 gamut.
  case P3 = 1
}

/// The trait that holds the color gamut of an environment's display.
///
/// The counterpart of UIKit's `UITraitDisplayGamut`. It defaults to
/// ``DisplayGamut/unspecified`` and affects color appearance.
public struct TraitDisplayGamut: TraitDefinition {
  /// ``DisplayGamut/unspecified``.
  public static let defaultValue = DisplayGamut.unspecified
  /// `"DisplayGamut"`.
  public static let name = "DisplayGamut"
  /// `"UITraitDisplayGamut"`, UIKit's identifier.
  public static let identifier = "UITraitDisplayGamut"
  /// `true`: dynamic colors can resolve differently for each gamut.
  public static let affectsColorAppearance = true
}

extension TraitCollection {
  /// The display gamut: the value of ``TraitDisplayGamut``.
  public var displayGamut: DisplayGamut { self[TraitDisplayGamut.self] }

  /// Creates a collection that sets only ``displayGamut``, as UIKit's
  /// `init(displayGamut:)` does.
  ///
  /// - Parameter displayGamut: The value of ``TraitDisplayGamut``.
  public init(displayGamut: DisplayGamut) {
    self.init(TraitDisplayGamut.self, value: displayGamut)
  }
}

extension MutableTraits {
  /// The display gamut: the value of ``TraitDisplayGamut``.
  public var displayGamut: DisplayGamut {
    get { self[TraitDisplayGamut.self] }
    set { self[TraitDisplayGamut.self] = newValue }
  }
}
