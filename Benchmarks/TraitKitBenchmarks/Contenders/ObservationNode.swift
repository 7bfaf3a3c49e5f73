import Observation

/// A Swift Observation peer node: one `@Observable` object per tree node, with one stored
/// property per trait (t0…t31), which makes Observation as fine-grained as it can be.
@Observable
final class ObservationNode {
  var t0 = 0
  var t1 = 0
  var t2 = 0
  var t3 = 0
  var t4 = 0
  var t5 = 0
  var t6 = 0
  var t7 = 0
  var t8 = 0
  var t9 = 0
  var t10 = 0
  var t11 = 0
  var t12 = 0
  var t13 = 0
  var t14 = 0
  var t15 = 0
  var t16 = 0
  var t17 = 0
  var t18 = 0
  var t19 = 0
  var t20 = 0
  var t21 = 0
  var t22 = 0
  var t23 = 0
  var t24 = 0
  var t25 = 0
  var t26 = 0
  var t27 = 0
  var t28 = 0
  var t29 = 0
  var t30 = 0
  var t31 = 0

  init() {}

  /// Trait `k`, by index.
  subscript(trait trait: Int) -> Int {
    get {
      switch trait {
      case 0: t0
      case 1: t1
      case 2: t2
      case 3: t3
      case 4: t4
      case 5: t5
      case 6: t6
      case 7: t7
      case 8: t8
      case 9: t9
      case 10: t10
      case 11: t11
      case 12: t12
      case 13: t13
      case 14: t14
      case 15: t15
      case 16: t16
      case 17: t17
      case 18: t18
      case 19: t19
      case 20: t20
      case 21: t21
      case 22: t22
      case 23: t23
      case 24: t24
      case 25: t25
      case 26: t26
      case 27: t27
      case 28: t28
      case 29: t29
      case 30: t30
      case 31: t31
      default: fatalError("An Observation peer node models traits 0 to 31: no trait \(trait)")
      }
    }
    set {
      switch trait {
      case 0: t0 = newValue
      case 1: t1 = newValue
      case 2: t2 = newValue
      case 3: t3 = newValue
      case 4: t4 = newValue
      case 5: t5 = newValue
      case 6: t6 = newValue
      case 7: t7 = newValue
      case 8: t8 = newValue
      case 9: t9 = newValue
      case 10: t10 = newValue
      case 11: t11 = newValue
      case 12: t12 = newValue
      case 13: t13 = newValue
      case 14: t14 = newValue
      case 15: t15 = newValue
      case 16: t16 = newValue
      case 17: t17 = newValue
      case 18: t18 = newValue
      case 19: t19 = newValue
      case 20: t20 = newValue
      case 21: t21 = newValue
      case 22: t22 = newValue
      case 23: t23 = newValue
      case 24: t24 = newValue
      case 25: t25 = newValue
      case 26: t26 = newValue
      case 27: t27 = newValue
      case 28: t28 = newValue
      case 29: t29 = newValue
      case 30: t30 = newValue
      case 31: t31 = newValue
      default: fatalError("An Observation peer node models traits 0 to 31: no trait \(trait)")
      }
    }
  }
}

/// One `withObservationTracking` observer, re-installed after it fires, as SwiftUI re-tracks on
/// its next render.
///
/// NB: `@unchecked Sendable` because Observation's change handler is `@Sendable`; the benchmark
/// writes and observes on one thread.
final class ObservationObserver: @unchecked Sendable {
  let node: ObservationNode
  let traits: [Int]
  /// Where this observer counts its callbacks.
  let slot: ObserverCountSlot
  let fired: ObservationFiredList
  var isInstalled = false

  init(node: ObservationNode, traits: [Int], slot: ObserverCountSlot, fired: ObservationFiredList) {
    self.node = node
    self.traits = traits
    self.slot = slot
    self.fired = fired
  }

  /// Tracks the observed properties; the change handler counts the callback and queues the
  /// observer for re-installation.
  func install() {
    isInstalled = true
    withObservationTracking {
      for trait in traits { _ = node[trait: trait] }
    } onChange: { [unowned self] in
      slot.hit()
      isInstalled = false
      fired.observers.append(self)
    }
  }
}

/// The observers that fired since the last re-installation.
final class ObservationFiredList {
  var observers: [ObservationObserver] = []

  /// Re-installs every fired observer (counted in the measured time).
  func reinstall() {
    for observer in observers { observer.install() }
    observers.removeAll(keepingCapacity: true)
  }
}
