/// The trait that holds the language that text in an environment is typeset for.
///
/// The counterpart of UIKit's `UITraitTypesettingLanguage`. UIKit's value is a
/// `Locale.Language?`; so that this module needs no Foundation, the value here is the language's
/// BCP 47 tag, such as `"ar"` or `"zh-Hant"`. It defaults to `nil`: no typesetting language.
public struct TraitTypesettingLanguage: TraitDefinition {
  /// `nil`: no typesetting language.
  public static let defaultValue: String? = nil
  /// `"TypesettingLanguage"`.
  public static let name = "TypesettingLanguage"
  /// `"UITraitTypesettingLanguage"`, UIKit's identifier.
  public static let identifier = "UITraitTypesettingLanguage"
  /// `false`: the typesetting language does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The typesetting language as a BCP 47 tag, or `nil`: the value of
  /// ``TraitTypesettingLanguage``.
  public var typesettingLanguage: String? { self[TraitTypesettingLanguage.self] }

  /// Creates a collection that sets only ``typesettingLanguage``, as UIKit's
  /// `init(typesettingLanguage:)` does.
  ///
  /// - Parameter typesettingLanguage: The value of ``TraitTypesettingLanguage``.
  public init(typesettingLanguage: String?) {
    self.init(TraitTypesettingLanguage.self, value: typesettingLanguage)
  }
}

extension MutableTraits {
  /// The typesetting language as a BCP 47 tag, or `nil`: the value of
  /// ``TraitTypesettingLanguage``.
  public var typesettingLanguage: String? {
    get { self[TraitTypesettingLanguage.self] }
    set { self[TraitTypesettingLanguage.self] = newValue }
  }
}
