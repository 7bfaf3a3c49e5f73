/// The size a toolbar expects its items to be.
///
/// The counterpart of UIKit's `UINSToolbarItemPresentationSize` (Mac Catalyst), with the same
/// cases and raw values; note that ``large`` is `3`, not `2`.
public enum NSToolbarItemPresentationSize: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified size: the environment has not been given one.
  case unspecified = -1
  /// The default, regular size.
  case regular = 0
  /// The smallest size.
  case small = 1
  /// The largest size.
  case large = 3
}

/// The trait that holds the size a toolbar expects of the items in an environment.
///
/// The counterpart of UIKit's `UITraitToolbarItemPresentationSize`. It defaults to
/// ``NSToolbarItemPresentationSize/unspecified``.
public struct TraitToolbarItemPresentationSize: TraitDefinition {
  /// ``NSToolbarItemPresentationSize/unspecified``.
  public static let defaultValue = NSToolbarItemPresentationSize.unspecified
  /// `"ToolbarItemPresentationSize"`.
  public static let name = "ToolbarItemPresentationSize"
  /// `"UITraitToolbarItemPresentationSize"`, UIKit's identifier.
  public static let identifier = "UITraitToolbarItemPresentationSize"
  /// `false`: the presentation size does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The toolbar item presentation size: the value of ``TraitToolbarItemPresentationSize``.
  public var toolbarItemPresentationSize: NSToolbarItemPresentationSize {
    self[TraitToolbarItemPresentationSize.self]
  }

  /// Creates a collection that sets only ``toolbarItemPresentationSize``, as UIKit's
  /// `init(toolbarItemPresentationSize:)` does.
  ///
  /// - Parameter toolbarItemPresentationSize: The value of ``TraitToolbarItemPresentationSize``.
  public init(toolbarItemPresentationSize: NSToolbarItemPresentationSize) {
    self.init(TraitToolbarItemPresentationSize.self, value: toolbarItemPresentationSize)
  }
}

extension MutableTraits {
  /// The toolbar item presentation size: the value of ``TraitToolbarItemPresentationSize``.
  public var toolbarItemPresentationSize: NSToolbarItemPresentationSize {
    get { self[TraitToolbarItemPresentationSize.self] }
    set { self[TraitToolbarItemPresentationSize.self] = newValue }
  }
}
