import Foundation
import Testing
import TraitKit

// The trait-definition and trait-collection samples of seeds/000 ("Unleash the UIKit trait
// system", WWDC23) and seeds/001 ("How to Use Custom Trait Collections in SwiftUI and UIKit"),
// copied with only the `UI` prefix of UIKit's names dropped (`UITraitCollection` →
// `TraitCollection`, `UITraitDefinition` → `TraitDefinition`, `UIMutableTraits` →
// `MutableTraits`). The app's own names (`MyAppTheme`, `UIDensity`, `UIDensityTrait`, …) are
// kept as the seeds spell them. Each sample is followed by a test of what the seed says of it.
//
// NB: the declarations below are module-wide; other suites should use these rather than declare
// the seeds' types again.

// MARK: - Seed 000, 10:23: Adding property syntax for custom traits

struct ContainedInSettingsTrait: TraitDefinition {
  static let defaultValue = false
}

extension TraitCollection {
  var isContainedInSettings: Bool { self[ContainedInSettingsTrait.self] }
}

extension MutableTraits {
  var isContainedInSettings: Bool {
    get { self[ContainedInSettingsTrait.self] }
    set { self[ContainedInSettingsTrait.self] = newValue }
  }
}

// MARK: - Seed 000, 11:00: Defining a theme trait that affects color appearance

enum MyAppTheme: Int {
  case standard, pastel, bold, monochrome
}

struct MyAppThemeTrait: TraitDefinition {
  static let defaultValue = MyAppTheme.standard
  static let affectsColorAppearance = true
  static let name = "Theme"
  static let identifier = "com.myapp.theme"
}

extension TraitCollection {
  var myAppTheme: MyAppTheme { self[MyAppThemeTrait.self] }
}

extension MutableTraits {
  var myAppTheme: MyAppTheme {
    get { self[MyAppThemeTrait.self] }
    set { self[MyAppThemeTrait.self] = newValue }
  }
}

// NB: not in the seed. Its key point says the identifier "supports encoding", which needs a
// `Codable` value; an `Int` raw value enum gets the conformance for free.
extension MyAppTheme: Codable {}

// MARK: - Seed 001: the UIDensity trait

enum UIDensity: String, CaseIterable, Identifiable {
  case `default`
  case compact

  var id: String { self.rawValue }
}

struct UIDensityTrait: TraitDefinition {
  static let defaultValue = UIDensity.default
}

extension MutableTraits {
  var uiDensity: UIDensity {
    get { self[UIDensityTrait.self] }
    set { self[UIDensityTrait.self] = newValue }
  }
}

extension TraitCollection {
  var uiDensity: UIDensity {
    self[UIDensityTrait.self]
  }
}

// NB: UIKit's `NSDirectionalEdgeInsets` does not exist on Linux; this tiny struct stands in for
// it so that the seed's `UIDensity` extension compiles unchanged. `CGFloat` is Foundation's.
struct NSDirectionalEdgeInsets: Equatable {
  var top: CGFloat
  var leading: CGFloat
  var bottom: CGFloat
  var trailing: CGFloat
}

extension UIDensity {
  var cellMargins: NSDirectionalEdgeInsets {
    switch self {
    case .default:
      return NSDirectionalEdgeInsets(top: 12, leading: 16, bottom: 12, trailing: 16)
    case .compact:
      return NSDirectionalEdgeInsets(top: 8, leading: 14, bottom: 8, trailing: 14)
    }
  }

  var cellSpacing: CGFloat {
    switch self {
    case .default: 14
    case .compact: 8
    }
  }
}

// MARK: - Tests

@Suite("Seed value samples")
struct SeedValueSamplesTests {
  // MARK: Seed 000, 01:51: Creating and modifying trait collections

  @Test("01:51 the closure initializer builds a collection and modifyingTraits a modified copy")
  func creatingAndModifyingTraitCollections() {
    // Build a new trait collection instance from scratch
    let myTraits = TraitCollection { mutableTraits in
      mutableTraits.userInterfaceIdiom = .phone
      mutableTraits.horizontalSizeClass = .regular
    }

    // Get a new instance by modifying traits of an existing one
    let otherTraits = myTraits.modifyingTraits { mutableTraits in
      mutableTraits.horizontalSizeClass = .compact
      mutableTraits.userInterfaceStyle = .dark
    }

    #expect(myTraits.userInterfaceIdiom == .phone)
    #expect(myTraits.horizontalSizeClass == .regular)
    #expect(myTraits.userInterfaceStyle == .unspecified)
    // modifyingTraits creates a modified copy: untouched values are kept…
    #expect(otherTraits.userInterfaceIdiom == .phone)
    #expect(otherTraits.horizontalSizeClass == .compact)
    #expect(otherTraits.userInterfaceStyle == .dark)
    // …and the original is immutable.
    #expect(myTraits.horizontalSizeClass == .regular)
    #expect(
      vtIdentifiers(otherTraits.changedTraits(from: myTraits))
        == vtIdentifiers([TraitHorizontalSizeClass.self, TraitUserInterfaceStyle.self])
    )
  }

  // MARK: Seed 000, 09:06: Defining a simple custom trait

  /// Seed 000 at 09:06.
  ///
  /// The seed declares `ContainedInSettingsTrait` twice (09:06 and 10:23); this suite nests the
  /// 09:06 copy so that both compile in one module.
  @Suite("09:06 Defining a simple custom trait")
  struct DefiningASimpleCustomTrait {
    struct ContainedInSettingsTrait: TraitDefinition {
      static let defaultValue = false
    }

    @Test("09:06 a custom trait set in the closure initializer reads true")
    func simpleCustomTrait() {
      let traitCollection = TraitCollection { mutableTraits in
        mutableTraits[ContainedInSettingsTrait.self] = true
      }

      let value = traitCollection[ContainedInSettingsTrait.self]
      // true

      #expect(value == true)
    }

    @Test("09:06 the value type is inferred from defaultValue, and unset reads the default")
    func valueTypeAndDefault() {
      let value: ContainedInSettingsTrait.Value = TraitCollection()[ContainedInSettingsTrait.self]
      #expect(type(of: value) == Bool.self)
      #expect(value == false)
    }
  }

  // MARK: Seed 000, 10:23: Adding property syntax for custom traits

  @Test("10:23 the mutable-traits property writes what the collection property reads")
  func propertySyntax() {
    let traitCollection = TraitCollection { mutableTraits in
      mutableTraits.isContainedInSettings = true
    }

    let value = traitCollection.isContainedInSettings
    // true

    #expect(value == true)
    #expect(traitCollection[ContainedInSettingsTrait.self] == true)
    #expect(TraitCollection().isContainedInSettings == false)
  }

  @Test("10:23 the mutable-traits property reads back inside the closure")
  func propertySyntaxReadsBack() {
    var readBack: Bool?
    let traitCollection = TraitCollection { mutableTraits in
      mutableTraits.isContainedInSettings = true
      readBack = mutableTraits.isContainedInSettings
    }
    #expect(readBack == true)
    #expect(
      traitCollection.modifyingTraits { $0.isContainedInSettings = false } == TraitCollection()
    )
  }

  // MARK: Seed 000, 11:00: Defining a theme trait that affects color appearance

  @Test("11:00 the theme trait's witnesses are the seed's constants")
  func themeTraitWitnesses() {
    #expect(MyAppThemeTrait.defaultValue == .standard)
    #expect(MyAppThemeTrait.affectsColorAppearance == true)
    #expect(MyAppThemeTrait.name == "Theme")
    #expect(MyAppThemeTrait.identifier == "com.myapp.theme")
  }

  @Test("11:00 the theme properties write and read the theme")
  func themeProperties() {
    let traits = TraitCollection { $0.myAppTheme = .pastel }
    #expect(traits.myAppTheme == .pastel)
    #expect(traits[MyAppThemeTrait.self] == .pastel)
    #expect(TraitCollection().myAppTheme == .standard)
    #expect(traits.modifyingTraits { $0.myAppTheme = .bold }.myAppTheme == .bold)
  }

  @Test("11:00 a theme change changes color appearance")
  func themeAffectsColorAppearance() {
    let standard = TraitCollection { $0.myAppTheme = .standard }
    let monochrome = TraitCollection { $0.myAppTheme = .monochrome }
    #expect(monochrome.hasDifferentColorAppearance(comparedTo: standard))
    #expect(!standard.hasDifferentColorAppearance(comparedTo: TraitCollection()))
  }

  @Test("11:00 the name is used for debug output")
  func themeNameInDescription() {
    let description = TraitCollection { $0.myAppTheme = .bold }.description
    #expect(description.contains("Theme"))
    #expect(description.contains("bold"))
    #expect(!description.contains("com.myapp.theme"))
  }

  @Test("11:00 the identifier keys the theme when a collection is encoded")
  func themeIdentifierInEncoding() throws {
    let traits = TraitCollection { $0.myAppTheme = .monochrome }
    let data = try JSONEncoder().encode(traits)
    #expect(String(decoding: data, as: UTF8.self) == #"{"com.myapp.theme":3}"#)
    #expect(try JSONDecoder().decode(TraitCollection.self, from: data).myAppTheme == .monochrome)
  }

  // MARK: Seed 000, 12:33: Using a custom theme trait

  @Test(
    "12:33 a color provider reads the theme from the collection it is given",
    arguments: [
      (MyAppTheme.standard, "StandardBackground"),
      (.pastel, "PastelBackground"),
      (.bold, "BoldBackground"),
      (.monochrome, "MonochromeBackground"),
    ]
  )
  func themedColorProvider(theme: MyAppTheme, assetName: String) {
    // NB: `UIColor` and `UIView` belong to TraitKitUI, not to this module; this keeps the
    // provider closure's switch over the trait, and models each `UIColor(named:)` by the name
    // of the asset it loads.
    let customBackgroundColor = { (traitCollection: TraitCollection) -> String in
      switch traitCollection.myAppTheme {
      case .standard: return "StandardBackground"
      case .pastel: return "PastelBackground"
      case .bold: return "BoldBackground"
      case .monochrome: return "MonochromeBackground"
      }
    }

    let traits = TraitCollection { $0.myAppTheme = theme }
    #expect(customBackgroundColor(traits) == assetName)
    // A dynamic color resolves against the current collection when it is not given one.
    #expect(traits.performAsCurrent { customBackgroundColor(.current) } == assetName)
  }

  // MARK: Seed 001: the UIDensity trait

  @Test("001 the density trait defaults to .default when no density is set")
  func densityDefault() {
    #expect(UIDensityTrait.defaultValue == .default)
    #expect(TraitCollection().uiDensity == .default)
    #expect(TraitNode().traitCollection.uiDensity == .default)
  }

  @Test("001 the mutable-traits extension sets the density the collection extension reads")
  func densityProperties() {
    let compact = TraitCollection { $0.uiDensity = .compact }
    #expect(compact.uiDensity == .compact)
    #expect(compact[UIDensityTrait.self] == .compact)
    #expect(compact.modifyingTraits { $0.uiDensity = .default } == TraitCollection())
  }

  @Test("001 the mutable-traits extension configures the trait hierarchy through overrides")
  func densityThroughOverrides() {
    let scene = TraitNode()
    let view = TraitNode()
    scene.addTraitChild(view)
    scene.traitOverrides.uiDensity = .compact
    #expect(scene.traitCollection.uiDensity == .compact)
    #expect(view.traitCollection.uiDensity == .compact)
  }

  @Test("001 the density enum is identified by its raw value and lists both cases")
  func densityEnum() {
    #expect(UIDensity.allCases == [.default, .compact])
    #expect(UIDensity.default.id == "default")
    #expect(UIDensity.compact.id == "compact")
  }

  @Test("001 each density read from a collection has its margins and spacing")
  func densityMetrics() {
    let standard = TraitCollection { $0.uiDensity = .default }
    #expect(
      standard.uiDensity.cellMargins
        == NSDirectionalEdgeInsets(top: 12, leading: 16, bottom: 12, trailing: 16)
    )
    #expect(standard.uiDensity.cellSpacing == 14)
    let compact = TraitCollection { $0.uiDensity = .compact }
    #expect(
      compact.uiDensity.cellMargins
        == NSDirectionalEdgeInsets(top: 8, leading: 14, bottom: 8, trailing: 14)
    )
    #expect(compact.uiDensity.cellSpacing == 8)
  }
}
