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
  /// Where the registration's entry was in its node's table when it was made.
  ///
  /// A hint that spares cancelling a search, checked against `id` before it is trusted (a
  /// compaction may have moved the entry since). Tokens with equal ids have equal hints.
  let positionHint: Int32

  /// A new process-wide unique id.
  static func nextID() -> UInt64 {
    counter.wrappingAdd(1, ordering: .relaxed).newValue
  }

  private static let counter = Atomic<UInt64>(0)
}
