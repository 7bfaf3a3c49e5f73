import Foundation
import TraitKit

/// S1: K observers of one trait on one node; each write of a new value calls all K.
struct S1FanOut: Scenario {
  let id = "S1"
  let name = "Registration.fanOut"
  let summary =
    "K observers of one trait on one node, writes alternating 1 and 0 from 0 (an even count, "
    + "every one a change); ns per callback"

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    let observers = preset == .smoke ? [1, 16, 256] : [1, 16, 256, 4096]
    return observers.map { [("K", $0)] }
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let observerCount = point["K"]
    let target = preset.pick(smoke: 2_000, quick: 10_000, full: 40_000)
    // NB: an even number of writes alternating 1 and 0 from 0: every write is a change, and a
    // sample ends where it started, so that every contender makes the same changes.
    let writes = max(2, target / observerCount / 2 * 2)
    let expected = writes * observerCount
    func workload(_ contender: Contender, _ run: @escaping () -> Int) -> Workload {
      Workload(
        contender,
        unit: "callback",
        units: expected,
        operations: writes,
        expectedCallbacks: expected,
        run: run
      )
    }
    return [
      workload(.floor, floorRun(observerCount, writes)),
      workload(.traitkit, traitKitRun(observerCount, writes)),
      workload(.observation, observationRun(observerCount, writes)),
      workload(.notificationCenter, notificationRun(observerCount, writes)),
    ]
  }

  private func floorRun(_ observerCount: Int, _ writes: Int) -> () -> Int {
    let counter = CallbackCounter()
    final class Floor {
      @exclusivity(unchecked) var value = 0
      @exclusivity(unchecked) var observers: ContiguousArray<() -> Void> = []
    }
    let floor = Floor()
    for _ in 0..<observerCount { floor.observers.append { counter.count += 1 } }
    return {
      for write in 0..<writes {
        let value = write & 1 ^ 1
        guard floor.value != value else { continue }
        floor.value = value
        // NB: indexed calls on a local copy of the array (one retain of its buffer per write):
        // a `for-in` binds a copy of each closure, retained and released around its call,
        // where TraitKit calls its handlers borrowed.
        let observers = floor.observers
        for index in observers.indices { observers[index]() }
      }
      return counter.take()
    }
  }

  private func traitKitRun(_ observerCount: Int, _ writes: Int) -> () -> Int {
    let counter = CallbackCounter()
    let graph = TraitGraph()
    for _ in 0..<observerCount {
      graph.root.registerForTraitChanges([BenchTrait0.self]) { (_: TraitNode, _: TraitCollection) in
        counter.count += 1
      }
    }
    return {
      for write in 0..<writes {
        graph.root.traitOverrides[BenchTrait0.self] = write & 1 ^ 1
        graph.updateTraitsIfNeeded()
      }
      return counter.take()
    }
  }

  private func observationRun(_ observerCount: Int, _ writes: Int) -> () -> Int {
    let counts = ObserverCounts()
    let fired = ObservationFiredList()
    let node = ObservationNode()
    let observers = (0..<observerCount).map { _ in
      ObservationObserver(node: node, traits: [0], slot: counts.slot(0), fired: fired)
    }
    for observer in observers { observer.install() }
    return {
      for write in 0..<writes {
        node.t0 = write & 1 ^ 1
        fired.reinstall()
      }
      withExtendedLifetime(observers) {}
      return counts.take()
    }
  }

  private func notificationRun(_ observerCount: Int, _ writes: Int) -> () -> Int {
    let counter = SendableCounter()
    let peer = NotificationPeer(count: 1)
    for _ in 0..<observerCount {
      peer.observe(0, trait: 0) { _ in counter.count += 1 }
    }
    var value = 0
    return {
      for write in 0..<writes {
        let newValue = write & 1 ^ 1
        guard value != newValue else { continue }
        value = newValue
        peer.post(0, trait: 0)
      }
      return counter.take()
    }
  }
}
