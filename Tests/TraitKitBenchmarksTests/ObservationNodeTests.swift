import Testing

@testable import TraitKitBenchmarks

/// The Swift Observation peer's node holds 32 traits, t0…t31; asking for another is a mistake of
/// the scenario that asks, which traps rather than measuring a node that lacks the trait.
@Suite("traitkit-bench Observation peer node")
struct ObservationNodeTests {
  private static func standardError(_ result: ExitTest.Result?) -> String {
    String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
  }

  @Test("each of the 32 traits reads back what was written to it, and no other")
  func traitsReadBackTheirWrites() {
    let node = ObservationNode()
    for trait in 0..<32 { node[trait: trait] = trait + 100 }
    #expect((0..<32).map { node[trait: $0] } == Array(100..<132))
    #expect(node.t0 == 100)
    #expect(node.t31 == 131)
  }

  @Test("reading a trait beyond t31 traps, naming the trait")
  func readingBeyondTheLastTraitTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      _ = ObservationNode()[trait: 32]
    }
    #expect(Self.standardError(result).contains("no trait 32"))
  }

  @Test("writing a trait beyond t31 traps, naming the trait")
  func writingBeyondTheLastTraitTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = ObservationNode()
      node[trait: -1] = 1
    }
    #expect(Self.standardError(result).contains("no trait -1"))
  }
}
