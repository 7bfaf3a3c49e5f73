import TraitKit

/// The app's colour theme, as in the WWDC23 session (seed 000, 11:00).
enum AppTheme: Int, Sendable, CaseIterable {
  case standard, pastel, bold, monochrome
}

/// The custom theme trait of the app-shaped workloads: an `Int`-backed enum that affects color
/// appearance, set on the scene.
struct AppThemeTrait: TraitDefinition {
  static let defaultValue = AppTheme.standard
  static let affectsColorAppearance = true
  static let name = "Theme"
  static let identifier = "com.traitkit.bench.theme"
}

extension TraitCollection {
  /// The app's theme: the value of ``AppThemeTrait``.
  var appTheme: AppTheme { self[AppThemeTrait.self] }
}

extension MutableTraits {
  /// The app's theme: the value of ``AppThemeTrait``.
  var appTheme: AppTheme {
    get { self[AppThemeTrait.self] }
    set { self[AppThemeTrait.self] = newValue }
  }
}
