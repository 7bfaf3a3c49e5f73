/// A node's children: a buffer of plain references, each retained once by the node.
///
/// The pass reads children on its hottest path; a buffer of `Unmanaged` references lets it do so
/// with no reference counting and no array-buffer retains. The owning node retains a child when
/// it adds it and releases it when it removes it, and deallocates the buffer in its `deinit`.
struct _ChildList {
  private var base: UnsafeMutablePointer<Unmanaged<TraitNode>>?
  private(set) var count = 0
  private var capacity = 0

  @inline(__always) subscript(position: Int) -> Unmanaged<TraitNode> {
    base.unsafelyUnwrapped[position]
  }

  var last: Unmanaged<TraitNode>? { count > 0 ? self[count - 1] : nil }

  /// The children, retained.
  var nodes: [TraitNode] { (0..<count).map { self[$0].takeUnretainedValue() } }

  /// Appends `child`, whose retain the list takes over.
  mutating func append(_ child: Unmanaged<TraitNode>) {
    if count == capacity {
      let newCapacity = Swift.max(4, capacity * 2)
      let grown = UnsafeMutablePointer<Unmanaged<TraitNode>>.allocate(capacity: newCapacity)
      if let base {
        grown.moveInitialize(from: base, count: count)
        base.deallocate()
      }
      base = grown
      capacity = newCapacity
    }
    (base.unsafelyUnwrapped + count).initialize(to: child)
    count += 1
  }

  /// Removes the child at `position`, whose retain passes to the caller.
  mutating func remove(at position: Int) {
    let base = base.unsafelyUnwrapped
    // NB: `moveInitialize` allows overlapping ranges; the elements are trivial.
    (base + position).moveInitialize(from: base + position + 1, count: count - position - 1)
    count -= 1
  }

  /// The position of `node`, if it is a child.
  func firstIndex(of node: TraitNode) -> Int? {
    let target = Unmanaged.passUnretained(node).toOpaque()
    return (0..<count).first { self[$0].toOpaque() == target }
  }

  /// Empties the list, handing the children's retains to the caller.
  mutating func takeAll() -> [Unmanaged<TraitNode>] {
    let all = (0..<count).map { self[$0] }
    base?.deallocate()
    base = nil
    count = 0
    capacity = 0
    return all
  }
}
