/// The update pass's explicit stack: a buffer of plain-data frames that the graph owns and
/// reuses, so that pushing, popping and updating a frame costs no uniqueness check and no
/// allocation in the steady state.
///
/// A graph runs one pass at a time (a nested pass is a no-op), so one stack per graph suffices.
struct _WalkStack {
  private var base: UnsafeMutablePointer<_WalkFrame>?
  private var count = 0
  private var capacity = 0

  /// The index of the top frame, if any.
  @inline(__always) var topIndex: Int? { count > 0 ? count - 1 : nil }

  @inline(__always) subscript(position: Int) -> _WalkFrame {
    unsafeAddress { UnsafePointer(base.unsafelyUnwrapped + position) }
    unsafeMutableAddress { base.unsafelyUnwrapped + position }
  }

  mutating func push(_ frame: _WalkFrame) {
    if count == capacity {
      let newCapacity = Swift.max(16, capacity * 2)
      let grown = UnsafeMutablePointer<_WalkFrame>.allocate(capacity: newCapacity)
      if let base {
        grown.moveInitialize(from: base, count: count)
        base.deallocate()
      }
      base = grown
      capacity = newCapacity
    }
    (base.unsafelyUnwrapped + count).initialize(to: frame)
    count += 1
  }

  @inline(__always) mutating func pop() {
    count -= 1
  }

  /// Empties the stack, keeping its buffer.
  mutating func removeAll() { count = 0 }

  /// Frees the buffer; the stack is unusable afterwards.
  func deallocate() { base?.deallocate() }
}
