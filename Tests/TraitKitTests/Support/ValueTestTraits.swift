import Testing
import TraitKit

// Trait definitions shared by the value-layer suites (Definitions/, Collection/, Seeds/).
// Every type is prefixed `VT` so that it cannot clash with other suites' support types.
// Traits with an explicit identifier use the `com.traitkit.tests.vt.` prefix.

// MARK: - Scalar traits

/// A `Bool` trait with every witness but `defaultValue` left to the protocol's defaults.
struct VTFlagTrait: TraitDefinition {
  static let defaultValue = false
}

/// An `Int` trait with the default witnesses.
struct VTCountTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A second `Int` trait with the same default as ``VTCountTrait``: a different trait all the same.
struct VTOtherCountTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A `Double` trait whose default is not zero, so that `0.0` and `-0.0` are both set values.
struct VTScaleTrait: TraitDefinition {
  static let defaultValue = 1.0
  static let identifier = "com.traitkit.tests.vt.scale"
}

/// An optional `Int` trait, stored boxed.
struct VTMaybeCountTrait: TraitDefinition {
  static let defaultValue: Int? = nil
  static let identifier = "com.traitkit.tests.vt.maybe-count"
}

/// An optional `Bool` trait: plain data of one byte whose `nil` is neither `false` nor `true`.
struct VTMaybeFlagTrait: TraitDefinition {
  static let defaultValue: Bool? = nil
}

/// A `String` trait, stored boxed.
struct VTLabelTrait: TraitDefinition {
  static let defaultValue = ""
  static let identifier = "com.traitkit.tests.vt.label"
}

// MARK: - Enum traits

/// The values of ``VTThemeTrait``: an `Int` raw value enum, like the seed's `MyAppTheme`.
enum VTTheme: Int, Sendable, Hashable, Codable {
  case standard
  case pastel
  case bold
  case monochrome
}

/// A theme trait that affects color appearance and names itself `Theme` in debug output.
struct VTThemeTrait: TraitDefinition {
  static let defaultValue = VTTheme.standard
  static let affectsColorAppearance = true
  static let name = "Theme"
  static let identifier = "com.traitkit.tests.vt.theme"
}

/// A custom trait that affects color appearance, with a `Bool` value.
struct VTHighlightTrait: TraitDefinition {
  static let defaultValue = false
  static let affectsColorAppearance = true
  static let identifier = "com.traitkit.tests.vt.highlight"
}

// MARK: - Struct traits

/// An `Equatable` struct of several fields that fits in 8 bytes.
struct VTGrid: Hashable, Sendable, Codable {
  var columns: Int16
  var rows: Int16
  var spacing: Float
}

/// A trait whose value is ``VTGrid``.
struct VTGridTrait: TraitDefinition {
  static let defaultValue = VTGrid(columns: 1, rows: 1, spacing: 0)
  static let identifier = "com.traitkit.tests.vt.grid"
}

/// An `Equatable` struct larger than 8 bytes.
struct VTInsets: Hashable, Sendable, Codable {
  var top: Double
  var leading: Double
  var bottom: Double
  var trailing: Double
  var label: String
}

/// A trait whose value is ``VTInsets``.
struct VTInsetsTrait: TraitDefinition {
  static let defaultValue = VTInsets(top: 0, leading: 0, bottom: 0, trailing: 0, label: "none")
  static let identifier = "com.traitkit.tests.vt.insets"
}

/// An `Equatable` (not `Hashable`) value whose `==` ignores ``cache``.
struct VTTagged: Equatable, Sendable {
  var id: Int32
  var cache: Int32

  static func == (lhs: VTTagged, rhs: VTTagged) -> Bool { lhs.id == rhs.id }
}

/// A trait whose value is ``VTTagged``.
struct VTTaggedTrait: TraitDefinition {
  static let defaultValue = VTTagged(id: 0, cache: 0)
}

// MARK: - Non-Equatable traits

/// A trait whose value is a closure: not `Equatable`, so each write is a change.
struct VTHandlerTrait: TraitDefinition {
  static let defaultValue: @Sendable () -> Int = { 0 }
}

/// A non-`Equatable` struct that fits in 8 bytes.
struct VTToken: Sendable {
  var raw: Int32
}

/// A trait whose value is ``VTToken``.
struct VTTokenTrait: TraitDefinition {
  static let defaultValue = VTToken(raw: 0)
}

/// A non-`Equatable` struct larger than 8 bytes.
struct VTPayload: Sendable {
  var id: Int
  var name: String
}

/// A trait whose value is ``VTPayload``.
struct VTPayloadTrait: TraitDefinition {
  static let defaultValue = VTPayload(id: 0, name: "")
}

// MARK: - Custom witnesses

/// A `String` trait whose ``valuesEqual(_:_:)`` ignores case.
struct VTCaseInsensitiveTrait: TraitDefinition {
  static let defaultValue = "none"

  static func valuesEqual(_ lhs: String, _ rhs: String) -> Bool {
    lhs.lowercased() == rhs.lowercased()
  }
}

/// A non-`Equatable` value whose trait compares it by ``id``.
struct VTIdentified: Sendable {
  var id: Int
  var action: @Sendable () -> Int
}

/// A trait whose non-`Equatable` value is compared by a custom ``valuesEqual(_:_:)``.
struct VTIdentifiedTrait: TraitDefinition {
  static let defaultValue = VTIdentified(id: 0) { 0 }

  static func valuesEqual(_ lhs: VTIdentified, _ rhs: VTIdentified) -> Bool { lhs.id == rhs.id }
}

/// A trait whose witnesses are all computed properties.
struct VTComputedTrait: TraitDefinition {
  static var defaultValue: Int { 40 + 2 }
  static var name: String { "Computed" + "Trait" }
  static var identifier: String { "com.traitkit.tests.vt." + "computed" }
  static var affectsColorAppearance: Bool { 1 + 1 == 2 }
}

/// A trait whose witnesses are stored `static var`s.
struct VTStoredVarTrait: TraitDefinition {
  // NB: a stored `static var` is global mutable state; Swift 6 asks to mark it
  // `nonisolated(unsafe)`, and these are never written.
  nonisolated(unsafe) static var defaultValue = "stored"
  nonisolated(unsafe) static var name = "StoredVar"
  nonisolated(unsafe) static var identifier = "com.traitkit.tests.vt.stored-var"
  nonisolated(unsafe) static var affectsColorAppearance = true
}

/// A generic trait: each specialization is a trait of its own.
struct VTGenericTrait<Value: Sendable & Equatable & ExpressibleByIntegerLiteral>: TraitDefinition {
  static var defaultValue: Value { 0 }
}

// MARK: - System trait table

/// One system trait, with what UIKit documents for it and closures that go through its
/// `TraitCollection` and `MutableTraits` properties.
struct VTSystemTraitCase: Sendable, CustomTestStringConvertible {
  let trait: any TraitDefinition.Type
  let name: String
  let identifier: String
  let affectsColorAppearance: Bool
  /// Whether the trait's `defaultValue` is the documented default.
  let hasDocumentedDefault: @Sendable () -> Bool
  /// Sets the trait to a non-default sample value through its `MutableTraits` property.
  let write: @Sendable (inout any MutableTraits) -> Void
  /// Whether the `MutableTraits` property reads the sample value.
  let mutableReadsSample: @Sendable (any MutableTraits) -> Bool
  /// Whether the `TraitCollection` property and the subscript both read the sample value.
  let readsSample: @Sendable (TraitCollection) -> Bool
  /// Whether the `TraitCollection` property and the subscript both read the documented default.
  let readsDefault: @Sendable (TraitCollection) -> Bool

  var testDescription: String { name }

  static func make<T: TraitDefinition>(
    _ trait: T.Type,
    name: String,
    affectsColorAppearance: Bool = false,
    documentedDefault: T.Value,
    sample: T.Value,
    read: @escaping @Sendable (TraitCollection) -> T.Value,
    mutableRead: @escaping @Sendable (any MutableTraits) -> T.Value,
    write: @escaping @Sendable (inout any MutableTraits, T.Value) -> Void
  ) -> VTSystemTraitCase where T.Value: Equatable {
    VTSystemTraitCase(
      trait: trait,
      name: name,
      identifier: "UITrait" + name,
      affectsColorAppearance: affectsColorAppearance,
      hasDocumentedDefault: { T.defaultValue == documentedDefault },
      write: { write(&$0, sample) },
      mutableReadsSample: { mutableRead($0) == sample },
      readsSample: { read($0) == sample && $0[T.self] == sample },
      readsDefault: { read($0) == documentedDefault && $0[T.self] == documentedDefault }
    )
  }

  /// The 18 system traits of DESIGN §2.1, with UIKit's names, identifiers, defaults and flags.
  static let all: [VTSystemTraitCase] = [
    .make(
      TraitUserInterfaceIdiom.self,
      name: "UserInterfaceIdiom",
      affectsColorAppearance: true,
      documentedDefault: .unspecified,
      sample: .pad,
      read: { $0.userInterfaceIdiom },
      mutableRead: { $0.userInterfaceIdiom },
      write: { $0.userInterfaceIdiom = $1 }
    ),
    .make(
      TraitUserInterfaceStyle.self,
      name: "UserInterfaceStyle",
      affectsColorAppearance: true,
      documentedDefault: .unspecified,
      sample: .dark,
      read: { $0.userInterfaceStyle },
      mutableRead: { $0.userInterfaceStyle },
      write: { $0.userInterfaceStyle = $1 }
    ),
    .make(
      TraitLayoutDirection.self,
      name: "LayoutDirection",
      documentedDefault: .unspecified,
      sample: .rightToLeft,
      read: { $0.layoutDirection },
      mutableRead: { $0.layoutDirection },
      write: { $0.layoutDirection = $1 }
    ),
    .make(
      TraitDisplayScale.self,
      name: "DisplayScale",
      documentedDefault: 0.0,
      sample: 3.0,
      read: { $0.displayScale },
      mutableRead: { $0.displayScale },
      write: { $0.displayScale = $1 }
    ),
    .make(
      TraitHorizontalSizeClass.self,
      name: "HorizontalSizeClass",
      documentedDefault: .unspecified,
      sample: .compact,
      read: { $0.horizontalSizeClass },
      mutableRead: { $0.horizontalSizeClass },
      write: { $0.horizontalSizeClass = $1 }
    ),
    .make(
      TraitVerticalSizeClass.self,
      name: "VerticalSizeClass",
      documentedDefault: .unspecified,
      sample: .regular,
      read: { $0.verticalSizeClass },
      mutableRead: { $0.verticalSizeClass },
      write: { $0.verticalSizeClass = $1 }
    ),
    .make(
      TraitForceTouchCapability.self,
      name: "ForceTouchCapability",
      documentedDefault: .unknown,
      sample: .available,
      read: { $0.forceTouchCapability },
      mutableRead: { $0.forceTouchCapability },
      write: { $0.forceTouchCapability = $1 }
    ),
    .make(
      TraitPreferredContentSizeCategory.self,
      name: "PreferredContentSizeCategory",
      documentedDefault: .unspecified,
      sample: .accessibilityLarge,
      read: { $0.preferredContentSizeCategory },
      mutableRead: { $0.preferredContentSizeCategory },
      write: { $0.preferredContentSizeCategory = $1 }
    ),
    .make(
      TraitDisplayGamut.self,
      name: "DisplayGamut",
      affectsColorAppearance: true,
      documentedDefault: .unspecified,
      sample: .P3,
      read: { $0.displayGamut },
      mutableRead: { $0.displayGamut },
      write: { $0.displayGamut = $1 }
    ),
    .make(
      TraitAccessibilityContrast.self,
      name: "AccessibilityContrast",
      affectsColorAppearance: true,
      documentedDefault: .unspecified,
      sample: .high,
      read: { $0.accessibilityContrast },
      mutableRead: { $0.accessibilityContrast },
      write: { $0.accessibilityContrast = $1 }
    ),
    .make(
      TraitUserInterfaceLevel.self,
      name: "UserInterfaceLevel",
      affectsColorAppearance: true,
      documentedDefault: .unspecified,
      sample: .elevated,
      read: { $0.userInterfaceLevel },
      mutableRead: { $0.userInterfaceLevel },
      write: { $0.userInterfaceLevel = $1 }
    ),
    .make(
      TraitLegibilityWeight.self,
      name: "LegibilityWeight",
      documentedDefault: .unspecified,
      sample: .bold,
      read: { $0.legibilityWeight },
      mutableRead: { $0.legibilityWeight },
      write: { $0.legibilityWeight = $1 }
    ),
    .make(
      TraitActiveAppearance.self,
      name: "ActiveAppearance",
      documentedDefault: .unspecified,
      sample: .inactive,
      read: { $0.activeAppearance },
      mutableRead: { $0.activeAppearance },
      write: { $0.activeAppearance = $1 }
    ),
    .make(
      TraitToolbarItemPresentationSize.self,
      name: "ToolbarItemPresentationSize",
      documentedDefault: .unspecified,
      sample: .large,
      read: { $0.toolbarItemPresentationSize },
      mutableRead: { $0.toolbarItemPresentationSize },
      write: { $0.toolbarItemPresentationSize = $1 }
    ),
    .make(
      TraitImageDynamicRange.self,
      name: "ImageDynamicRange",
      documentedDefault: .unspecified,
      sample: .constrainedHigh,
      read: { $0.imageDynamicRange },
      mutableRead: { $0.imageDynamicRange },
      write: { $0.imageDynamicRange = $1 }
    ),
    .make(
      TraitTypesettingLanguage.self,
      name: "TypesettingLanguage",
      documentedDefault: nil,
      sample: "zh-Hant",
      read: { $0.typesettingLanguage },
      mutableRead: { $0.typesettingLanguage },
      write: { $0.typesettingLanguage = $1 }
    ),
    .make(
      TraitSceneCaptureState.self,
      name: "SceneCaptureState",
      documentedDefault: .unspecified,
      sample: .active,
      read: { $0.sceneCaptureState },
      mutableRead: { $0.sceneCaptureState },
      write: { $0.sceneCaptureState = $1 }
    ),
    .make(
      TraitListEnvironment.self,
      name: "ListEnvironment",
      affectsColorAppearance: true,
      documentedDefault: .unspecified,
      sample: .insetGrouped,
      read: { $0.listEnvironment },
      mutableRead: { $0.listEnvironment },
      write: { $0.listEnvironment = $1 }
    ),
  ]
}

/// The `ObjectIdentifier`s of some traits, for comparing lists of traits as sets.
func vtIdentifiers(_ traits: [any TraitDefinition.Type]) -> Set<ObjectIdentifier> {
  Set(traits.map { ObjectIdentifier($0) })
}
