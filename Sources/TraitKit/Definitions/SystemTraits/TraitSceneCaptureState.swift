/// Whether the content of a scene is being captured, as by screen recording or mirroring.
///
/// The counterpart of UIKit's `UISceneCaptureState`, with the same cases and raw values.
public enum SceneCaptureState: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An unspecified state: the environment has not been given one.
  case unspecified = -1
  /// The scene is not being captured.
  case inactive = 0
  /// The scene is being captured.
  case active = 1
}

/// The trait that holds the capture state of an environment's scene.
///
/// The counterpart of UIKit's `UITraitSceneCaptureState`. It defaults to
/// ``SceneCaptureState/unspecified``.
public struct TraitSceneCaptureState: TraitDefinition {
  /// ``SceneCaptureState/unspecified``.
  public static let defaultValue = SceneCaptureState.unspecified
  /// `"SceneCaptureState"`.
  public static let name = "SceneCaptureState"
  /// `"UITraitSceneCaptureState"`, UIKit's identifier.
  public static let identifier = "UITraitSceneCaptureState"
  /// `false`: the capture state does not change how colors resolve.
  public static let affectsColorAppearance = false
}

extension TraitCollection {
  /// The scene capture state: the value of ``TraitSceneCaptureState``.
  public var sceneCaptureState: SceneCaptureState { self[TraitSceneCaptureState.self] }

  /// Creates a collection that sets only ``sceneCaptureState``, as UIKit's
  /// `init(sceneCaptureState:)` does.
  ///
  /// - Parameter sceneCaptureState: The value of ``TraitSceneCaptureState``.
  public init(sceneCaptureState: SceneCaptureState) {
    self.init(TraitSceneCaptureState.self, value: sceneCaptureState)
  }
}

extension MutableTraits {
  /// The scene capture state: the value of ``TraitSceneCaptureState``.
  public var sceneCaptureState: SceneCaptureState {
    get { self[TraitSceneCaptureState.self] }
    set { self[TraitSceneCaptureState.self] = newValue }
  }
}
