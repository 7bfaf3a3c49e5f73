import CTraitKitBenchSupport
import Foundation
import Synchronization

/// Another tenant of the shared cache, on demand (`--contend`): a thread that streams through a
/// buffer, reading and writing one word per cache line, until stopped.
///
/// S6, S7's tracked read and S8 compare contenders of different footprints, so their ratios
/// depend on how much of the shared cache the host's other tenants leave the benchmark (see
/// `LoadLatencyProbe`). A run with contention shows that squeezed regime whenever it is asked
/// for, rather than when the host happens to be busy; the load-latency probe, run with the
/// contention on, shows how far it squeezed.
final class CacheContention: Sendable {
  /// The size of the buffer the thread streams through, in MiB.
  let mebibytes: Int
  private let stopRequested = Atomic<Bool>(false)
  private let finished = Atomic<Bool>(false)
  /// Completed passes over the buffer.
  private let passCount = Atomic<Int>(0)

  /// The sizes `--contend` accepts, in MiB.
  static let sizes = 1...4_096

  /// Starts the thread.
  ///
  /// - Precondition: `mebibytes` is in `sizes`.
  init(mebibytes: Int) {
    require(
      Self.sizes.contains(mebibytes),
      "Cache contention streams through 1 to 4096 MiB, not \(mebibytes)"
    )
    self.mebibytes = mebibytes
    let benchmarkCPU = tkb_current_cpu()
    let thread = Thread { [self] in
      // NB: off the benchmark's core, even when `taskset` pinned the process to it: sharing
      // that core would measure the scheduler, not the cache. Where that fails, the thread
      // runs where the scheduler puts it.
      if benchmarkCPU >= 0 { _ = tkb_leave_cpu(benchmarkCPU) }
      stream()
    }
    thread.name = "traitkit-bench cache contention"
    thread.start()
  }

  /// The passes over the buffer completed so far.
  var passes: Int { passCount.load(ordering: .relaxed) }

  /// Whether the thread has stopped.
  var hasFinished: Bool { finished.load(ordering: .acquiring) }

  /// Asks the thread to stop after its current pass, and waits until it has.
  func stop() {
    stopRequested.store(true, ordering: .relaxed)
    while !hasFinished { Thread.sleep(forTimeInterval: 0.001) }
  }

  private func stream() {
    let words = mebibytes << 20 / MemoryLayout<UInt64>.stride
    let stride = LoadLatencyProbe.lineSize / MemoryLayout<UInt64>.stride
    let buffer = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: words)
    buffer.initialize(repeating: 1)
    var pass: UInt64 = 0
    while !stopRequested.load(ordering: .relaxed) {
      pass &+= 1
      var position = 0
      while position < words {
        buffer[position] &+= pass
        position += stride
      }
      passCount.add(1, ordering: .relaxed)
    }
    blackHole(Int(truncatingIfNeeded: buffer[0]))
    buffer.deallocate()
    finished.store(true, ordering: .releasing)
  }
}
