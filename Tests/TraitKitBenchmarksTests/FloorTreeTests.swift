import Testing

@testable import TraitKitBenchmarks

/// The floor's walks: they call exactly the observers whose values changed, as the engine must,
/// so that the ratios compare equal work.
@Suite("traitkit-bench floor tree")
struct FloorTreeTests {
  /// 0 → 1 → 2 and 0 → 3: node 1 overrides trait 0; every node observes traits 0 and 1.
  private final class Fixture {
    let tree = FloorTree(TreeShape(parent: [-1, 0, 1, 0]))
    var calls = [Int](repeating: 0, count: 4)
    var visited: [(node: Int, changed: UInt32)] = []

    init() {
      tree.setOverride(1, trait: 0, value: 9)
      for node in 0..<4 { tree.observe(node, mask: 0b11) { [unowned self] in calls[node] += 1 } }
    }

    func value(_ node: Int, _ trait: Int) -> Int { tree.values[node * 32 + trait] }
  }

  @Test("a write stops at an override: the shielded subtree keeps its value and is not called")
  func writeStopsAtAnOverride() {
    let fixture = Fixture()
    fixture.tree.write(0, trait: 0, value: 5)

    #expect(fixture.calls == [1, 0, 0, 1])
    #expect((0..<4).map { fixture.value($0, 0) } == [5, 9, 9, 5])
  }

  @Test("a batch calls each observer once, and only for the traits that reach its node")
  func batchNarrowsThroughOverrides() {
    let fixture = Fixture()
    fixture.tree.writeBatch(0, traits: [(0, 5), (1, 6)]) { node, changed in
      fixture.visited.append((node, changed))
    }
    // Node 1 overrides trait 0: it and node 2 are reached by trait 1 only.
    let changed = fixture.visited.sorted { $0.node < $1.node }.map(\.changed)
    #expect(changed == [0b11, 0b10, 0b10, 0b11])
    #expect((0..<4).map { fixture.value($0, 0) } == [5, 9, 9, 5])
    #expect((0..<4).map { fixture.value($0, 1) } == [6, 6, 6, 6])

    fixture.tree.writeBatch(0, traits: [(0, 7), (1, 6)])
    // Only trait 0 changed, and node 1 shields it: the batch calls nodes 0 and 3, once each.
    #expect(fixture.calls == [1, 0, 0, 1])
    #expect((0..<4).map { fixture.value($0, 0) } == [7, 9, 9, 7])
  }

  @Test("a batch of values the node already has calls nobody and visits nothing")
  func equalBatchIsANoOp() {
    let fixture = Fixture()
    fixture.tree.writeBatch(0, traits: [(0, 0), (1, 0)])

    #expect(fixture.calls == [0, 0, 0, 0])
    #expect(fixture.tree.nodesVisited == 0)
  }

  @Test("the memory model's floor cancels each registration by its token, from any position")
  func memoryFloorCancelsByToken() {
    let root = FloorMemoryNode(resolved: FloorMemoryNode.defaults)
    let child = FloorMemoryNode(resolved: root.resolved)
    root.add(child)
    let positions = FloorPositions(count: 4)
    for id in 0..<4 { child.observe(mask: 1 << UInt32(id), id: id, positions: positions) {} }
    #expect(root.subtreeObserved == 0b1111)

    child.cancel(id: 1, positions: positions)
    #expect(child.observers.map(\.id) == [0, 3, 2])
    child.cancel(id: 0, positions: positions)
    child.cancel(id: 2, positions: positions)
    #expect(child.observers.map(\.id) == [3])
    child.cancel(id: 3, positions: positions)
    #expect(child.observers.isEmpty)
  }
}
