import Testing

@testable import TraitKit

// A registration's entry summarizes its traits in 64 bits: exactly for trait indices 0–62, and
// with bit 63 for index 63 and every later one. These tests pin the boundaries that the
// registration tests reach only when few traits exist before theirs.

@Suite("64-bit trait summaries")
struct TraitSummaryTests {
  @Test(
    "a summary stands for its index exactly up to 62, and widens to cover any later one",
    arguments: [0, 1, 62, 63, 64, 126, 127, 300]
  )
  func summaryBoundaries(index: Int) {
    let set = _TraitIndexSet([index])
    #expect(set.isSummarizedExactly == (index <= _TraitFilter.lastSummarizedIndex))
    let widened = _TraitFilter(summary: set.filter.summary)
    #expect(widened.contains(_TraitFilter(index: index)))
    if index <= _TraitFilter.lastSummarizedIndex {
      #expect(widened == set.filter)
    } else {
      #expect(widened.contains(_TraitFilter(low: 1 << 63, high: ~0)))
    }
  }

  @Test(
    "overrides shield exactly their traits up to 126, never through the shared overflow bit",
    arguments: [[0], [62, 63], [64, 126], [126, 127], [127], [5, 300], [0, 64, 127, 300]]
  )
  func shieldBoundaries(indices: [Int]) {
    var overrides = TraitOverrides()
    overrides._specified = _TraitIndexSet(indices)
    let expected = indices.filter { $0 <= _TraitFilter.lastExactIndex }
      .reduce(_TraitFilter.none) { $0 | _TraitFilter(index: $1) }
    #expect(overrides._shield == expected)
  }

  @Test("the summary of every trait widens back to every trait")
  func allTraitsRoundTrip() {
    #expect(_TraitFilter.all.summary == ~0)
    #expect(_TraitFilter(summary: ~0) == .all)
  }

  @Test("a registration entry is 32 bytes on 64-bit platforms, and a token 16")
  func entryAndTokenSizes() {
    #expect(MemoryLayout<_Registration>.stride == 16 + 2 * MemoryLayout<Int>.size)
    #expect(MemoryLayout<TraitChangeRegistration>.size == 16)
  }
}
