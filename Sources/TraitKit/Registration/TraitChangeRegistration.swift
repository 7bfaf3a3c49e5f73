import Synchronization

/// An opaque token for one trait change registration.
///
/// The counterpart of UIKit's `UITraitChangeRegistration`. Pass it to
/// ``TraitChangeObservable/unregisterForTraitChanges(_:)`` to stop observing before the observed
/// node goes away. You don't have to keep it: a registration lives exactly as long as its
/// observed node, and the token keeps nothing alive.
public struct TraitChangeRegistration: Hashable, Sendable {
  /// The serial of the registration table that numbered the registration: process-wide unique,
  /// so that another node's token matches nothing.
  let serial: UInt64
  /// The registration's number in that table; numbers increase in registration order.
  let sequence: UInt32
  /// Where the registration's entry was in its node's table when it was made.
  ///
  /// A hint that spares cancelling a search, checked against `sequence` before it is trusted (a
  /// compaction may have moved the entry since). Tokens with equal serials and sequences have
  /// equal hints.
  let positionHint: Int32

  /// A new process-wide unique table serial.
  static func nextSerial() -> UInt64 {
    serials.wrappingAdd(1, ordering: .relaxed).newValue
  }

  private static let serials = Atomic<UInt64>(0)
}
