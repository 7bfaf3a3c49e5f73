/// The shape of a benchmark tree, shared by every contender so that all build the same tree.
struct TreeShape {
  /// Each node's parent, or -1 for the root (node 0); parents come before their children.
  let parent: [Int]
  let children: [[Int]]
  let depth: [Int]

  var count: Int { parent.count }

  init(parent: [Int]) {
    self.parent = parent
    var children = [[Int]](repeating: [], count: parent.count)
    var depth = [Int](repeating: 0, count: parent.count)
    for node in 1..<parent.count {
      children[parent[node]].append(node)
      depth[node] = depth[parent[node]] + 1
    }
    self.children = children
    self.depth = depth
  }

  /// A complete `arity`-ary tree `levels` deep below the root (T10k is `complete(10, 4)`).
  static func complete(arity: Int, levels: Int) -> TreeShape {
    var parent = [-1]
    var level = [0]
    for _ in 0..<levels {
      var next: [Int] = []
      for node in level {
        for _ in 0..<arity {
          parent.append(node)
          next.append(parent.count - 1)
        }
      }
      level = next
    }
    return TreeShape(parent: parent)
  }

  /// A chain of `length` nodes below the root.
  static func chain(_ length: Int) -> TreeShape {
    TreeShape(parent: [-1] + (0..<length).map { $0 })
  }

  /// The nodes of the subtree of `node`, in pre-order.
  func subtree(of node: Int) -> [Int] {
    var result: [Int] = []
    var stack = [node]
    while let next = stack.popLast() {
      result.append(next)
      stack.append(contentsOf: children[next].reversed())
    }
    return result
  }
}

/// A fixed-seed generator (SplitMix64), so that every run and contender sees the same choices.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
