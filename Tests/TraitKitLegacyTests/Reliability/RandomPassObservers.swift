import TraitKit
import TraitKitLegacy

// The observers of the random passes: nodes that may adopt the legacy callback, registrations
// with what they last heard, and targets. Each reports its calls to its `RandomPassWorld`.

/// A node of the random passes, which may adopt the legacy callback.
///
/// It adopts it from the start or later, and reports each call to its world, which checks it.
final class RandomPassNode: TraitNode, TraitCollectionDidChangeObserving {
  /// The node's index in its world.
  let number: Int
  private(set) var adoptsLegacyCallback = false
  /// The collection of the node's last legacy call, or its collection when it adopted it.
  var lastReported = TraitCollection()
  private weak var world: RandomPassWorld?

  init(number: Int, world: RandomPassWorld) {
    self.number = number
    self.world = world
    super.init()
  }

  /// Adopts the legacy callback, recording the collection that its first call must report as
  /// the previous one.
  func adoptLegacyCallback() {
    adoptsLegacyCallback = true
    lastReported = traitCollection
    adoptTraitCollectionDidChange()
  }

  func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {
    world?.legacyCallbackCalled(on: self, previous: previousTraitCollection)
  }
}

/// A registration that the random passes made, and what its handler last heard.
final class RandomPassRegistration {
  /// The registration's index in its world, for the log.
  let number: Int
  /// The number of its observed node.
  let nodeNumber: Int
  let traits: [RandomPassTrait]
  /// Whether it was made in the target-action form; its target is then held weakly.
  let hasTarget: Bool
  weak var target: RandomPassTarget?
  var token: TraitChangeRegistration?
  /// The collection of its last call, or its node's when it was made: the previous collection
  /// its next call must report, for its own traits (R5).
  var lastHeard: TraitCollection
  /// Whether it was unregistered with its node's token, or its node dropped.
  var isCancelled = false

  init(
    number: Int,
    nodeNumber: Int,
    traits: [RandomPassTrait],
    hasTarget: Bool,
    baseline: TraitCollection
  ) {
    self.number = number
    self.nodeNumber = nodeNumber
    self.traits = traits
    self.hasTarget = hasTarget
    self.lastHeard = baseline
  }

  /// Whether the engine must still call it: not cancelled, and its target, if any, alive (R8).
  var isLive: Bool { !isCancelled && (!hasTarget || target != nil) }
}

/// The target of a target-action registration; it reports each call to its world.
final class RandomPassTarget {
  private weak var world: RandomPassWorld?
  let registration: RandomPassRegistration

  init(world: RandomPassWorld, registration: RandomPassRegistration) {
    self.world = world
    self.registration = registration
  }

  func changed(node: RandomPassNode, previous: TraitCollection) {
    world?.registrationCalled(registration, on: node, previous: previous)
  }
}
