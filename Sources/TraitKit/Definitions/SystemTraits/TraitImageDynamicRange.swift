/// The dynamic range that image content may use.
///
/// The counterpart of UIKit's `UIImage.DynamicRange` (`UIImageDynamicRange` in Objective-C),
/// with the same cases and raw values.
public enum ImageDynamicRange: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified range: the environment has not been given one.
  case unspecified = -1
  /// The standard dynamic range only.
  case standard = 0
  /// Some extended range, suited to mixing standard and high dynamic range content.
  case constrainedHigh = 1
  /// Unrestricted extended range.
  case high = 2
}

/// The trait that holds the dynamic range of images in an environment.
///
/// The counterpart of UIKit's `UITraitImageDynamicRange`. It defaults to
/// ``ImageDynamicRange/unspecified``.
public struct TraitImageDynamicRange: TraitDefinition {
  /// ``ImageDynamicRange/unspecified``.
  public static let defaultValue = ImageDynamicRange.unspecified
  /// `"ImageDynamicRange"`.
  public static let name = "ImageDynamicRange"
  /// `"UITraitImageDynamicRange"`, UIKit's identifier.
  public static let identifier = "UITraitImageDynamicRange"
  /// `false`: the image dynamic range does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The image dynamic range: the value of ``TraitImageDynamicRange``.
  public var imageDynamicRange: ImageDynamicRange { self[TraitImageDynamicRange.self] }

  /// Creates a collection that sets only ``imageDynamicRange``, as UIKit's
  /// `init(imageDynamicRange:)` does.
  ///
  /// - Parameter imageDynamicRange: The value of ``TraitImageDynamicRange``.
  public init(imageDynamicRange: ImageDynamicRange) {
    self.init(TraitImageDynamicRange.self, value: imageDynamicRange)
  }
}

extension MutableTraits {
  /// The image dynamic range: the value of ``TraitImageDynamicRange``.
  public var imageDynamicRange: ImageDynamicRange {
    get { self[TraitImageDynamicRange.self] }
    set { self[TraitImageDynamicRange.self] = newValue }
  }
}
