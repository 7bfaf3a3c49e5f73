public import TraitKit

/// A node that hears of every change of its traits through
/// ``traitCollectionDidChange(_:)``, whichever trait it was.
///
/// The counterpart of UIKit's `traitCollectionDidChange(_:)`, deprecated for the same reason
/// UIKit deprecated it: the engine cannot know which traits the node uses, so it calls the node
/// for every change. Keep it to measure what migrating buys; migrate with
/// ``TraitKit/TraitChangeObservable/registerForTraitChanges(_:handler:)`` for the traits you use
/// (see <doc:MigratingFromTraitCollectionDidChange>).
///
/// Adopt it in a node subclass and call ``adoptTraitCollectionDidChange(interestingTraits:)``
/// once, for example in the initializer:
///
/// ```swift
/// final class LegacyView: TraitNode, TraitCollectionDidChangeObserving {
///   override init() {
///     super.init()
///     adoptTraitCollectionDidChange(interestingTraits: [TraitHorizontalSizeClass.self])
///   }
///
///   func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {
///     if traitCollection.horizontalSizeClass != previousTraitCollection?.horizontalSizeClass {
///       updateLayout()
///     }
///   }
///
///   func updateLayout() { /* … */ }
/// }
/// ```
///
/// The update pass calls it at every pass in which any trait of the node's collection changed,
/// once per round, in tree order, after the node's registrations, with
/// ``TraitKit/TraitCollection/current`` set to the node's collection. `previousTraitCollection`
/// is the collection of the node's last call (or of its adoption). It is never `nil`: UIKit
/// passed `nil` only for a view's first call before iOS 13, and has predicted initial traits
/// since; a TraitKit node always has a collection.
///
/// Nodes that do not adopt it pay nothing: they hold no table entry and the legacy path never
/// visits them.
@available(
  *,
  deprecated,
  message:
    "Use the trait change registration APIs of TraitChangeObservable: registerForTraitChanges(_:handler:) for the traits you use"
)
public protocol TraitCollectionDidChangeObserving: TraitNode {
  /// Called when any trait of the node's collection changed.
  ///
  /// - Parameter previousTraitCollection: The node's collection at its previous call.
  func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?)
}

@available(
  *,
  deprecated,
  message:
    "Use the trait change registration APIs of TraitChangeObservable: registerForTraitChanges(_:handler:) for the traits you use"
)
extension TraitCollectionDidChangeObserving {
  /// Starts calling ``traitCollectionDidChange(_:)`` for every change of this node's traits.
  ///
  /// Calling it again does nothing. The calls last as long as the node.
  ///
  /// - Parameter interestingTraits: The traits the node's implementation actually uses. They
  ///   change nothing about when it is called; a call in which none of them changed counts in
  ///   ``TraitKit/TraitGraph/Statistics/Pass/wastedLegacyCallbacks``, which is what migrating
  ///   would save. With none declared (the default), no call counts as wasted.
  public func adoptTraitCollectionDidChange(interestingTraits: [Trait] = []) {
    guard !_observesAllTraitChanges else { return }
    _ = _registerForAllTraitChanges(interestingTraits: interestingTraits) { node, previous in
      unsafeDowncast(node, to: Self.self).traitCollectionDidChange(previous)
    }
  }
}
