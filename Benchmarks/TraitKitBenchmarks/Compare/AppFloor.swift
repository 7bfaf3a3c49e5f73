/// The floor of the migration comparisons: the registration version written by hand.
///
/// Per node: the resolved `Int` of each `AppTrait`, a mask of the traits it overrides, a mask of
/// the traits its one callback uses, and a mask of the traits used in its subtree. A change at a
/// node walks down with an explicit stack, narrowing the changed traits by each child's
/// overrides, skipping subtrees that use none of them, and calls each node whose used traits
/// meet them, once, as `FloorTree.writeBatch` does for the scenarios' 32 traits.
final class AppFloor {
  private let children: [ContiguousArray<Int>]
  @exclusivity(unchecked) private var values: [Int]
  @exclusivity(unchecked) private var overridden: [UInt32]
  private let uses: [UInt32]
  private let subtreeUses: [UInt32]
  @exclusivity(unchecked) private var callbacks: ContiguousArray<() -> Void>
  @exclusivity(unchecked) private var stack: ContiguousArray<(node: Int, changed: UInt32)> = []
  @exclusivity(unchecked) private var newValues = [Int](
    repeating: 0,
    count: AppTrait.allCases.count
  )
  /// Nodes visited since the last reset.
  @exclusivity(unchecked) var nodesVisited = 0

  /// Builds the floor for `app`, calling `callback` for each node that uses a changed trait.
  init(_ app: AppShape, callback: @escaping () -> Void) {
    let traitCount = AppTrait.allCases.count
    children = app.shape.children.map { ContiguousArray($0) }
    values = app.resolve(app.initialOverrides)
    overridden = (0..<app.count).map { node in
      AppTrait.allCases.reduce(0) { mask, trait in
        app.initialOverrides[node * traitCount + trait.rawValue] == nil ? mask : mask | trait.bit
      }
    }
    uses = app.kinds.map(\.uses)
    var subtreeUses = uses
    for node in stride(from: app.count - 1, to: 0, by: -1) {
      subtreeUses[app.shape.parent[node]] |= subtreeUses[node]
    }
    self.subtreeUses = subtreeUses
    callbacks = ContiguousArray(repeating: callback, count: app.count)
    stack.reserveCapacity(app.count)
  }

  /// Performs one change: sets the traits of `writes` at `node` and calls the nodes that use a
  /// trait whose value changed.
  func write(_ node: Int, _ writes: [(trait: AppTrait, value: Int, overrides: Bool)]) {
    let traitCount = AppTrait.allCases.count
    var changed: UInt32 = 0
    for write in writes {
      let bit = write.trait.bit
      overridden[node] = write.overrides ? overridden[node] | bit : overridden[node] & ~bit
      newValues[write.trait.rawValue] = write.value
      if values[node * traitCount + write.trait.rawValue] != write.value { changed |= bit }
    }
    guard changed != 0 else { return }
    stack.append((node, changed))
    while let (current, traits) = stack.popLast() {
      nodesVisited += 1
      var remaining = traits
      while remaining != 0 {
        let trait = remaining.trailingZeroBitCount
        values[current * traitCount + trait] = newValues[trait]
        remaining &= remaining - 1
      }
      if uses[current] & traits != 0 { callbacks[current]() }
      for child in children[current] {
        let passed = traits & ~overridden[child]
        if passed & subtreeUses[child] != 0 { stack.append((child, passed)) }
      }
    }
  }
}
