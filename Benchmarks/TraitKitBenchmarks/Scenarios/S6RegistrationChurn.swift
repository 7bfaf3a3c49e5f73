import Foundation
import TraitKit

/// S6: registration churn over T10k: R registrations of random traits on random nodes, all
/// cancelled through their tokens in a random order; and owner deallocation, the other way a
/// registration ends.
///
/// After its samples, each workload runs one more to measure the heap it leaves behind: none, for
/// the floor and TraitKit, or the run fails. NotificationCenter's own tables grow now and then
/// (a few hundred bytes, in some samples), so its figure is reported, not checked.
///
/// Observation is not a contender: `withObservationTracking` returns no token and cannot be
/// cancelled with the public API, so churn is not expressible with it.
struct S6RegistrationChurn: Scenario {
  let id = "S6"
  let name = "Registration.churn"
  let summary =
    "R=: T10k, register R (random node, random trait), cancel all by token in random order; "
    + "ns per register+cancel. dealloc=: build a subtree of that many nodes with 9 "
    + "registrations each under the root, detach and drop it; ns per registration of the "
    + "whole lifecycle. bytes = heap a sample leaves behind (0 for floor and traitkit, or the run "
    + "fails; notificationcenter's reported). Observation omitted: "
    + "its public API cannot cancel"

  /// Registrations per node of the deallocated subtree.
  private static let registrationsPerOwner = 9

  func points(_ preset: SizePreset) -> [[(String, Int)]] {
    let registrations = preset.pick(smoke: 2_000, quick: 20_000, full: 50_000)
    let owners = TreeShape.complete(arity: 10, levels: preset == .smoke ? 2 : 3).count
    return [
      [("R", registrations), ("nodes", benchTree(preset).count)],
      [("dealloc", owners), ("R", owners * Self.registrationsPerOwner)],
    ]
  }

  func workloads(at point: [(String, Int)], preset: SizePreset) -> [Workload] {
    let shape = benchTree(preset)
    let registrations = point["R"]
    if point.contains(where: { $0.0 == "dealloc" }) {
      let levels = point["dealloc"] > 111 ? 3 : 2
      let owners = TreeShape.complete(arity: 10, levels: levels)
      var generator = SeededGenerator(seed: 0x5_6001)
      let traits = (0..<registrations).map { _ in
        Int.random(in: 0..<BenchTraits.count, using: &generator)
      }
      func workload(_ contender: Contender, _ run: @escaping () -> Int) -> Workload {
        var workload = Workload(
          contender,
          unit: "register+dealloc",
          units: registrations,
          operations: registrations,
          expectedCallbacks: 0,
          run: run
        )
        workload.retainedBytes = contender == .notificationCenter ? .reported : .mustBeZero
        return workload
      }
      return [
        workload(.floor, floorDeallocRun(owners, traits)),
        workload(.traitkit, traitKitDeallocRun(shape, owners, traits)),
        workload(.notificationCenter, notificationDeallocRun(owners, traits)),
      ]
    }
    let plan = RegistrationPlan(count: registrations, nodeCount: shape.count, seed: 0x5_6000)
    func workload(_ contender: Contender, _ run: @escaping () -> Int) -> Workload {
      var workload = Workload(
        contender,
        unit: "register+cancel",
        units: registrations,
        operations: registrations * 2,
        expectedCallbacks: 0,
        run: run
      )
      workload.retainedBytes = contender == .notificationCenter ? .reported : .mustBeZero
      return workload
    }
    return [
      workload(.floor, floorChurnRun(shape, plan)),
      workload(.traitkit, traitKitChurnRun(shape, plan)),
      workload(.notificationCenter, notificationChurnRun(shape, plan)),
    ]
  }

  // MARK: - Churn: register R, cancel R by token

  /// Returns the callbacks seen (none are expected) plus the registrations left live.
  private func floorChurnRun(_ shape: TreeShape, _ plan: RegistrationPlan) -> () -> Int {
    let counter = CallbackCounter()
    let table = FloorRegistrationTable(shape, maxRegistrations: plan.count)
    return {
      for registration in 0..<plan.count {
        table.register(plan.nodes[registration], trait: plan.traits[registration], id: registration)
        {
          counter.count += 1
        }
      }
      for registration in plan.cancelOrder {
        table.cancel(plan.nodes[registration], id: registration)
      }
      return counter.take() + abs(table.liveCount)
    }
  }

  /// Returns the callbacks seen (none are expected) plus the registrations left live.
  private func traitKitChurnRun(_ shape: TreeShape, _ plan: RegistrationPlan) -> () -> Int {
    let counter = CallbackCounter()
    let tree = TraitKitTree(shape)
    let graph = tree.graph
    let nodes = tree.nodes
    // NB: each call gets its node unretained, as a method gets `self` (and the floor's table its
    // node's number): retaining it would measure the loop, not the registration.
    let references = ContiguousArray(nodes.map(Unmanaged.passUnretained))
    let traitLists: [[Trait]] = BenchTraits.all.map { [$0] }
    let tokens = ReusedBuffer<TraitChangeRegistration>(capacity: plan.count)
    let start = graph.statistics.liveRegistrations
    return {
      for registration in 0..<plan.count {
        references[plan.nodes[registration]]._withUnsafeGuaranteedRef { node in
          tokens.append(
            node.registerForTraitChanges(traitLists[plan.traits[registration]]) {
              (_: TraitNode, _: TraitCollection) in counter.count += 1
            }
          )
        }
      }
      for registration in plan.cancelOrder {
        references[plan.nodes[registration]]._withUnsafeGuaranteedRef {
          $0.unregisterForTraitChanges(tokens.items[registration])
        }
      }
      tokens.clear()
      withExtendedLifetime(nodes) {}
      return counter.take() + abs(graph.statistics.liveRegistrations - start)
    }
  }

  /// Returns the callbacks seen (none are expected); NotificationCenter cannot count its
  /// observers, so a leak would go unnoticed here.
  private func notificationChurnRun(_ shape: TreeShape, _ plan: RegistrationPlan) -> () -> Int {
    let counter = SendableCounter()
    let peer = NotificationPeer(count: shape.count)
    let center = peer.center
    let names = peer.names
    let objects = peer.objects
    let tokens = ReusedBuffer<any NSObjectProtocol>(capacity: plan.count)
    return {
      for registration in 0..<plan.count {
        tokens.append(
          center.addObserver(
            forName: names[plan.traits[registration]],
            object: objects[plan.nodes[registration]],
            queue: nil
          ) { _ in counter.count += 1 }
        )
      }
      for registration in plan.cancelOrder {
        center.removeObserver(tokens.items[registration])
      }
      tokens.clear()
      return counter.take()
    }
  }

  // MARK: - Owner deallocation

  /// The floor builds the subtree as per-node arrays (parent, children, observer closures)
  /// appended to its tables, then drops them.
  private func floorDeallocRun(_ owners: TreeShape, _ traits: [Int]) -> () -> Int {
    let counter = CallbackCounter()
    final class Subtrees {
      /// The subtrees attached under the root (the tree's own ten are elided).
      @exclusivity(unchecked) var rootChildren: ContiguousArray<Int32> = []
      @exclusivity(unchecked) var parent: ContiguousArray<Int32> = []
      @exclusivity(unchecked) var children: [ContiguousArray<Int32>] = []
      @exclusivity(unchecked) var observers: [ContiguousArray<FloorObserver>] = []
      @exclusivity(unchecked) var subtreeObserved: ContiguousArray<UInt32> = []
    }
    let floor = Subtrees()
    let perOwner = Self.registrationsPerOwner
    @inline(__always)
    func reserved<Element>(_ capacity: Int) -> ContiguousArray<Element> {
      var array = ContiguousArray<Element>()
      array.reserveCapacity(capacity)
      return array
    }
    return {
      for node in 0..<owners.count {
        let parent = owners.parent[node]
        floor.parent.append(Int32(parent))
        // NB: the hand-written code knows each node's final numbers of children and observers,
        // so it allocates their arrays once, at that size (and none for a leaf's children).
        floor.children.append(reserved(owners.children[node].count))
        floor.observers.append(reserved(perOwner))
        floor.subtreeObserved.append(0)
        if parent >= 0 {
          floor.children[parent].append(Int32(node))
        } else {
          floor.rootChildren.append(Int32(node))
        }
        for slot in 0..<perOwner {
          let mask = UInt32(1) << UInt32(traits[node * perOwner + slot])
          floor.observers[node].append(FloorObserver(mask: mask) { counter.count += 1 })
          var current = node
          while current >= 0, floor.subtreeObserved[current] & mask != mask {
            floor.subtreeObserved[current] |= mask
            current = Int(floor.parent[current])
          }
        }
      }
      let live = floor.observers.reduce(0) { $0 + $1.count }
      floor.rootChildren.removeLast()
      floor.parent.removeAll(keepingCapacity: true)
      floor.children.removeAll(keepingCapacity: true)
      floor.observers.removeAll(keepingCapacity: true)
      floor.subtreeObserved.removeAll(keepingCapacity: true)
      return counter.take() + abs(live - traits.count)
    }
  }

  /// Builds a subtree with registrations, detaches it and drops every reference.
  ///
  /// The subtree hangs under the root of a T10k graph and leaves with `removeFromTraitParent`.
  /// Returns the callbacks seen (none are
  /// expected), plus one for each failed check: the live registrations back at their start
  /// value, and the subtree's root and a leaf deallocated (weak references).
  private func traitKitDeallocRun(
    _ shape: TreeShape,
    _ owners: TreeShape,
    _ traits: [Int]
  ) -> () -> Int {
    let counter = CallbackCounter()
    let tree = TraitKitTree(shape)
    let graph = tree.graph
    let traitLists: [[Trait]] = BenchTraits.all.map { [$0] }
    let perOwner = Self.registrationsPerOwner
    let start = graph.statistics.liveRegistrations
    final class WeakNodes {
      weak var top: TraitNode?
      weak var leaf: TraitNode?
    }
    @inline(never)
    func buildAndDrop(_ probe: WeakNodes) -> Int {
      var failures = 0
      var nodes: [TraitNode] = []
      nodes.reserveCapacity(owners.count)
      for index in 0..<owners.count {
        let node = TraitNode()
        let parent = owners.parent[index]
        (parent < 0 ? graph.root : nodes[parent]).addTraitChild(node)
        nodes.append(node)
        for slot in 0..<perOwner {
          node.registerForTraitChanges(traitLists[traits[index * perOwner + slot]]) {
            (_: TraitNode, _: TraitCollection) in counter.count += 1
          }
        }
      }
      if graph.statistics.liveRegistrations != start + traits.count { failures += 1 }
      probe.top = nodes[0]
      probe.leaf = nodes[nodes.count - 1]
      nodes[0].removeFromTraitParent()
      if graph.statistics.liveRegistrations != start { failures += 1 }
      return failures
    }
    return {
      let probe = WeakNodes()
      var failures = buildAndDrop(probe)
      if probe.top != nil || probe.leaf != nil { failures += 1 }
      return counter.take() + failures
    }
  }

  /// NotificationCenter has no owner-driven cleanup for block observers.
  ///
  /// The owner must remove its tokens before it goes, which this run does, then drops the
  /// objects. Returns the
  /// callbacks seen (none are expected), plus one if an object outlived the drop.
  private func notificationDeallocRun(_ owners: TreeShape, _ traits: [Int]) -> () -> Int {
    let counter = SendableCounter()
    let peer = NotificationPeer(count: 0)
    let center = peer.center
    let names = peer.names
    let perOwner = Self.registrationsPerOwner
    let tokens = ReusedBuffer<any NSObjectProtocol>(capacity: traits.count)
    final class WeakObject {
      weak var object: NotificationNode?
    }
    @inline(never)
    func buildAndDrop(_ probe: WeakObject) {
      var objects: [NotificationNode] = []
      objects.reserveCapacity(owners.count)
      for index in 0..<owners.count {
        let object = NotificationNode()
        objects.append(object)
        for slot in 0..<perOwner {
          tokens.append(
            center.addObserver(
              forName: names[traits[index * perOwner + slot]],
              object: object,
              queue: nil
            ) { _ in counter.count += 1 }
          )
        }
      }
      probe.object = objects[objects.count - 1]
      for token in tokens.items { center.removeObserver(token) }
      tokens.clear()
    }
    return {
      let probe = WeakObject()
      buildAndDrop(probe)
      return counter.take() + (probe.object == nil ? 0 : 1)
    }
  }
}
