/// An object whose trait changes you can observe, trait by trait.
///
/// The counterpart of UIKit's `UITraitChangeObservable`. Register for the traits you depend on;
/// the update pass calls you only when one of them changes, at most once per round, with the
/// collection you last saw (never on registration). Handlers receive the observed object, so they
/// need no `[weak self]`; targets are held weakly.
///
/// A node holds at most 2^26 registrations; while a delivery runs on the node, that counts every
/// cancelled registration whose entry the table has not reclaimed yet. Registering beyond that
/// traps.
///
/// ```swift
/// final class PageView: TraitNode {
///   override init() {
///     super.init()
///     registerForTraitChanges([TraitHorizontalSizeClass.self]) {
///       (self: Self, previousTraitCollection: TraitCollection) in
///       self.updateViews(sizeClass: self.traitCollection.horizontalSizeClass)
///     }
///     registerForTraitChanges([TraitHorizontalSizeClass.self], action: PageView.setNeedsLayout)
///   }
///
///   func updateViews(sizeClass: UserInterfaceSizeClass) { /* … */ }
///   func setNeedsLayout() { /* … */ }
/// }
/// ```
public protocol TraitChangeObservable: AnyObject {
  /// Calls `handler` with the observed object and its previous collection whenever one of
  /// `traits` changes.
  ///
  /// - Parameters:
  ///   - traits: The traits to observe; a semantic set such as
  ///     ``TraitCollection/systemTraitsAffectingColorAppearance`` works too.
  ///   - handler: Called with the observed object and the collection it had when the handler
  ///     was last called (or registered).
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  /// - Precondition: `traits` is not empty, and the observed object is an `Observed`.
  @discardableResult
  func registerForTraitChanges<Observed: TraitEnvironment>(
    _ traits: [Trait],
    handler: consuming @escaping (Observed, TraitCollection) -> Void
  ) -> TraitChangeRegistration

  /// Calls `action` on `target` whenever one of `traits` changes.
  ///
  /// - Parameters:
  ///   - traits: The traits to observe.
  ///   - target: The object to call, held weakly.
  ///   - action: An unapplied method reference such as `MyController.refresh`.
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  /// - Precondition: `traits` is not empty.
  @discardableResult
  func registerForTraitChanges<Target: AnyObject>(
    _ traits: [Trait],
    target: Target,
    action: @escaping (Target) -> () -> Void
  ) -> TraitChangeRegistration

  /// Calls `action` on `target` with the observed object whenever one of `traits` changes.
  ///
  /// - Parameters:
  ///   - traits: The traits to observe.
  ///   - target: The object to call, held weakly.
  ///   - action: An unapplied method reference taking the observed object.
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  /// - Precondition: `traits` is not empty, and the observed object is an `Observed`.
  @discardableResult
  func registerForTraitChanges<Target: AnyObject, Observed: TraitEnvironment>(
    _ traits: [Trait],
    target: Target,
    action: @escaping (Target) -> (Observed) -> Void
  ) -> TraitChangeRegistration

  /// Calls `action` on `target` with the observed object and its previous collection whenever
  /// one of `traits` changes.
  ///
  /// - Parameters:
  ///   - traits: The traits to observe.
  ///   - target: The object to call, held weakly.
  ///   - action: An unapplied method reference such as
  ///     `MyController.handleTraitChange(view:previousTraitCollection:)`.
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  /// - Precondition: `traits` is not empty, and the observed object is an `Observed`.
  @discardableResult
  func registerForTraitChanges<Target: AnyObject, Observed: TraitEnvironment>(
    _ traits: [Trait],
    target: Target,
    action: @escaping (Target) -> (Observed, TraitCollection) -> Void
  ) -> TraitChangeRegistration

  /// Stops the registration `registration` stands for.
  ///
  /// Idempotent; `nil` **(beyond UIKit)** and tokens of other objects' registrations do nothing.
  /// A registration removed during a pass, before its turn, is not called.
  ///
  /// - Parameter registration: The token a registration returned.
  /// - Complexity: O(log *n*) for *n* registrations on the object.
  func unregisterForTraitChanges(_ registration: TraitChangeRegistration?)
}

extension TraitChangeObservable {
  /// Calls `action` on the observed object itself whenever one of `traits` changes.
  ///
  /// ```swift
  /// final class PageView: TraitNode {
  ///   override init() {
  ///     super.init()
  ///     registerForTraitChanges([TraitHorizontalSizeClass.self], action: PageView.setNeedsLayout)
  ///   }
  ///
  ///   func setNeedsLayout() { /* … */ }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - traits: The traits to observe.
  ///   - action: An unapplied method reference of the observed object's type.
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  /// - Precondition: `traits` is not empty.
  @discardableResult
  public func registerForTraitChanges(
    _ traits: [Trait],
    action: @escaping (Self) -> () -> Void
  ) -> TraitChangeRegistration {
    registerForTraitChanges(traits, target: self, action: action)
  }
}
