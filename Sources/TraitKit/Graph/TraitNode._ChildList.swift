/// A node's children: a buffer of plain references, each retained once by the node.
///
/// The pass reads children on its hottest path; a buffer of `Unmanaged` references lets it do so
/// with no reference counting and no array-buffer retains. The owning node retains a child when
/// it adds it and releases it when it removes it, and deallocates the buffer in its `deinit`.
struct _ChildList {
  // NB: 32-bit counts, so that the list takes two words of its node, not three: a node of 216
  // bytes is a 224-byte heap block, one of 224 a 240-byte block (traitkit-bench S6, S10).
  private var base: UnsafeMutablePointer<Unmanaged<TraitNode>>?
  private var storedCount: Int32 = 0
  private var capacity: Int32 = 0

  /// The number of children.
  @inline(__always) var count: Int { Int(storedCount) }

  @inline(__always) subscript(position: Int) -> Unmanaged<TraitNode> {
    base.unsafelyUnwrapped[position]
  }

  var last: Unmanaged<TraitNode>? { count > 0 ? self[count - 1] : nil }

  /// The children, retained.
  var nodes: [TraitNode] { (0..<count).map { self[$0].takeUnretainedValue() } }

  /// Appends `child`, whose retain the list takes over.
  mutating func append(_ child: Unmanaged<TraitNode>) {
    if storedCount == capacity {
      let newCapacity = Self.grownCapacity(from: capacity)
      let grown = UnsafeMutablePointer<Unmanaged<TraitNode>>.allocate(capacity: Int(newCapacity))
      if let base {
        grown.moveInitialize(from: base, count: count)
        base.deallocate()
      }
      base = grown
      capacity = newCapacity
    }
    (base.unsafelyUnwrapped + count).initialize(to: child)
    storedCount += 1
  }

  /// The capacity a full list of `capacity` grows to: twice as much, at least 4, at most
  /// `Int32.max`.
  ///
  /// - Precondition: `capacity` is below `Int32.max`, the most children a node holds.
  static func grownCapacity(from capacity: Int32) -> Int32 {
    _requireAPI(capacity < Int32.max, "A node holds at most \(Int32.max) children")
    return capacity > Int32.max / 2 ? Int32.max : Swift.max(4, capacity * 2)
  }

  /// Removes the child at `position`, whose retain passes to the caller.
  mutating func remove(at position: Int) {
    let base = base.unsafelyUnwrapped
    // NB: `moveInitialize` allows overlapping ranges; the elements are trivial.
    (base + position).moveInitialize(from: base + position + 1, count: count - position - 1)
    storedCount -= 1
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
    storedCount = 0
    capacity = 0
    return all
  }
}
