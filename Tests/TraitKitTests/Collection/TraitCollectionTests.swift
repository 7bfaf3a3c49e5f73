import Testing
import TraitKit

/// A `MutableTraits` that is not of `TraitCollection`'s making; used only inside an exit test.
private struct VTForeignMutableTraits: MutableTraits {
  subscript<T: TraitDefinition>(_ trait: T.Type) -> T.Value {
    get { T.defaultValue }
    set {}
  }
}

/// The error thrown by the throwing bodies of the `performAsCurrent` tests.
private struct VTBodyError: Error {}

/// Requires `T` to be `Sendable` at compile time.
private func vtRequireSendable<T: Sendable>(_: T.Type) {}

@Suite("Trait collections")
struct TraitCollectionTests {
  // MARK: - Construction

  @Test("an empty collection reads every trait as its default")
  func emptyCollectionReadsDefaults() {
    let traits = TraitCollection()
    #expect(traits.userInterfaceStyle == .unspecified)
    #expect(traits.displayScale == 0)
    #expect(traits[VTCountTrait.self] == 0)
    #expect(traits[VTLabelTrait.self] == "")
    #expect(traits[VTGridTrait.self] == VTGridTrait.defaultValue)
    #expect(traits[VTInsetsTrait.self] == VTInsetsTrait.defaultValue)
    #expect(traits[VTMaybeCountTrait.self] == nil)
    #expect(traits[VTHandlerTrait.self]() == 0)
    #expect(traits == TraitCollection())
    #expect(traits.changedTraits(from: TraitCollection()).isEmpty)
  }

  @Test("the closure initializer holds what the closure writes")
  func closureInitializer() {
    let traits = TraitCollection(mutations: { mutableTraits in
      mutableTraits.userInterfaceStyle = .dark
      mutableTraits[VTCountTrait.self] = 4
      mutableTraits[VTLabelTrait.self] = "four"
    })
    #expect(traits.userInterfaceStyle == .dark)
    #expect(traits[VTCountTrait.self] == 4)
    #expect(traits[VTLabelTrait.self] == "four")
    #expect(traits.horizontalSizeClass == .unspecified)
  }

  @Test("the trailing-closure form of the closure initializer builds the same collection")
  func trailingClosureInitializer() {
    let trailing = TraitCollection { mutableTraits in
      mutableTraits.userInterfaceStyle = .dark
      mutableTraits[VTCountTrait.self] = 4
    }
    let labelled = TraitCollection(mutations: { mutableTraits in
      mutableTraits.userInterfaceStyle = .dark
      mutableTraits[VTCountTrait.self] = 4
    })
    let shorthand = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTCountTrait.self] = 4
    }
    #expect(trailing == labelled)
    #expect(shorthand == labelled)
    #expect(trailing.userInterfaceStyle == .dark)
  }

  @Test("the closure initializer starts from the defaults and reads its own writes")
  func closureInitializerStartsFromDefaults() {
    var before: (UserInterfaceStyle, Int)?
    var after: (UserInterfaceStyle, Int)?
    _ = TraitCollection { mutableTraits in
      before = (mutableTraits.userInterfaceStyle, mutableTraits[VTCountTrait.self])
      mutableTraits.userInterfaceStyle = .light
      mutableTraits[VTCountTrait.self] = 9
      after = (mutableTraits.userInterfaceStyle, mutableTraits[VTCountTrait.self])
    }
    #expect(before?.0 == .unspecified)
    #expect(before?.1 == 0)
    #expect(after?.0 == .light)
    #expect(after?.1 == 9)
  }

  @Test("the later of two writes in one closure wins")
  func laterWriteWins() {
    let traits = TraitCollection {
      $0[VTCountTrait.self] = 1
      $0[VTCountTrait.self] = 2
      $0.horizontalSizeClass = .compact
      $0.horizontalSizeClass = .regular
    }
    #expect(traits[VTCountTrait.self] == 2)
    #expect(traits.horizontalSizeClass == .regular)
  }

  @Test("the single-trait initializer sets that trait and nothing else")
  func singleTraitInitializer() {
    let styled = TraitCollection(TraitUserInterfaceStyle.self, value: .dark)
    #expect(styled.userInterfaceStyle == .dark)
    #expect(
      vtIdentifiers(styled.changedTraits(from: TraitCollection()))
        == vtIdentifiers([TraitUserInterfaceStyle.self])
    )
    let labelled = TraitCollection(VTLabelTrait.self, value: "x")
    #expect(labelled[VTLabelTrait.self] == "x")
    #expect(labelled == TraitCollection { $0[VTLabelTrait.self] = "x" })
  }

  @Test("modifyingTraits keeps untouched values and leaves the receiver as it was")
  func modifyingTraitsKeepsUntouchedValues() {
    let original = TraitCollection {
      $0.userInterfaceIdiom = .pad
      $0.horizontalSizeClass = .regular
      $0[VTLabelTrait.self] = "kept"
      $0[VTGridTrait.self] = VTGrid(columns: 3, rows: 2, spacing: 1)
    }
    let modified = original.modifyingTraits {
      $0.horizontalSizeClass = .compact
      $0[VTCountTrait.self] = 5
    }
    #expect(modified.userInterfaceIdiom == .pad)
    #expect(modified.horizontalSizeClass == .compact)
    #expect(modified[VTLabelTrait.self] == "kept")
    #expect(modified[VTGridTrait.self] == VTGrid(columns: 3, rows: 2, spacing: 1))
    #expect(modified[VTCountTrait.self] == 5)
    #expect(original.horizontalSizeClass == .regular)
    #expect(original[VTCountTrait.self] == 0)
  }

  @Test("modifyingTraits hands the closure the receiver's values")
  func modifyingTraitsStartsFromReceiver() {
    let original = TraitCollection {
      $0[VTCountTrait.self] = 10
      $0[VTLabelTrait.self] = "ten"
    }
    let incremented = original.modifyingTraits {
      $0[VTCountTrait.self] += 1
      $0[VTLabelTrait.self] += "!"
    }
    #expect(incremented[VTCountTrait.self] == 11)
    #expect(incremented[VTLabelTrait.self] == "ten!")
  }

  @Test("modifyingTraits that changes nothing returns an equal collection")
  func modifyingTraitsWithoutChanges() {
    let original = TraitCollection { $0[VTInsetsTrait.self] = Self.sampleInsets }
    #expect(original.modifyingTraits { _ in } == original)
    #expect(original.modifyingTraits { $0[VTInsetsTrait.self] = Self.sampleInsets } == original)
  }

  @Test("replacing changes one trait and keeps the others")
  func replacingOneTrait() {
    let original = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTCountTrait.self] = 1
    }
    let replaced = original.replacing(VTCountTrait.self, value: 2)
    #expect(replaced[VTCountTrait.self] == 2)
    #expect(replaced.userInterfaceStyle == .dark)
    #expect(original[VTCountTrait.self] == 1)
    let restyled = replaced.replacing(TraitUserInterfaceStyle.self, value: .light)
    #expect(restyled.userInterfaceStyle == .light)
    #expect(restyled[VTCountTrait.self] == 2)
  }

  @Test("replacing a trait with its default removes it")
  func replacingWithDefault() {
    let original = TraitCollection(VTLabelTrait.self, value: "x")
    let cleared = original.replacing(VTLabelTrait.self, value: "")
    #expect(cleared == TraitCollection())
    #expect(cleared.hashValue == TraitCollection().hashValue)
  }

  @Test("a mutations closure that replaces its container with another traps")
  func replacingTheContainerTraps() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = TraitCollection { $0 = VTForeignMutableTraits() }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("must not replace its MutableTraits"))
  }

  // MARK: - Subscript

  @Test("the subscript reads a trait type first used after the collection was made")
  func subscriptOfLaterTrait() {
    let traits = TraitCollection(VTCountTrait.self, value: 1)
    #expect(traits[VTGenericTrait<UInt16>.self] == 0)
    let extended = traits.replacing(VTGenericTrait<UInt16>.self, value: 16)
    #expect(extended[VTGenericTrait<UInt16>.self] == 16)
    #expect(extended[VTCountTrait.self] == 1)
  }

  // MARK: - Description

  @Test("the description names each set trait by its name, with its value")
  func descriptionUsesNames() {
    let traits = TraitCollection {
      $0[VTThemeTrait.self] = .pastel
      $0.userInterfaceStyle = .dark
    }
    let description = traits.description
    #expect(description.contains("Theme"))
    #expect(description.contains("pastel"))
    #expect(description.contains("UserInterfaceStyle"))
    #expect(description.contains("dark"))
    #expect(!description.contains(VTThemeTrait.identifier))
    #expect(!description.contains("HorizontalSizeClass"))
    #expect(String(describing: traits) == description)
  }

  @Test("the description of an empty collection names no trait")
  func descriptionOfEmptyCollection() {
    let description = TraitCollection().description
    for system in VTSystemTraitCase.all {
      #expect(!description.contains(system.name))
    }
    #expect(TraitCollection(VTCountTrait.self, value: 0).description == description)
  }

  // MARK: - R2: equality and hashing

  static let defaultWrites: [(String, @Sendable (inout any MutableTraits) -> Void)] = [
    ("system enum", { $0.userInterfaceStyle = .unspecified }),
    ("system Double", { $0.displayScale = 0 }),
    ("system optional", { $0.typesettingLanguage = nil }),
    ("custom Int", { $0[VTCountTrait.self] = 0 }),
    ("custom String", { $0[VTLabelTrait.self] = "" }),
    ("custom small struct", { $0[VTGridTrait.self] = VTGridTrait.defaultValue }),
    ("custom large struct", { $0[VTInsetsTrait.self] = VTInsetsTrait.defaultValue }),
    ("custom optional", { $0[VTMaybeCountTrait.self] = nil }),
    ("custom String enum", { $0[UIDensityTrait.self] = .default }),
  ]

  @Test(
    "a trait set to its default equals one that is absent, in == and in hash",
    arguments: defaultWrites
  )
  func defaultEqualsAbsent(_ kind: String, _ write: @Sendable (inout any MutableTraits) -> Void) {
    let explicit = TraitCollection(mutations: write)
    let absent = TraitCollection()
    #expect(explicit == absent, "\(kind)")
    #expect(explicit.hashValue == absent.hashValue, "\(kind)")
    #expect(Set([explicit, absent]).count == 1, "\(kind)")
    #expect(explicit.changedTraits(from: absent).isEmpty, "\(kind)")
    let dictionary = [absent: kind]
    #expect(dictionary[explicit] == kind)
  }

  @Test("a trait set and then reset to its default equals one never set, in == and in hash")
  func resetToDefaultEqualsAbsent() {
    let base = TraitCollection(TraitUserInterfaceStyle.self, value: .dark)
    let reset =
      base
      .replacing(VTCountTrait.self, value: 5)
      .replacing(VTLabelTrait.self, value: "x")
      .replacing(VTInsetsTrait.self, value: Self.sampleInsets)
      .modifyingTraits {
        $0[VTCountTrait.self] = 0
        $0[VTLabelTrait.self] = ""
        $0[VTInsetsTrait.self] = VTInsetsTrait.defaultValue
      }
    #expect(reset == base)
    #expect(reset.hashValue == base.hashValue)
    #expect(Set([reset, base]).count == 1)
    var dictionary: [TraitCollection: Int] = [:]
    dictionary[base] = 1
    dictionary[reset, default: 0] += 1
    #expect(dictionary.count == 1)
    #expect(dictionary[base] == 2)
  }

  @Test("a collection that grew for a newer trait type equals one that did not")
  func grownStorageEqualsEmpty() {
    let grown = TraitCollection(VTGenericTrait<UInt32>.self, value: 32)
      .replacing(VTGenericTrait<UInt32>.self, value: 0)
    #expect(grown == TraitCollection())
    #expect(TraitCollection() == grown)
    #expect(grown.hashValue == TraitCollection().hashValue)
    let styled = TraitCollection(TraitUserInterfaceStyle.self, value: .light)
    let grownStyled = grown.replacing(TraitUserInterfaceStyle.self, value: .light)
    #expect(grownStyled == styled)
    #expect(grownStyled.hashValue == styled.hashValue)
  }

  @Test("collections built by different routes compare and hash equal")
  func differentRoutesAreEqual() {
    let routes = [
      TraitCollection {
        $0.userInterfaceIdiom = .phone
        $0[VTThemeTrait.self] = .bold
        $0[VTInsetsTrait.self] = Self.sampleInsets
      },
      TraitCollection(TraitUserInterfaceIdiom.self, value: .phone)
        .replacing(VTThemeTrait.self, value: .bold)
        .replacing(VTInsetsTrait.self, value: Self.sampleInsets),
      TraitCollection(VTInsetsTrait.self, value: Self.sampleInsets).modifyingTraits {
        $0[VTThemeTrait.self] = .bold
        $0.userInterfaceIdiom = .phone
      },
      TraitCollection(traitsFrom: [
        TraitCollection(VTThemeTrait.self, value: .bold),
        TraitCollection(TraitUserInterfaceIdiom.self, value: .phone),
        TraitCollection(VTInsetsTrait.self, value: Self.sampleInsets),
      ]),
    ]
    for route in routes {
      #expect(route == routes[0])
      #expect(route.hashValue == routes[0].hashValue)
    }
    #expect(Set(routes).count == 1)
  }

  @Test("equality considers custom traits")
  func equalityConsidersCustomTraits() {
    let base = TraitCollection { $0.userInterfaceStyle = .dark }
    let variants = [
      base.replacing(VTCountTrait.self, value: 1),
      base.replacing(VTLabelTrait.self, value: "a"),
      base.replacing(VTGridTrait.self, value: VTGrid(columns: 2, rows: 1, spacing: 0)),
      base.replacing(VTInsetsTrait.self, value: Self.sampleInsets),
      base.replacing(VTThemeTrait.self, value: .monochrome),
      base.replacing(UIDensityTrait.self, value: .compact),
    ]
    for variant in variants {
      #expect(variant != base)
      #expect(base != variant)
    }
    #expect(Set(variants + [base]).count == variants.count + 1)
    #expect(
      base.replacing(VTLabelTrait.self, value: "a") != base.replacing(VTLabelTrait.self, value: "b")
    )
  }

  @Test("collections that differ in a system trait's value hash apart")
  func systemTraitValuesHash() {
    let styles = [UserInterfaceStyle.light, .dark, .unspecified].map { style in
      TraitCollection { $0.userInterfaceStyle = style }
    }
    let classes = [UserInterfaceSizeClass.compact, .regular, .unspecified].map { sizeClass in
      TraitCollection { $0.horizontalSizeClass = sizeClass }
    }
    // NB: a system trait hashes its value, not only its presence, so these hash apart (barring a
    // 64-bit collision) though each sets one trait.
    #expect(Set(styles.map(\.hashValue)).count == 3)
    #expect(Set(classes.map(\.hashValue)).count == 3)
    #expect(Set(styles + classes).count == 5)
  }

  @Test("collections equal under a custom valuesEqual hash equally")
  func hashAgreesWithCustomValuesEqual() {
    let upper = TraitCollection(VTCaseInsensitiveTrait.self, value: "Dark")
    let lower = TraitCollection(VTCaseInsensitiveTrait.self, value: "dark")
    #expect(upper == lower)
    #expect(upper.hashValue == lower.hashValue)
    #expect(Set([upper, lower]).count == 1)

  }

  @Test("equal collections find each other in a set and a dictionary")
  func hashingAgreesWithEquality() {
    let first = TraitCollection {
      $0.horizontalSizeClass = .compact
      $0[VTLabelTrait.self] = "label"
      $0[VTGridTrait.self] = VTGrid(columns: 4, rows: 4, spacing: 2)
    }
    let second = TraitCollection(VTGridTrait.self, value: VTGrid(columns: 4, rows: 4, spacing: 2))
      .replacing(VTLabelTrait.self, value: "label")
      .replacing(TraitHorizontalSizeClass.self, value: .compact)
    let set: Set = [first]
    #expect(set.contains(second))
    let dictionary = [first: "first"]
    #expect(dictionary[second] == "first")
  }

  // MARK: - changedTraits(from:)

  @Test("changedTraits lists exactly the traits whose values differ")
  func changedTraitsListsDifferences() {
    let lhs = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0.horizontalSizeClass = .compact
      $0[VTCountTrait.self] = 1
      $0[VTLabelTrait.self] = "x"
      $0[VTGridTrait.self] = VTGrid(columns: 2, rows: 2, spacing: 0)
    }
    let rhs = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0.horizontalSizeClass = .regular
      $0[VTCountTrait.self] = 1
      $0[VTLabelTrait.self] = "y"
      $0[VTInsetsTrait.self] = Self.sampleInsets
      $0.displayScale = 2
    }
    let expected: [any TraitDefinition.Type] = [
      TraitHorizontalSizeClass.self,
      VTLabelTrait.self,
      VTGridTrait.self,
      VTInsetsTrait.self,
      TraitDisplayScale.self,
    ]
    let changed = lhs.changedTraits(from: rhs)
    #expect(vtIdentifiers(changed) == vtIdentifiers(expected))
    #expect(changed.count == expected.count)
    #expect(vtIdentifiers(rhs.changedTraits(from: lhs)) == vtIdentifiers(expected))
  }

  @Test("changedTraits between equal collections is empty")
  func changedTraitsOfEqualCollections() {
    let traits = TraitCollection {
      $0.layoutDirection = .rightToLeft
      $0[VTInsetsTrait.self] = Self.sampleInsets
    }
    let rebuilt = TraitCollection(VTInsetsTrait.self, value: Self.sampleInsets)
      .replacing(TraitLayoutDirection.self, value: .rightToLeft)
    #expect(traits.changedTraits(from: rebuilt).isEmpty)
    #expect(traits.changedTraits(from: traits).isEmpty)
  }

  // MARK: - containsTraits(in:)

  @Test("containsTraits is true when every trait the argument sets has the same value here")
  func containsTraitsOfSubset() {
    let traits = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0.horizontalSizeClass = .compact
      $0[VTLabelTrait.self] = "x"
    }
    #expect(traits.containsTraits(in: TraitCollection()))
    #expect(traits.containsTraits(in: traits))
    #expect(traits.containsTraits(in: TraitCollection { $0.userInterfaceStyle = .dark }))
    #expect(traits.containsTraits(in: TraitCollection(VTLabelTrait.self, value: "x")))
    #expect(traits.containsTraits(in: TraitCollection(VTCountTrait.self, value: 0)))
  }

  @Test(
    "containsTraits is false when the argument sets a trait this collection lacks or differs on"
  )
  func containsTraitsOfOtherValues() {
    let traits = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTLabelTrait.self] = "x"
    }
    #expect(!traits.containsTraits(in: TraitCollection { $0.userInterfaceStyle = .light }))
    #expect(!traits.containsTraits(in: TraitCollection { $0.verticalSizeClass = .regular }))
    #expect(!traits.containsTraits(in: TraitCollection(VTLabelTrait.self, value: "y")))
    #expect(!traits.containsTraits(in: TraitCollection(VTCountTrait.self, value: 3)))
    #expect(!TraitCollection().containsTraits(in: traits))
  }

  // MARK: - hasDifferentColorAppearance(comparedTo:)

  @Test(
    "a system trait changes color appearance exactly when it affects color appearance",
    arguments: VTSystemTraitCase.all
  )
  func colorAppearanceOfSystemTraits(_ system: VTSystemTraitCase) {
    let base = TraitCollection { $0[VTCountTrait.self] = 1 }
    let changed = base.modifyingTraits { system.write(&$0) }
    #expect(changed.hasDifferentColorAppearance(comparedTo: base) == system.affectsColorAppearance)
    #expect(base.hasDifferentColorAppearance(comparedTo: changed) == system.affectsColorAppearance)
  }

  @Test("custom traits change color appearance exactly when affectsColorAppearance is true")
  func colorAppearanceOfCustomTraits() {
    let base = TraitCollection { $0.userInterfaceStyle = .dark }
    let theme = base.replacing(VTThemeTrait.self, value: .pastel)
    let highlight = base.replacing(VTHighlightTrait.self, value: true)
    let count = base.replacing(VTCountTrait.self, value: 1)
    let label = base.replacing(VTLabelTrait.self, value: "x")
    let density = base.replacing(UIDensityTrait.self, value: .compact)
    #expect(theme.hasDifferentColorAppearance(comparedTo: base))
    #expect(highlight.hasDifferentColorAppearance(comparedTo: base))
    #expect(highlight.hasDifferentColorAppearance(comparedTo: theme))
    #expect(!count.hasDifferentColorAppearance(comparedTo: base))
    #expect(!label.hasDifferentColorAppearance(comparedTo: base))
    #expect(!density.hasDifferentColorAppearance(comparedTo: base))
    #expect(!label.hasDifferentColorAppearance(comparedTo: count))
  }

  @Test("equal collections have the same color appearance")
  func colorAppearanceOfEqualCollections() {
    let traits = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTThemeTrait.self] = .bold
    }
    let rebuilt = TraitCollection(VTThemeTrait.self, value: .bold)
      .replacing(TraitUserInterfaceStyle.self, value: .dark)
    #expect(!traits.hasDifferentColorAppearance(comparedTo: rebuilt))
    #expect(!traits.hasDifferentColorAppearance(comparedTo: traits))
  }

  // MARK: - init(traitsFrom:)

  @Test("merging three collections lets the last one that sets a trait win")
  func mergeOrderOfThree() {
    let first = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0.horizontalSizeClass = .compact
      $0.displayScale = 2
      $0[VTCountTrait.self] = 1
      $0[VTLabelTrait.self] = "first"
      $0[UIDensityTrait.self] = .compact
    }
    let second = TraitCollection {
      $0.userInterfaceStyle = .light
      $0[VTCountTrait.self] = 2
      $0[VTGridTrait.self] = VTGrid(columns: 2, rows: 2, spacing: 2)
      $0[VTInsetsTrait.self] = Self.sampleInsets
    }
    let third = TraitCollection {
      $0.horizontalSizeClass = .regular
      $0[VTGridTrait.self] = VTGrid(columns: 3, rows: 3, spacing: 3)
      $0[VTThemeTrait.self] = .monochrome
    }
    let merged = TraitCollection(traitsFrom: [first, second, third])
    #expect(merged.userInterfaceStyle == .light)
    #expect(merged.horizontalSizeClass == .regular)
    #expect(merged.displayScale == 2)
    #expect(merged[VTCountTrait.self] == 2)
    #expect(merged[VTLabelTrait.self] == "first")
    #expect(merged[UIDensityTrait.self] == .compact)
    #expect(merged[VTGridTrait.self] == VTGrid(columns: 3, rows: 3, spacing: 3))
    #expect(merged[VTInsetsTrait.self] == Self.sampleInsets)
    #expect(merged[VTThemeTrait.self] == .monochrome)
    let expected = TraitCollection {
      $0.userInterfaceStyle = .light
      $0.horizontalSizeClass = .regular
      $0.displayScale = 2
      $0[VTCountTrait.self] = 2
      $0[VTLabelTrait.self] = "first"
      $0[UIDensityTrait.self] = .compact
      $0[VTGridTrait.self] = VTGrid(columns: 3, rows: 3, spacing: 3)
      $0[VTInsetsTrait.self] = Self.sampleInsets
      $0[VTThemeTrait.self] = .monochrome
    }
    #expect(merged == expected)
    #expect(merged.hashValue == expected.hashValue)
  }

  @Test("merging in reverse order lets the other collection win")
  func mergeOrderReversed() {
    let dark = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTLabelTrait.self] = "dark"
    }
    let light = TraitCollection {
      $0.userInterfaceStyle = .light
      $0[VTLabelTrait.self] = "light"
    }
    #expect(TraitCollection(traitsFrom: [dark, light]) == light)
    #expect(TraitCollection(traitsFrom: [light, dark]) == dark)
  }

  @Test("a trait a later collection leaves at its default keeps an earlier value")
  func mergeDoesNotEraseWithDefaults() {
    let earlier = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTLabelTrait.self] = "kept"
      $0[VTInsetsTrait.self] = Self.sampleInsets
    }
    let explicitDefaults = TraitCollection {
      $0.userInterfaceStyle = .unspecified
      $0[VTLabelTrait.self] = ""
      $0[VTInsetsTrait.self] = VTInsetsTrait.defaultValue
    }
    for later in [TraitCollection(), explicitDefaults] {
      let merged = TraitCollection(traitsFrom: [earlier, later])
      #expect(merged == earlier)
      #expect(merged[VTLabelTrait.self] == "kept")
      #expect(merged[VTInsetsTrait.self] == Self.sampleInsets)
    }
  }

  @Test("merging no collections or one collection gives that collection")
  func mergeOfFewCollections() {
    #expect(TraitCollection(traitsFrom: []) == TraitCollection())
    let single = TraitCollection { $0[VTThemeTrait.self] = .bold }
    #expect(TraitCollection(traitsFrom: [single]) == single)
    #expect(TraitCollection(traitsFrom: [TraitCollection(), single, TraitCollection()]) == single)
  }

  // MARK: - Values

  static let sampleInsets = VTInsets(top: 12, leading: 16, bottom: 12, trailing: 16, label: "cell")

  @Test("an Equatable struct of several fields within 8 bytes compares by value")
  func smallStructValues() {
    let grid = VTGrid(columns: 4, rows: 3, spacing: 1.5)
    let traits = TraitCollection(VTGridTrait.self, value: grid)
    #expect(traits[VTGridTrait.self] == grid)
    #expect(traits[VTGridTrait.self].spacing == 1.5)
    let again = TraitCollection { $0[VTGridTrait.self] = VTGrid(columns: 4, rows: 3, spacing: 1.5) }
    #expect(traits == again)
    #expect(traits.hashValue == again.hashValue)
    for changed in [
      VTGrid(columns: 5, rows: 3, spacing: 1.5),
      VTGrid(columns: 4, rows: 2, spacing: 1.5),
      VTGrid(columns: 4, rows: 3, spacing: 1),
    ] {
      let other = traits.replacing(VTGridTrait.self, value: changed)
      #expect(other != traits)
      #expect(vtIdentifiers(other.changedTraits(from: traits)) == vtIdentifiers([VTGridTrait.self]))
    }
  }

  @Test("an Equatable struct larger than 8 bytes compares by value")
  func largeStructValues() {
    let traits = TraitCollection(VTInsetsTrait.self, value: Self.sampleInsets)
    #expect(traits[VTInsetsTrait.self] == Self.sampleInsets)
    #expect(traits[VTInsetsTrait.self].label == "cell")
    let again = TraitCollection {
      $0[VTInsetsTrait.self] = VTInsets(
        top: 12,
        leading: 16,
        bottom: 12,
        trailing: 16,
        label: "cell"
      )
    }
    #expect(traits == again)
    #expect(traits.hashValue == again.hashValue)
    var wider = Self.sampleInsets
    wider.trailing = 20
    var renamed = Self.sampleInsets
    renamed.label = "row"
    for changed in [wider, renamed] {
      let other = traits.replacing(VTInsetsTrait.self, value: changed)
      #expect(other != traits)
      #expect(other[VTInsetsTrait.self] == changed)
      #expect(
        vtIdentifiers(other.changedTraits(from: traits)) == vtIdentifiers([VTInsetsTrait.self])
      )
    }
  }

  @Test("a String enum value is read back, compared and hashed by value")
  func stringEnumValues() {
    let compact = TraitCollection { $0.uiDensity = .compact }
    #expect(compact.uiDensity == .compact)
    #expect(compact[UIDensityTrait.self].rawValue == "compact")
    #expect(TraitCollection().uiDensity == .default)
    let again = TraitCollection(UIDensityTrait.self, value: .compact)
    #expect(compact == again)
    #expect(compact.hashValue == again.hashValue)
    #expect(compact != TraitCollection())
    #expect(compact.replacing(UIDensityTrait.self, value: .default) == TraitCollection())
  }

  @Test("a Double trait treats 0.0 and -0.0 as equal values")
  func negativeZero() {
    #expect(VTScaleTrait.valuesEqual(0.0, -0.0))
    let positive = TraitCollection(VTScaleTrait.self, value: 0.0)
    let negative = TraitCollection(VTScaleTrait.self, value: -0.0)
    #expect(positive != TraitCollection())
    #expect(positive == negative)
    #expect(positive.hashValue == negative.hashValue)
    #expect(Set([positive, negative]).count == 1)
    #expect(positive.changedTraits(from: negative).isEmpty)
    #expect(positive.containsTraits(in: negative))
    #expect(positive.replacing(VTScaleTrait.self, value: -0.0) == positive)
  }

  @Test("-0.0 written to a Double trait whose default is 0.0 is the default")
  func negativeZeroIsTheDefault() {
    let negative = TraitCollection { $0.displayScale = -0.0 }
    #expect(negative == TraitCollection())
    #expect(negative.hashValue == TraitCollection().hashValue)
    #expect(negative.displayScale == 0)
    #expect(!negative.description.contains("DisplayScale"))
    let merged = TraitCollection(traitsFrom: [TraitCollection { $0.displayScale = 3 }, negative])
    #expect(merged.displayScale == 3)
  }

  @Test("a collection holding NaN equals itself and its copies")
  func notANumber() {
    let traits = TraitCollection(VTScaleTrait.self, value: .nan)
    let copy = traits
    #expect(traits[VTScaleTrait.self].isNaN)
    #expect(traits == copy)
    #expect(traits.changedTraits(from: copy).isEmpty)
    #expect(Set([traits, copy]).count == 1)
  }

  @Test("optional values distinguish nil from a set value")
  func optionalValues() {
    let arabic = TraitCollection { $0.typesettingLanguage = "ar" }
    #expect(arabic.typesettingLanguage == "ar")
    #expect(arabic[TraitTypesettingLanguage.self] == "ar")
    #expect(arabic != TraitCollection())
    #expect(arabic.replacing(TraitTypesettingLanguage.self, value: "he") != arabic)
    #expect(arabic.replacing(TraitTypesettingLanguage.self, value: nil) == TraitCollection())
    let zero = TraitCollection(VTMaybeCountTrait.self, value: 0)
    #expect(zero[VTMaybeCountTrait.self] == 0)
    #expect(zero != TraitCollection())
    #expect(zero == TraitCollection { $0[VTMaybeCountTrait.self] = 0 })
    #expect(zero.hashValue == TraitCollection { $0[VTMaybeCountTrait.self] = 0 }.hashValue)
    let no = TraitCollection(VTMaybeFlagTrait.self, value: false)
    let yes = TraitCollection(VTMaybeFlagTrait.self, value: true)
    #expect(no[VTMaybeFlagTrait.self] == false)
    #expect(yes[VTMaybeFlagTrait.self] == true)
    #expect(Set([no, yes, TraitCollection()]).count == 3)
    #expect(yes.replacing(VTMaybeFlagTrait.self, value: nil) == TraitCollection())
  }

  @Test("tasks that build on one shared collection at once leave it unchanged")
  func concurrentModifications() async {
    let shared = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTLabelTrait.self] = "shared"
      $0[VTInsetsTrait.self] = Self.sampleInsets
    }
    let results = await withTaskGroup(of: (Int, TraitCollection).self) { group in
      for index in 1...32 {
        group.addTask {
          let modified = shared.modifyingTraits {
            $0[VTCountTrait.self] = index
            $0[VTLabelTrait.self] += "\(index)"
          }
          return (index, modified.replacing(TraitDisplayScale.self, value: Double(index)))
        }
      }
      var results: [(Int, TraitCollection)] = []
      for await result in group { results.append(result) }
      return results
    }
    #expect(results.count == 32)
    for (index, traits) in results {
      #expect(traits[VTCountTrait.self] == index)
      #expect(traits[VTLabelTrait.self] == "shared\(index)")
      #expect(traits.displayScale == Double(index))
      #expect(traits.userInterfaceStyle == .dark)
      #expect(traits[VTInsetsTrait.self] == Self.sampleInsets)
    }
    #expect(Set(results.map(\.1)).count == 32)
    #expect(shared[VTCountTrait.self] == 0)
    #expect(shared[VTLabelTrait.self] == "shared")
    #expect(shared.displayScale == 0)
  }

  // MARK: - current and performAsCurrent

  @Test("current is an empty collection outside any scope")
  func currentOutsideAnyScope() {
    #expect(TraitCollection.current == TraitCollection())
  }

  @Test("performAsCurrent sets current for its body, returns its result, and restores current")
  func performAsCurrentSetsAndRestores() {
    let traits = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTThemeTrait.self] = .pastel
    }
    let seen = traits.performAsCurrent { TraitCollection.current }
    #expect(seen == traits)
    #expect(seen[VTThemeTrait.self] == .pastel)
    #expect(traits.performAsCurrent { 42 } == 42)
    #expect(TraitCollection.current == TraitCollection())
  }

  @Test("nested performAsCurrent calls each restore the enclosing current")
  func nestedPerformAsCurrent() {
    let outer = TraitCollection(TraitUserInterfaceStyle.self, value: .light)
    let inner = TraitCollection(TraitUserInterfaceStyle.self, value: .dark)
    var observed: [UserInterfaceStyle] = []
    outer.performAsCurrent {
      observed.append(TraitCollection.current.userInterfaceStyle)
      inner.performAsCurrent {
        observed.append(TraitCollection.current.userInterfaceStyle)
        TraitCollection().performAsCurrent {
          observed.append(TraitCollection.current.userInterfaceStyle)
        }
        observed.append(TraitCollection.current.userInterfaceStyle)
      }
      observed.append(TraitCollection.current.userInterfaceStyle)
    }
    observed.append(TraitCollection.current.userInterfaceStyle)
    #expect(observed == [.light, .dark, .unspecified, .dark, .light, .unspecified])
  }

  @Test("performAsCurrent restores current when its body throws")
  func performAsCurrentWithThrowingBody() {
    let outer = TraitCollection(VTCountTrait.self, value: 1)
    let inner = TraitCollection(VTCountTrait.self, value: 2)
    var insideInner: Int?
    var afterInner: Int?
    outer.performAsCurrent {
      #expect(throws: VTBodyError.self) {
        try inner.performAsCurrent {
          insideInner = TraitCollection.current[VTCountTrait.self]
          throw VTBodyError()
        }
      }
      afterInner = TraitCollection.current[VTCountTrait.self]
    }
    #expect(insideInner == 2)
    #expect(afterInner == 1)
    #expect(throws: VTBodyError.self) {
      try outer.performAsCurrent { throw VTBodyError() }
    }
    #expect(TraitCollection.current == TraitCollection())
  }

  @Test("a task created inside performAsCurrent inherits current, which is task-local there")
  func taskInsidePerformAsCurrentInheritsCurrent() async {
    let traits = TraitCollection(VTCountTrait.self, value: 7)
    let task = traits.performAsCurrent {
      Task { TraitCollection.current[VTCountTrait.self] }
    }
    #expect(await task.value == 7)
    #expect(TraitCollection.current == TraitCollection())
  }

  // MARK: - Sendable

  @Test("a collection can be sent to another task and still compares equal")
  func sendToAnotherTask() async {
    vtRequireSendable(TraitCollection.self)
    let traits = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTLabelTrait.self] = "sent"
      $0[VTInsetsTrait.self] = Self.sampleInsets
      $0[VTHandlerTrait.self] = { 5 }
    }
    let received = await Task.detached { traits }.value
    #expect(received == traits)
    let read = await Task.detached {
      (traits[VTLabelTrait.self], traits[VTInsetsTrait.self], traits[VTHandlerTrait.self]())
    }.value
    #expect(read.0 == "sent")
    #expect(read.1 == Self.sampleInsets)
    #expect(read.2 == 5)
    let builtElsewhere = await Task.detached {
      TraitCollection {
        $0.userInterfaceStyle = .dark
        $0[VTLabelTrait.self] = "sent"
        $0[VTInsetsTrait.self] = Self.sampleInsets
      }
    }.value
    #expect(builtElsewhere != traits)
    #expect(
      builtElsewhere.changedTraits(from: traits).map(ObjectIdentifier.init)
        == [ObjectIdentifier(VTHandlerTrait.self)]
    )
  }

  @Test("the optional forms UIKit takes compare nil with a collection of defaults")
  func optionalComparisons() {
    let dark = TraitCollection { $0.userInterfaceStyle = .dark }
    let none: TraitCollection? = nil
    #expect(
      vtIdentifiers(dark.changedTraits(from: none)) == vtIdentifiers([TraitUserInterfaceStyle.self])
    )
    #expect(dark.hasDifferentColorAppearance(comparedTo: none))
    #expect(!TraitCollection().hasDifferentColorAppearance(comparedTo: none))
    #expect(dark.containsTraits(in: none))
    let optionalDark: TraitCollection? = dark
    #expect(dark.changedTraits(from: optionalDark).isEmpty)
    #expect(!dark.hasDifferentColorAppearance(comparedTo: optionalDark))
    #expect(TraitCollection().containsTraits(in: optionalDark) == false)
  }
}
