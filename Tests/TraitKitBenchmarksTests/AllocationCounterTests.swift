import Glibc
import Testing

@testable import TraitKitBenchmarks

/// The benchmark's allocation counter: what it counts as one allocation.
@Suite(
  "traitkit-bench allocation counter",
  .enabled(if: Allocations.isCounting, "allocations are counted on glibc, without sanitizers")
)
struct AllocationCounterTests {
  @Test("malloc counts one allocation and free none")
  func mallocAndFree() {
    var block: UnsafeMutableRawPointer?
    #expect(Allocations.countingOnThisThread { block = malloc(48) } == 1)
    #expect(Allocations.countingOnThisThread { free(block) } == 0)
  }

  @Test("a realloc that moves its block counts one allocation; one in place or a free, none")
  func reallocCountsMovedBlocks() throws {
    let small = try #require(malloc(64))
    // A neighbour, so that the block cannot grow in place into what follows it.
    let neighbour = try #require(malloc(64))
    defer { free(neighbour) }
    var moved: UnsafeMutableRawPointer?
    #expect(Allocations.countingOnThisThread { moved = realloc(small, 1 << 20) } == 1)
    #expect(moved != small)
    var shrunk: UnsafeMutableRawPointer?
    let inPlace = Allocations.countingOnThisThread { shrunk = realloc(moved, (1 << 20) - 64) }
    #expect(inPlace == (shrunk == moved ? 0 : 1))
    #expect(Allocations.countingOnThisThread { _ = realloc(shrunk, 0) } == 0)
    var fresh: UnsafeMutableRawPointer?
    #expect(Allocations.countingOnThisThread { fresh = realloc(nil, 32) } == 1)
    free(fresh)
  }
}
