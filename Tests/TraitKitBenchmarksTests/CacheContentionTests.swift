import Foundation
import Testing

@testable import TraitKitBenchmarks

@Suite("traitkit-bench cache contention (--contend)")
struct CacheContentionTests {
  @Test("the thread streams through its buffer until stopped, then stops for good")
  func streamsUntilStopped() throws {
    let contention = CacheContention(mebibytes: 1)
    // NB: a bound on waiting, not a timing assertion: one pass over 1 MiB takes microseconds.
    let deadline = Date().addingTimeInterval(60)
    while contention.passes < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
    #expect(contention.passes >= 2)
    #expect(!contention.hasFinished)
    contention.stop()
    #expect(contention.hasFinished)
    let passes = contention.passes
    Thread.sleep(forTimeInterval: 0.01)
    #expect(contention.passes == passes)
  }

  @Test("the host header says how much a run streamed through, or none")
  func hostHeaderNamesTheContention() {
    let quiet = Host.current(preset: .smoke, samples: 1, loadLatency: ("", ""))
    #expect(Dictionary(uniqueKeysWithValues: quiet.fields)["cache_contention_mib"] == "none")
    let contended = Host.current(preset: .smoke, samples: 1, loadLatency: ("", ""), contention: 32)
    #expect(Dictionary(uniqueKeysWithValues: contended.fields)["cache_contention_mib"] == "32")
  }

  @Test("a size out of range traps, naming the sizes it takes")
  func sizeOutOfRangeTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      _ = CacheContention(mebibytes: 0)
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.contains("Cache contention streams through 1 to 4096 MiB, not 0"))
  }
}
