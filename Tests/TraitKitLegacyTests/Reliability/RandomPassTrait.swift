import TraitKit

/// A custom `Int` trait, beside the system traits that the random passes change.
struct RandomPassThemeTrait: TraitDefinition {
  static let defaultValue = 0
}

/// The traits that the random passes write and observe: two system enums, a custom trait and a
/// `Double`, each written with one of three values.
enum RandomPassTrait: CaseIterable, CustomStringConvertible {
  case style
  case sizeClass
  case theme
  case scale

  private static let styles: [UserInterfaceStyle] = [.unspecified, .light, .dark]
  private static let sizeClasses: [UserInterfaceSizeClass] = [.unspecified, .compact, .regular]

  var definition: any TraitDefinition.Type {
    switch self {
    case .style: TraitUserInterfaceStyle.self
    case .sizeClass: TraitHorizontalSizeClass.self
    case .theme: RandomPassThemeTrait.self
    case .scale: TraitDisplayScale.self
    }
  }

  /// The trait's value in `collection`, as a number.
  func value(in collection: TraitCollection) -> Double {
    switch self {
    case .style: Double(collection.userInterfaceStyle.rawValue)
    case .sizeClass: Double(collection.horizontalSizeClass.rawValue)
    case .theme: Double(collection[RandomPassThemeTrait.self])
    case .scale: collection.displayScale
    }
  }

  /// Writes the `choice`th of the trait's three values (0, 1 or 2) into `traits`.
  func write(_ choice: Int, into traits: inout some MutableTraits) {
    switch self {
    case .style: traits.userInterfaceStyle = Self.styles[choice]
    case .sizeClass: traits.horizontalSizeClass = Self.sizeClasses[choice]
    case .theme: traits[RandomPassThemeTrait.self] = choice
    case .scale: traits.displayScale = Double(choice + 1)
    }
  }

  var description: String {
    switch self {
    case .style: "style"
    case .sizeClass: "size"
    case .theme: "theme"
    case .scale: "scale"
    }
  }

  /// The values of every trait of `collection` that the random passes use, for the step log.
  static func describe(_ collection: TraitCollection) -> String {
    "(" + allCases.map { "\($0) \($0.value(in: collection))" }.joined(separator: ", ") + ")"
  }
}
