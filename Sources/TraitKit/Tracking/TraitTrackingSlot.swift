/// The name of a tracked method of a node, such as its layout or its drawing.
///
/// Automatic trait tracking keeps one record of trait reads per (node, slot): each tracked run
/// of a slot replaces that slot's previous record. A host names its slots after the methods it
/// tracks; TraitKit predefines the ones UIKit tracks.
public struct TraitTrackingSlot: Hashable, Sendable, CustomStringConvertible {
  /// The slot's name.
  public let name: String

  /// Creates a slot named `name`.
  ///
  /// - Parameter name: A name unique among the slots of one node.
  public init(_ name: String) { self.name = name }

  /// The slot's name.
  public var description: String { name }

  /// Layout (`layoutSubviews`, `viewWillLayoutSubviews`); invalidation: `setNeedsLayout`.
  public static let layout = TraitTrackingSlot("layout")
  /// Drawing (`draw(_:)`); invalidation: `setNeedsDisplay`.
  public static let display = TraitTrackingSlot("display")
  /// Content and styling (`updateProperties`); invalidation: `setNeedsUpdateProperties`.
  public static let properties = TraitTrackingSlot("properties")
  /// Constraints (`updateConstraints`); invalidation: `setNeedsUpdateConstraints`.
  public static let constraints = TraitTrackingSlot("constraints")
}
