import Testing
import TraitKit

/// The raw values of one system enum next to the ones UIKit documents.
struct VTRawValueCase: Sendable, CustomTestStringConvertible {
  let name: String
  let actual: [Int]
  let documented: [Int]

  var testDescription: String { name }
}

@Suite("System traits")
struct SystemTraitsTests {
  static let rawValueCases: [VTRawValueCase] = [
    VTRawValueCase(
      name: "UserInterfaceIdiom",
      actual: UserInterfaceIdiom.allCases.map(\.rawValue),
      documented: [-1, 0, 1, 2, 3, 5, 6]
    ),
    VTRawValueCase(
      name: "UserInterfaceStyle",
      actual: UserInterfaceStyle.allCases.map(\.rawValue),
      documented: [0, 1, 2]
    ),
    VTRawValueCase(
      name: "TraitEnvironmentLayoutDirection",
      actual: TraitEnvironmentLayoutDirection.allCases.map(\.rawValue),
      documented: [-1, 0, 1]
    ),
    VTRawValueCase(
      name: "UserInterfaceSizeClass",
      actual: UserInterfaceSizeClass.allCases.map(\.rawValue),
      documented: [0, 1, 2]
    ),
    VTRawValueCase(
      name: "ForceTouchCapability",
      actual: ForceTouchCapability.allCases.map(\.rawValue),
      documented: [0, 1, 2]
    ),
    VTRawValueCase(
      name: "DisplayGamut",
      actual: DisplayGamut.allCases.map(\.rawValue),
      documented: [-1, 0, 1]
    ),
    VTRawValueCase(
      name: "AccessibilityContrast",
      actual: AccessibilityContrast.allCases.map(\.rawValue),
      documented: [-1, 0, 1]
    ),
    VTRawValueCase(
      name: "UserInterfaceLevel",
      actual: UserInterfaceLevel.allCases.map(\.rawValue),
      documented: [-1, 0, 1]
    ),
    VTRawValueCase(
      name: "LegibilityWeight",
      actual: LegibilityWeight.allCases.map(\.rawValue),
      documented: [-1, 0, 1]
    ),
    VTRawValueCase(
      name: "UserInterfaceActiveAppearance",
      actual: UserInterfaceActiveAppearance.allCases.map(\.rawValue),
      documented: [-1, 0, 1]
    ),
    VTRawValueCase(
      name: "NSToolbarItemPresentationSize",
      actual: NSToolbarItemPresentationSize.allCases.map(\.rawValue),
      documented: [-1, 0, 1, 3]
    ),
    VTRawValueCase(
      name: "ImageDynamicRange",
      actual: ImageDynamicRange.allCases.map(\.rawValue),
      documented: [-1, 0, 1, 2]
    ),
    VTRawValueCase(
      name: "SceneCaptureState",
      actual: SceneCaptureState.allCases.map(\.rawValue),
      documented: [-1, 0, 1]
    ),
    VTRawValueCase(
      name: "ListEnvironment",
      actual: ListEnvironment.allCases.map(\.rawValue),
      documented: [0, 1, 2, 3, 4, 5, 6]
    ),
  ]

  // MARK: - The 18 traits

  @Test("there are 18 system traits, each a distinct type with a distinct identifier")
  func eighteenDistinctTraits() {
    let cases = VTSystemTraitCase.all
    #expect(cases.count == 18)
    #expect(vtIdentifiers(cases.map(\.trait)).count == 18)
    #expect(Set(cases.map { $0.trait.identifier }).count == 18)
  }

  @Test("each system trait has UIKit's name and identifier", arguments: VTSystemTraitCase.all)
  func nameAndIdentifier(_ system: VTSystemTraitCase) {
    #expect(system.trait.name == system.name)
    #expect(system.trait.identifier == system.identifier)
  }

  @Test(
    "each system trait affects color appearance exactly when UIKit's does",
    arguments: VTSystemTraitCase.all
  )
  func affectsColorAppearanceFlag(_ system: VTSystemTraitCase) {
    #expect(system.trait.affectsColorAppearance == system.affectsColorAppearance)
  }

  @Test("each system trait defaults to UIKit's unspecified value", arguments: VTSystemTraitCase.all)
  func defaults(_ system: VTSystemTraitCase) {
    #expect(system.hasDocumentedDefault())
    #expect(system.readsDefault(TraitCollection()))
  }

  @Test(
    "each collection property reads what the mutable-traits property wrote",
    arguments: VTSystemTraitCase.all
  )
  func propertyRoundTrip(_ system: VTSystemTraitCase) {
    let traits = TraitCollection { system.write(&$0) }
    #expect(system.readsSample(traits))
    #expect(traits != TraitCollection())
    #expect(
      vtIdentifiers(traits.changedTraits(from: TraitCollection())) == vtIdentifiers([system.trait])
    )
  }

  @Test(
    "each mutable-traits property reads back its own write inside the closure",
    arguments: VTSystemTraitCase.all
  )
  func mutablePropertyReadsBack(_ system: VTSystemTraitCase) {
    var readBack = false
    _ = TraitCollection { traits in
      system.write(&traits)
      readBack = system.mutableReadsSample(traits)
    }
    #expect(readBack)
  }

  @Test(
    "a mutable-traits property starts from the receiver's value in modifyingTraits",
    arguments: VTSystemTraitCase.all
  )
  func mutablePropertyStartsFromReceiver(_ system: VTSystemTraitCase) {
    let traits = TraitCollection { system.write(&$0) }
    var startsFromReceiver = false
    let unchanged = traits.modifyingTraits { startsFromReceiver = system.mutableReadsSample($0) }
    #expect(startsFromReceiver)
    #expect(unchanged == traits)
  }

  @Test(
    "writing one system trait leaves every other at its default",
    arguments: VTSystemTraitCase.all
  )
  func writesAreIndependent(_ system: VTSystemTraitCase) {
    let traits = TraitCollection { system.write(&$0) }
    for other in VTSystemTraitCase.all where other.name != system.name {
      #expect(other.readsDefault(traits), "\(other.name) after writing \(system.name)")
    }
  }

  @Test("all 18 system traits can be set in one collection and read back")
  func allTraitsTogether() {
    let traits = TraitCollection { mutable in
      for system in VTSystemTraitCase.all { system.write(&mutable) }
    }
    for system in VTSystemTraitCase.all {
      #expect(system.readsSample(traits), "\(system.name)")
    }
    #expect(traits.changedTraits(from: TraitCollection()).count == 18)
  }

  // MARK: - Raw values

  @Test("system enums carry UIKit's raw values", arguments: rawValueCases)
  func rawValues(_ rawValues: VTRawValueCase) {
    #expect(rawValues.actual == rawValues.documented)
  }

  @Test("content size categories carry UIKit's raw strings")
  func contentSizeCategoryRawValues() {
    #expect(ContentSizeCategory.unspecified.rawValue == "_UICTContentSizeCategoryUnspecified")
    #expect(ContentSizeCategory.extraSmall.rawValue == "UICTContentSizeCategoryXS")
    #expect(ContentSizeCategory.large.rawValue == "UICTContentSizeCategoryL")
    #expect(ContentSizeCategory.extraExtraExtraLarge.rawValue == "UICTContentSizeCategoryXXXL")
    #expect(
      ContentSizeCategory.accessibilityExtraExtraExtraLarge.rawValue
        == "UICTContentSizeCategoryAccessibilityXXXL"
    )
    #expect(ContentSizeCategory.allCases.count == 13)
  }

  @Test("specific system enum cases map to UIKit's numbers")
  func specificRawValues() {
    #expect(UserInterfaceIdiom.mac.rawValue == 5)
    #expect(UserInterfaceIdiom.vision.rawValue == 6)
    #expect(UserInterfaceStyle.dark.rawValue == 2)
    #expect(UserInterfaceSizeClass.regular.rawValue == 2)
    #expect(DisplayGamut.P3.rawValue == 1)
    #expect(NSToolbarItemPresentationSize.large.rawValue == 3)
    #expect(ListEnvironment.sidebarPlain.rawValue == 6)
    #expect(UserInterfaceIdiom(rawValue: 4) == nil)
  }

  @Test("typesettingLanguage is an optional BCP 47 tag that defaults to nil")
  func typesettingLanguage() {
    #expect(TraitCollection().typesettingLanguage == nil)
    let arabic = TraitCollection { $0.typesettingLanguage = "ar" }
    #expect(arabic.typesettingLanguage == "ar")
    let cleared = arabic.modifyingTraits { $0.typesettingLanguage = nil }
    #expect(cleared.typesettingLanguage == nil)
    #expect(cleared == TraitCollection())
  }

  // MARK: - Semantic sets

  @Test("systemTraitsAffectingColorAppearance has exactly DESIGN's six traits")
  func colorAppearanceSet() {
    let expected: [any TraitDefinition.Type] = [
      TraitUserInterfaceIdiom.self,
      TraitUserInterfaceStyle.self,
      TraitDisplayGamut.self,
      TraitAccessibilityContrast.self,
      TraitUserInterfaceLevel.self,
      TraitListEnvironment.self,
    ]
    let actual = TraitCollection.systemTraitsAffectingColorAppearance
    #expect(vtIdentifiers(actual) == vtIdentifiers(expected))
    #expect(actual.count == expected.count)
  }

  @Test("systemTraitsAffectingColorAppearance is the system traits whose flag is set")
  func colorAppearanceSetMatchesFlags() {
    let flagged = VTSystemTraitCase.all.filter { $0.trait.affectsColorAppearance }.map(\.trait)
    #expect(
      vtIdentifiers(TraitCollection.systemTraitsAffectingColorAppearance) == vtIdentifiers(flagged)
    )
  }

  @Test("systemTraitsAffectingImageLookup has exactly DESIGN's ten traits")
  func imageLookupSet() {
    let expected: [any TraitDefinition.Type] = [
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
    let actual = TraitCollection.systemTraitsAffectingImageLookup
    #expect(vtIdentifiers(actual) == vtIdentifiers(expected))
    #expect(actual.count == expected.count)
  }

  @Test("each system trait has UIKit's initializer of a collection that sets only it")
  func singleTraitInitializers() {
    let collections: [(TraitCollection, any TraitDefinition.Type)] = [
      (TraitCollection(userInterfaceIdiom: .pad), TraitUserInterfaceIdiom.self),
      (TraitCollection(userInterfaceStyle: .dark), TraitUserInterfaceStyle.self),
      (TraitCollection(layoutDirection: .rightToLeft), TraitLayoutDirection.self),
      (TraitCollection(displayScale: 2), TraitDisplayScale.self),
      (TraitCollection(horizontalSizeClass: .compact), TraitHorizontalSizeClass.self),
      (TraitCollection(verticalSizeClass: .regular), TraitVerticalSizeClass.self),
      (TraitCollection(forceTouchCapability: .available), TraitForceTouchCapability.self),
      (
        TraitCollection(preferredContentSizeCategory: .large),
        TraitPreferredContentSizeCategory.self
      ),
      (TraitCollection(displayGamut: .P3), TraitDisplayGamut.self),
      (TraitCollection(accessibilityContrast: .high), TraitAccessibilityContrast.self),
      (TraitCollection(userInterfaceLevel: .elevated), TraitUserInterfaceLevel.self),
      (TraitCollection(legibilityWeight: .bold), TraitLegibilityWeight.self),
      (TraitCollection(activeAppearance: .active), TraitActiveAppearance.self),
      (TraitCollection(toolbarItemPresentationSize: .small), TraitToolbarItemPresentationSize.self),
      (TraitCollection(imageDynamicRange: .high), TraitImageDynamicRange.self),
      (TraitCollection(typesettingLanguage: "ja"), TraitTypesettingLanguage.self),
      (TraitCollection(sceneCaptureState: .active), TraitSceneCaptureState.self),
      (TraitCollection(listEnvironment: .sidebar), TraitListEnvironment.self),
    ]
    #expect(Set(collections.map { ObjectIdentifier($0.1) }).count == 18)
    for (collection, trait) in collections {
      #expect(
        vtIdentifiers(collection.changedTraits(from: TraitCollection())) == vtIdentifiers([trait])
      )
    }
    let merged = TraitCollection(traitsFrom: [
      TraitCollection(horizontalSizeClass: .compact), TraitCollection(userInterfaceStyle: .dark),
    ])
    #expect(merged.horizontalSizeClass == .compact)
    #expect(merged.userInterfaceStyle == .dark)
  }
}
