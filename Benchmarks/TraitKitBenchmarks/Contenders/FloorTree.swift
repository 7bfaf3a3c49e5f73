/// The floor: a hand-written trait tree doing only the necessary work.
///
/// Per node: 32 resolved `Int` values in one flat array, a mask of the traits it overrides, its
/// observers as ``FloorObserver``s, and a 32-bit summary of the traits observed in its
/// subtree. A write at a node updates resolved values down the subtree, descending only where
/// someone observes the trait and no override shields it, with an explicit stack, and calls the
/// observers of that trait. Observation and NotificationCenter reuse this walk (`visit`), so
/// their figures isolate notification cost.
final class FloorTree {
  // NB: `@exclusivity(unchecked)`, as on TraitKit's own hot state, so that the floor pays for
  // no dynamic exclusivity checks either: it is a floor.
  let shape: TreeShape
  @exclusivity(unchecked) var values: [Int]
  @exclusivity(unchecked) var overridden: [UInt32]
  @exclusivity(unchecked) var observers: [ContiguousArray<FloorObserver>]
  @exclusivity(unchecked) var subtreeObserved: [UInt32]
  @exclusivity(unchecked) var nodesVisited = 0
  @exclusivity(unchecked) private var stack: [Int] = []
  @exclusivity(unchecked) private var batchStack: [(node: Int, changed: UInt32)] = []

  init(_ shape: TreeShape) {
    self.shape = shape
    values = [Int](repeating: 0, count: shape.count * 32)
    overridden = [UInt32](repeating: 0, count: shape.count)
    observers = [ContiguousArray<FloorObserver>](repeating: [], count: shape.count)
    subtreeObserved = [UInt32](repeating: 0, count: shape.count)
  }

  /// Adds an observer of the traits in `mask` at `node`.
  func observe(_ node: Int, mask: UInt32, _ callback: @escaping () -> Void) {
    observers[node].append(FloorObserver(mask: mask, callback: callback))
    var current = node
    while current >= 0, subtreeObserved[current] & mask != mask {
      subtreeObserved[current] |= mask
      current = shape.parent[current]
    }
  }

  /// Overrides `trait` at `node` (without notifying: used while building).
  func setOverride(_ node: Int, trait: Int, value: Int) {
    overridden[node] |= 1 << UInt32(trait)
    for member in shape.subtree(of: node) where member == node || !shields(member, trait, node) {
      values[member * 32 + trait] = value
    }
  }

  private func shields(_ member: Int, _ trait: Int, _ top: Int) -> Bool {
    var current = member
    while current != top {
      if overridden[current] & (1 << UInt32(trait)) != 0 { return true }
      current = shape.parent[current]
    }
    return false
  }

  /// Writes `value` for `trait` at `node` and calls the observers of the nodes whose value
  /// changed; `visit` runs at each such node instead, when given (for peers).
  func write(_ node: Int, trait: Int, value: Int, visit: ((Int) -> Void)? = nil) {
    let bit = UInt32(1) << UInt32(trait)
    if values[node * 32 + trait] == value { return }
    stack.removeAll(keepingCapacity: true)
    stack.append(node)
    while let current = stack.popLast() {
      nodesVisited += 1
      values[current * 32 + trait] = value
      if let visit {
        visit(current)
      } else {
        callObservers(of: current, meeting: bit)
      }
      for child in shape.children[current]
      where subtreeObserved[child] & bit != 0 && overridden[child] & bit == 0 {
        stack.append(child)
      }
    }
  }

  /// Calls the observers of `node` whose mask meets `traits`.
  @inline(__always)
  private func callObservers(of node: Int, meeting traits: UInt32) {
    // NB: indexed calls on a local copy of the array (one retain of its buffer), not a `for-in`
    // over its elements: each element a loop binds is a copy of the closure, retained and
    // released around its call, where TraitKit calls its handlers borrowed.
    let observers = self.observers[node]
    for index in observers.indices where observers[index].mask & traits != 0 {
      observers[index].callback()
    }
  }

  /// Writes several traits at `node` in one batch and calls each observer whose mask meets the
  /// traits that changed at its node, once; `visit` runs at each node reached instead, with
  /// those traits, when given (for peers).
  ///
  /// The changed traits narrow on the way down, as in `write`: a node that overrides one of them
  /// keeps its value, and neither it nor its subtree is called for it.
  func writeBatch(
    _ node: Int,
    traits: [(trait: Int, value: Int)],
    visit: ((_ node: Int, _ changed: UInt32) -> Void)? = nil
  ) {
    var changed: UInt32 = 0
    for (trait, value) in traits where values[node * 32 + trait] != value {
      changed |= 1 << UInt32(trait)
    }
    guard changed != 0 else { return }
    batchStack.removeAll(keepingCapacity: true)
    batchStack.append((node, changed))
    while let (current, reaching) = batchStack.popLast() {
      nodesVisited += 1
      for (trait, value) in traits where reaching & (1 << UInt32(trait)) != 0 {
        values[current * 32 + trait] = value
      }
      if let visit {
        visit(current, reaching)
      } else {
        callObservers(of: current, meeting: reaching)
      }
      for child in shape.children[current] {
        let passed = reaching & ~overridden[child]
        if subtreeObserved[child] & passed != 0 { batchStack.append((child, passed)) }
      }
    }
  }
}

/// An observer of the floor: the traits it observes and its closure.
///
/// A struct, not a `(mask, callback)` tuple: a generic array of tuples stores the closure
/// reabstracted, wrapped in a thunk with a context of its own (one more allocation per observer,
/// and one more indirect call per callback); a struct field stores the closure as it is.
struct FloorObserver {
  var mask: UInt32
  var callback: () -> Void
}
