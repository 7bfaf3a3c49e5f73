import CTraitKitBenchSupport

/// Exact heap-allocation counts and heap bytes in use, from the benchmark's C support target.
enum Allocations {
  /// Whether this platform counts allocations (glibc).
  static var isCounting: Bool { tkb_counts_allocations() != 0 }

  /// Allocations made by the process so far.
  static var count: UInt64 { tkb_allocation_count() }

  /// Bytes of heap in use (glibc `mallinfo2`).
  static var bytesInUse: Int {
    tkb_trim_heap()
    return Int(tkb_heap_bytes_in_use())
  }

  /// The allocations `body` makes.
  static func counting(_ body: () -> Void) -> UInt64 {
    let before = count
    body()
    return count &- before
  }

  /// The allocations `body` makes on the calling thread.
  ///
  /// A synchronous body runs on one thread, so this counts exactly its allocations even while
  /// other threads allocate, such as other tests that Swift Testing runs in parallel. Always 0
  /// where ``isCounting`` is false.
  static func countingOnThisThread(_ body: () -> Void) -> UInt64 {
    let before = tkb_thread_allocation_count()
    body()
    return tkb_thread_allocation_count() &- before
  }

  /// The heap bytes that `body`'s result keeps alive, and the result, as `heapBytesInUse`
  /// counts them (the process's heap unless a test gives another meter).
  static func retainedBytes<R>(
    measuredBy heapBytesInUse: () -> Int = { bytesInUse },
    _ body: () -> R
  ) -> (bytes: Int, result: R) {
    let before = heapBytesInUse()
    let result = body()
    return (heapBytesInUse() - before, result)
  }
}
