import Testing
import TraitKit

struct ThemeTrait: TraitDefinition { static let defaultValue = 0 }

@Suite("Smoke")
struct SmokeTests {
  @Test("a root change reaches a registered child once")
  func rootChange() {
    let graph = TraitGraph()
    let child = TraitNode()
    graph.root.addTraitChild(child)
    var calls: [TraitCollection] = []
    child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: TraitNode, previous: TraitCollection) in
      calls.append(previous)
      #expect(TraitCollection.current.horizontalSizeClass == .compact)
    }
    graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(child.traitCollection.horizontalSizeClass == .compact)
    graph.updateTraitsIfNeeded()
    #expect(calls.count == 1)
    #expect(calls.first?.horizontalSizeClass == .unspecified)
    graph.root.traitOverrides[ThemeTrait.self] = 3
    graph.updateTraitsIfNeeded()
    #expect(calls.count == 1)
    #expect(child.traitCollection[ThemeTrait.self] == 3)
    print(child.traitCollection)
    #expect(graph.statistics.liveRegistrations == 1)
  }
}
