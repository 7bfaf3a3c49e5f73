import Synchronization

/// An opaque token for one trait change registration.
///
/// The counterpart of UIKit's `UITraitChangeRegistration`. Pass it to
/// ``TraitChangeObservable/unregisterForTraitChanges(_:)`` to stop observing before the observed
/// node goes away. You don't have to keep it: a registration lives exactly as long as its
/// observed node, and the token keeps nothing alive.
public struct TraitChangeRegistration: Hashable, Sendable {
  /// The registration's process-wide unique id; ids increase in registration order.
  let id: UInt64

  static func next() -> TraitChangeRegistration {
    TraitChangeRegistration(id: nextID.wrappingAdd(1, ordering: .relaxed).newValue)
  }

  private static let nextID = Atomic<UInt64>(0)
}
