/// The system trait types, in the order of DESIGN §2.1.
///
/// The registry registers these first, so that they take the dense indices 0…17 in this order.
let _systemTraitTypes: [any _SystemTraitDefinition.Type] = [
  TraitUserInterfaceIdiom.self,
  TraitUserInterfaceStyle.self,
  TraitLayoutDirection.self,
  TraitDisplayScale.self,
  TraitHorizontalSizeClass.self,
  TraitVerticalSizeClass.self,
  TraitForceTouchCapability.self,
  TraitPreferredContentSizeCategory.self,
  TraitDisplayGamut.self,
  TraitAccessibilityContrast.self,
  TraitUserInterfaceLevel.self,
  TraitLegibilityWeight.self,
  TraitActiveAppearance.self,
  TraitToolbarItemPresentationSize.self,
  TraitImageDynamicRange.self,
  TraitTypesettingLanguage.self,
  TraitSceneCaptureState.self,
  TraitListEnvironment.self,
]

extension TraitCollection {
  /// The system traits that can change how dynamic colors resolve.
  ///
  /// The counterpart of UIKit's property of the same name. Register for these to update
  /// anything drawn with colors you resolved yourself:
  ///
  /// ```swift
  /// registerForTraitChanges(TraitCollection.systemTraitsAffectingColorAppearance) {
  ///   (self: Self, previousTraitCollection: TraitCollection) in
  ///   self.updateBorderColor()
  /// }
  /// ```
  ///
  /// They are the system traits whose ``TraitDefinition/affectsColorAppearance`` is `true`:
  /// ``TraitUserInterfaceIdiom``, ``TraitUserInterfaceStyle``, ``TraitDisplayGamut``,
  /// ``TraitAccessibilityContrast``, ``TraitUserInterfaceLevel`` and ``TraitListEnvironment``.
  public static var systemTraitsAffectingColorAppearance: [Trait] { colorAppearanceTraits }

  /// The system traits that can change which variant of a named image loads.
  ///
  /// The counterpart of UIKit's property of the same name: ``TraitUserInterfaceIdiom``,
  /// ``TraitUserInterfaceStyle``, ``TraitLayoutDirection``, ``TraitDisplayScale``,
  /// ``TraitHorizontalSizeClass``, ``TraitVerticalSizeClass``,
  /// ``TraitPreferredContentSizeCategory``, ``TraitDisplayGamut``,
  /// ``TraitAccessibilityContrast`` and ``TraitLegibilityWeight``.
  public static var systemTraitsAffectingImageLookup: [Trait] { imageLookupTraits }

  private static let colorAppearanceTraits: [Trait] = [
    TraitUserInterfaceIdiom.self,
    TraitUserInterfaceStyle.self,
    TraitDisplayGamut.self,
    TraitAccessibilityContrast.self,
    TraitUserInterfaceLevel.self,
    TraitListEnvironment.self,
  ]

  private static let imageLookupTraits: [Trait] = [
    TraitUserInterfaceIdiom.self,
    TraitUserInterfaceStyle.self,
    TraitLayoutDirection.self,
    TraitDisplayScale.self,
    TraitHorizontalSizeClass.self,
    TraitVerticalSizeClass.self,
    TraitPreferredContentSizeCategory.self,
    TraitDisplayGamut.self,
    TraitAccessibilityContrast.self,
    TraitLegibilityWeight.self,
  ]
}

/// Marks the system traits, whose `valuesEqual` is their values' `==`, and whose values hash
/// and are `Codable`.
protocol _SystemTraitDefinition: TraitDefinition where Value: Hashable & Codable {}

extension _SystemTraitDefinition {
  /// Builds this system trait's registry entry; lets the registry open the existential.
  static func _makeInfo(index: Int) -> _TraitInfo {
    _TraitInfo(systemTrait: Self.self, index: index)
  }
}

extension TraitUserInterfaceIdiom: _SystemTraitDefinition {}
extension TraitUserInterfaceStyle: _SystemTraitDefinition {}
extension TraitLayoutDirection: _SystemTraitDefinition {}
extension TraitDisplayScale: _SystemTraitDefinition {}
extension TraitHorizontalSizeClass: _SystemTraitDefinition {}
extension TraitVerticalSizeClass: _SystemTraitDefinition {}
extension TraitForceTouchCapability: _SystemTraitDefinition {}
extension TraitPreferredContentSizeCategory: _SystemTraitDefinition {}
extension TraitDisplayGamut: _SystemTraitDefinition {}
extension TraitAccessibilityContrast: _SystemTraitDefinition {}
extension TraitUserInterfaceLevel: _SystemTraitDefinition {}
extension TraitLegibilityWeight: _SystemTraitDefinition {}
extension TraitActiveAppearance: _SystemTraitDefinition {}
extension TraitToolbarItemPresentationSize: _SystemTraitDefinition {}
extension TraitImageDynamicRange: _SystemTraitDefinition {}
extension TraitTypesettingLanguage: _SystemTraitDefinition {}
extension TraitSceneCaptureState: _SystemTraitDefinition {}
extension TraitListEnvironment: _SystemTraitDefinition {}
