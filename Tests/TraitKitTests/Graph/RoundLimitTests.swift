import Testing
import TraitKit

// R5: "a pass that has not converged after 100 rounds traps". UpdatePassTests pins the lower
// side (a pass of exactly 100 rounds converges) and traps a pass that never converges; these pin
// the upper side: the 101st round is the one that traps, in a graph pass and in a subtree pass.

/// Runs a pass that needs `rounds` rounds; returns the graph and the node.
///
/// The pass is the graph's, or the one of the subtree of the node's parent. Each round's call
/// asks for one more, by writing the next value of the trait it observes, until it is `rounds`.
@discardableResult
private func rlRunPass(needing rounds: Int, subtree: Bool) -> (graph: TraitGraph, node: TraitNode) {
  let graph = TraitGraph()
  let parent = TraitNode()
  let node = TraitNode()
  graph.root.addTraitChild(parent)
  parent.addTraitChild(node)
  graph.updateTraitsIfNeeded()
  node.registerForTraitChanges([GTThemeTrait.self]) { (node: TraitNode, _: TraitCollection) in
    let theme = node.traitCollection[GTThemeTrait.self]
    if theme < rounds { node.traitOverrides[GTThemeTrait.self] = theme + 1 }
  }
  node.traitOverrides[GTThemeTrait.self] = 1
  if subtree { parent.updateTraitsIfNeeded() } else { graph.updateTraitsIfNeeded() }
  return (graph, node)
}

@Suite("The update pass's limit of 100 rounds (R5)")
struct RoundLimitTests {
  @Test("a pass that needs a 101st round traps: 100 rounds is the limit")
  func passNeedingOneHundredAndOneRoundsTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      rlRunPass(needing: 101, subtree: false)
    }
    #expect(gtStandardError(result).contains("Trait updates did not converge after 100 rounds"))
  }

  @Test("a subtree pass that needs a 101st round traps the same way")
  func subtreePassNeedingOneHundredAndOneRoundsTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      rlRunPass(needing: 101, subtree: true)
    }
    #expect(gtStandardError(result).contains("Trait updates did not converge after 100 rounds"))
  }

  @Test("a subtree pass of exactly 100 rounds converges, as a graph pass does")
  func subtreePassOfOneHundredRoundsConverges() {
    let (graph, node) = rlRunPass(needing: 100, subtree: true)

    #expect(node.traitCollection[GTThemeTrait.self] == 100)
    #expect(graph.statistics.lastPass.rounds == 100)
  }
}
