/// The style of the list, if any, that contains an environment.
///
/// The counterpart of UIKit's `UIListEnvironment`, with the same cases and raw values. UIKit sets
/// it on views inside table views and inside list sections of collection views.
public enum ListEnvironment: Int, Sendable, Hashable, CaseIterable, Codable {
  /// Unspecified: nothing is known about a containing list.
  case unspecified = 0
  /// There is no containing list.
  case none = 1
  /// The containing list is a plain-style list.
  case plain = 2
  /// The containing list is a grouped-style list.
  case grouped = 3
  /// The containing list is an inset-grouped-style list.
  case insetGrouped = 4
  /// The containing list is a sidebar-style list.
  case sidebar = 5
  /// The containing list is a sidebar-plain-style list.
  case sidebarPlain = 6
}

/// The trait that holds the style of the list that contains an environment.
///
/// The counterpart of UIKit's `UITraitListEnvironment`. It defaults to
/// ``ListEnvironment/unspecified`` and affects color appearance.
public struct TraitListEnvironment: TraitDefinition {
  /// ``ListEnvironment/unspecified``.
  public static let defaultValue = ListEnvironment.unspecified
  /// `"ListEnvironment"`.
  public static let name = "ListEnvironment"
  /// `"UITraitListEnvironment"`, UIKit's identifier.
  public static let identifier = "UITraitListEnvironment"
  /// `true`: dynamic colors can resolve differently for each list style.
  public static let affectsColorAppearance = true
}

extension TraitCollection {
  /// The list environment: the value of ``TraitListEnvironment``.
  public var listEnvironment: ListEnvironment { self[TraitListEnvironment.self] }

  /// Creates a collection that sets only ``listEnvironment``, as UIKit's
  /// `init(listEnvironment:)` does.
  ///
  /// - Parameter listEnvironment: The value of ``TraitListEnvironment``.
  public init(listEnvironment: ListEnvironment) {
    self.init(TraitListEnvironment.self, value: listEnvironment)
  }
}

extension MutableTraits {
  /// The list environment: the value of ``TraitListEnvironment``.
  public var listEnvironment: ListEnvironment {
    get { self[TraitListEnvironment.self] }
    set { self[TraitListEnvironment.self] = newValue }
  }
}
