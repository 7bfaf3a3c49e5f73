/// An object that has a trait collection.
///
/// The counterpart of UIKit's `UITraitEnvironment`. ``TraitNode`` and every class derived from it
/// conform.
public protocol TraitEnvironment: AnyObject {
  /// The object's current traits.
  var traitCollection: TraitCollection { get }
}
