import TraitKit

// Shared pieces of scenarios S6–S10: a tree of node subclasses, reusable buffers, the floor's
// registration table and the floor's memory model.

// MARK: - Trees

/// A TraitKit graph whose tree of a `TreeShape` hangs below the graph's root, so that every node
/// of the shape, node 0 included, can be a `Node` subclass (the graph's own root cannot).
final class SubclassTraitKitTree<Node: TraitNode> {
  let graph = TraitGraph()
  let nodes: [Node]

  init(_ shape: TreeShape, makeNode: (Int) -> Node) {
    var nodes: [Node] = []
    nodes.reserveCapacity(shape.count)
    for index in 0..<shape.count {
      let node = makeNode(index)
      let parent: TraitNode = index == 0 ? graph.root : nodes[shape.parent[index]]
      parent.addTraitChild(node)
      nodes.append(node)
    }
    self.nodes = nodes
    graph.updateTraitsIfNeeded()
  }
}

// MARK: - Buffers

/// A growable buffer a run closure reuses from sample to sample, so that samples allocate only
/// what the measured system allocates.
final class ReusedBuffer<Element> {
  @exclusivity(unchecked) var items: ContiguousArray<Element> = []

  init(capacity: Int) {
    items.reserveCapacity(capacity)
  }

  @inline(__always)
  func append(_ item: Element) {
    items.append(item)
  }

  /// Empties the buffer, keeping its storage.
  @inline(__always)
  func clear() {
    items.removeAll(keepingCapacity: true)
  }
}

// MARK: - Random plans

/// `count` random (node, trait) pairs, and a random order in which to cancel them.
struct RegistrationPlan {
  let nodes: [Int]
  let traits: [Int]
  /// A permutation of `0..<count`.
  let cancelOrder: [Int]

  var count: Int { nodes.count }

  init(count: Int, nodeCount: Int, seed: UInt64) {
    var generator = SeededGenerator(seed: seed)
    nodes = (0..<count).map { _ in Int.random(in: 0..<nodeCount, using: &generator) }
    traits = (0..<count).map { _ in Int.random(in: 0..<BenchTraits.count, using: &generator) }
    cancelOrder = Array(0..<count).shuffled(using: &generator)
  }
}

// MARK: - Floor registration table

/// The floor's registration table, with O(1) register and cancel.
///
/// Per node, a closure array; per registration, its stored index in that array. Registering
/// appends (and widens the subtree summaries, as `FloorTree.observe` does); cancelling
/// swap-removes by the stored index. No scan.
final class FloorRegistrationTable {
  struct Entry {
    var mask: UInt32
    /// The registration's id: the token, and its slot in `position`.
    var id: Int32
    var callback: () -> Void
  }

  let parent: [Int]
  @exclusivity(unchecked) var observers: [ContiguousArray<Entry>]
  @exclusivity(unchecked) var subtreeObserved: [UInt32]
  /// Each registration's index in its node's array, by id.
  @exclusivity(unchecked) var position: ContiguousArray<Int32>
  @exclusivity(unchecked) var liveCount = 0

  init(_ shape: TreeShape, maxRegistrations: Int) {
    parent = shape.parent
    observers = [ContiguousArray<Entry>](repeating: [], count: shape.count)
    subtreeObserved = [UInt32](repeating: 0, count: shape.count)
    position = ContiguousArray(repeating: 0, count: maxRegistrations)
  }

  /// Registers `callback` for `trait` at `node` under the token `id`.
  @inline(__always)
  func register(_ node: Int, trait: Int, id: Int, _ callback: @escaping () -> Void) {
    let mask = UInt32(1) << UInt32(trait)
    position[id] = Int32(observers[node].count)
    observers[node].append(Entry(mask: mask, id: Int32(id), callback: callback))
    liveCount += 1
    var current = node
    while current >= 0, subtreeObserved[current] & mask != mask {
      subtreeObserved[current] |= mask
      current = parent[current]
    }
  }

  /// Cancels the registration `id` of `node`: swap-remove by its stored index.
  @inline(__always)
  func cancel(_ node: Int, id: Int) {
    let index = Int(position[id])
    let last = observers[node].count - 1
    if index != last {
      observers[node].swapAt(index, last)
      position[Int(observers[node][index].id)] = Int32(index)
    }
    observers[node].removeLast()
    liveCount -= 1
  }
}

// MARK: - Floor memory model

/// A node of the floor's memory model: what a minimal object tree of traits holds.
///
/// Its parent (unowned), its children, a reference to its resolved table of 32 values (shared
/// with its parent while it overrides nothing), its overrides (empty until the first: no
/// storage), its observers (empty until the first: no storage) and a 32-bit summary of the
/// traits observed in its subtree. An observer is registered under a token, with its index in a
/// table of positions, so that it can be cancelled in O(1), as `FloorRegistrationTable`'s can.
final class FloorMemoryNode {
  @exclusivity(unchecked) unowned(unsafe) var parent: FloorMemoryNode?
  @exclusivity(unchecked) var children: ContiguousArray<FloorMemoryNode> = []
  @exclusivity(unchecked) var resolved: ContiguousArray<Int>
  @exclusivity(unchecked) var overrides: ContiguousArray<(trait: Int32, value: Int)> = []
  @exclusivity(unchecked) var observers: ContiguousArray<FloorRegistrationTable.Entry> = []
  @exclusivity(unchecked) var subtreeObserved: UInt32 = 0

  init(resolved: ContiguousArray<Int>) {
    self.resolved = resolved
  }

  /// Adds `child` as the last child.
  func add(_ child: FloorMemoryNode) {
    child.parent = self
    child.resolved = resolved
    children.append(child)
  }

  /// Sets or replaces the override of `trait`, then re-resolves the subtree.
  func setOverride(_ trait: Int, value: Int) {
    if let index = overrides.firstIndex(where: { $0.trait == Int32(trait) }) {
      overrides[index].value = value
    } else {
      overrides.append((Int32(trait), value))
    }
    resolveSubtree()
  }

  /// Removes the override of `trait`, if any, then re-resolves the subtree.
  func removeOverride(_ trait: Int) {
    guard let index = overrides.firstIndex(where: { $0.trait == Int32(trait) }) else { return }
    overrides.remove(at: index)
    if overrides.isEmpty { overrides = [] }
    resolveSubtree()
  }

  /// Recomputes the resolved tables of this subtree top-down: a node without overrides shares
  /// its parent's table; a node with some gets its own copy.
  private func resolveSubtree() {
    var stack = [self]
    while let node = stack.popLast() {
      var table = node.parent?.resolved ?? FloorMemoryNode.defaults
      for (trait, value) in node.overrides { table[Int(trait)] = value }
      node.resolved = table
      stack.append(contentsOf: node.children)
    }
  }

  /// Adds an observer of the traits in `mask` under the token `id`, whose index it records in
  /// `positions`, and widens the ancestors' summaries.
  func observe(
    mask: UInt32,
    id: Int,
    positions: FloorPositions,
    _ callback: @escaping () -> Void
  ) {
    positions.index[id] = Int32(observers.count)
    observers.append(FloorRegistrationTable.Entry(mask: mask, id: Int32(id), callback: callback))
    var node: FloorMemoryNode? = self
    while let current = node, current.subtreeObserved & mask != mask {
      current.subtreeObserved |= mask
      node = current.parent
    }
  }

  /// Cancels the observer registered under `id`: swap-remove by its index in `positions`.
  func cancel(id: Int, positions: FloorPositions) {
    let index = Int(positions.index[id])
    let last = observers.count - 1
    if index != last {
      observers.swapAt(index, last)
      positions.index[Int(observers[index].id)] = Int32(index)
    }
    observers.removeLast()
  }

  /// The table of default values every tree starts from.
  static let defaults = ContiguousArray(repeating: 0, count: BenchTraits.count)
}

/// Each floor registration's index in its node's observers, by token (see `FloorMemoryNode`).
final class FloorPositions {
  @exclusivity(unchecked) var index: ContiguousArray<Int32>

  init(count: Int) {
    index = ContiguousArray(repeating: 0, count: count)
  }
}
