import Testing
import TraitKit

// R5: a registration is called at most once per round. A node that a handler took into another
// graph, whose pass then ran, and that came back into the first graph ahead of its walk in the
// same round, kept the mark of that round only until the other graph's walk went past it there:
// the mark a node holds is one round's, and the other walk wrote its own. The first graph's
// walk then called the node a second time in its round. Found by helper-54's random model of
// tree moves (base seed 0xB0B5EED, sequence 511, step 133).

private struct RTFirstTrait: TraitDefinition { static let defaultValue = 0 }
private struct RTSecondTrait: TraitDefinition { static let defaultValue = 0 }
private struct RTThirdTrait: TraitDefinition { static let defaultValue = 0 }

@Suite("A node's round trip through another graph's pass")
struct RoundTripThroughAnotherGraphTests {
  @Test("a node back from another graph's pass, ahead of the walk, is called once a round (R5)")
  func nodeBackAheadOfTheWalkIsCalledOncePerRound() {
    let first = TraitGraph()
    let second = TraitGraph()
    // First: root → parent → node, root → ahead. Second: root → holder (overriding the second
    // trait) → sibling.
    let (parent, node, ahead) = (TraitNode(), TraitNode(), TraitNode())
    first.root.addTraitChild(parent)
    parent.addTraitChild(node)
    first.root.addTraitChild(ahead)
    let (holder, sibling) = (TraitNode(), TraitNode())
    second.root.addTraitChild(holder)
    holder.addTraitChild(sibling)
    holder.traitOverrides[RTSecondTrait.self] = 5
    var log: [String] = []
    var movedNode = false
    var movedHolder = false
    // In the second graph's pass: the sibling's handler takes the holder, with the node now
    // under it, into the first graph, ahead of its walk; the second graph's walk then goes on
    // to the holder's next child, the node.
    sibling.registerForTraitChanges([RTThirdTrait.self]) {
      [unowned ahead, unowned holder] (_: TraitNode, _: TraitCollection) in
      guard !movedHolder else { return }
      movedHolder = true
      ahead.addTraitChild(holder)
    }
    // In the first graph's pass: the node's handler moves it under the holder, in the second
    // graph, and runs that graph's pass.
    node.registerForTraitChanges([RTFirstTrait.self, RTSecondTrait.self]) {
      [unowned first, unowned second, unowned holder] (
        node: TraitNode,
        previous: TraitCollection
      )
      in
      let (before, after) = (previous[RTSecondTrait.self], node.traitCollection[RTSecondTrait.self])
      log.append("round \(first.statistics.lastPass.rounds): \(before) → \(after)")
      guard !movedNode else { return }
      movedNode = true
      holder.addTraitChild(node)
      second.updateTraitsIfNeeded()
    }
    sibling.traitOverrides[RTThirdTrait.self] = 1
    first.root.traitOverrides[RTFirstTrait.self] = 1

    first.updateTraitsIfNeeded()

    #expect(node.traitParent === holder && holder.traitParent === ahead)
    #expect(movedHolder)
    // Once in the round that changed the first trait, and once more, in the next round, for the
    // second trait that the move under the holder changed.
    #expect(log == ["round 1: 0 → 0", "round 2: 0 → 5"])
  }
}
