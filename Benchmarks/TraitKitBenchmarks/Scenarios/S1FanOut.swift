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
    func workload(
      _ contender: Contender,
      _ make: (ObserverCounts, Int, Int) -> () -> Void
    ) -> Workload {
      // Each observer's own count: every write calls each once.
      let counts = ObserverCounts(expected: Array(repeating: writes, count: observerCount))
      return Workload(
        contender,
        unit: "callback",
        units: writes * observerCount,
        operations: writes,
        counts: counts,
        run: make(counts, observerCount, writes)
      )
    }
    return [
      workload(.floor, floorRun),
      workload(.traitkit, traitKitRun),
      workload(.observation, observationRun),
      workload(.notificationCenter, notificationRun),
    ]
  }

  private func floorRun(
    _ counts: ObserverCounts,
    _ observerCount: Int,
    _ writes: Int
  ) -> () -> Void {
    final class Floor {
      @exclusivity(unchecked) var value = 0
      @exclusivity(unchecked) var observers: ContiguousArray<() -> Void> = []
    }
    let floor = Floor()
    for index in 0..<observerCount {
      let slot = counts.slot(index)
      floor.observers.append { slot.hit() }
    }
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
    }
  }

  private func traitKitRun(
    _ counts: ObserverCounts,
    _ observerCount: Int,
    _ writes: Int
  ) -> () -> Void {
    let graph = TraitGraph()
    for index in 0..<observerCount {
      let slot = counts.slot(index)
      graph.root.registerForTraitChanges([BenchTrait0.self]) { (_: TraitNode, _: TraitCollection) in
        slot.hit()
      }
    }
    return {
      for write in 0..<writes {
        graph.root.traitOverrides[BenchTrait0.self] = write & 1 ^ 1
        graph.updateTraitsIfNeeded()
      }
    }
  }

  private func observationRun(
    _ counts: ObserverCounts,
    _ observerCount: Int,
    _ writes: Int
  ) -> () -> Void {
    let fired = ObservationFiredList()
    let node = ObservationNode()
    let observers = (0..<observerCount).map { index in
      ObservationObserver(node: node, traits: [0], slot: counts.slot(index), fired: fired)
    }
    for observer in observers { observer.install() }
    return {
      for write in 0..<writes {
        node.t0 = write & 1 ^ 1
        fired.reinstall()
      }
      withExtendedLifetime(observers) {}
    }
  }

  private func notificationRun(
    _ counts: ObserverCounts,
    _ observerCount: Int,
    _ writes: Int
  ) -> () -> Void {
    let peer = NotificationPeer(count: 1)
    for index in 0..<observerCount {
      let slot = counts.slot(index)
      peer.observe(0, trait: 0) { _ in slot.hit() }
    }
    var value = 0
    return {
      for write in 0..<writes {
        let newValue = write & 1 ^ 1
        guard value != newValue else { continue }
        value = newValue
        peer.post(0, trait: 0)
      }
    }
  }
}
