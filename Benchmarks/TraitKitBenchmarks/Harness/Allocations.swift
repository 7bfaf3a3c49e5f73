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

  /// The heap bytes that `body`'s result keeps alive, and the result.
  static func retainedBytes<R>(_ body: () -> R) -> (bytes: Int, result: R) {
    let before = bytesInUse
    let result = body()
    return (bytesInUse - before, result)
  }
}
