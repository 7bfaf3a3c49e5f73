/// The coarse size of an environment along one axis.
///
/// The counterpart of UIKit's `UIUserInterfaceSizeClass`, with the same cases and raw values.
/// It is the value of both ``TraitHorizontalSizeClass`` and ``TraitVerticalSizeClass``.
public enum UserInterfaceSizeClass: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified size class: the environment has not been given one.
  case unspecified = 0
  /// A compact size class: constrained space.
  case compact = 1
  /// A regular size class: expansive space.
  case regular = 2
}
