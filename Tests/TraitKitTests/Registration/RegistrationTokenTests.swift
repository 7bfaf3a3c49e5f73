import Testing
import TraitKit

// DESIGN §2: `TraitChangeRegistration` is an opaque `Hashable` token. A host keeps tokens in sets
// and dictionaries (to unregister a group later), so each registration's token must be told
// apart from every other's, and a token must equal, and hash like, its copies.

@Suite("Registration tokens")
struct RegistrationTokenTests {
  @Test("each registration's token differs from every other's, on one node or on two")
  func tokensOfDifferentRegistrationsDiffer() {
    let (graph, node) = makeGraphWithChild()
    let other = GTNode("other")
    graph.root.addTraitChild(other)
    var tokens: [TraitChangeRegistration] = []
    for observed in [node, node, other, other, node] {
      tokens.append(
        observed.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
          (_: GTNode, _: TraitCollection) in
        }
      )
    }
    tokens.append(
      node.registerForTraitChanges([TraitHorizontalSizeClass.self], action: GTNode.gtIgnore)
    )

    #expect(Set(tokens).count == tokens.count)
    for (position, token) in tokens.enumerated() {
      for (otherPosition, otherToken) in tokens.enumerated() where otherPosition != position {
        #expect(token != otherToken, "tokens \(position) and \(otherPosition)")
      }
    }
  }

  @Test("a token equals its copies and hashes like them, so a set or dictionary finds it")
  func tokenEqualsItsCopies() throws {
    let (_, node) = makeGraphWithChild()
    let token = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
    }
    let stored: TraitChangeRegistration? = token
    let copy = try #require(stored)

    #expect(copy == token)
    #expect(copy.hashValue == token.hashValue)
    #expect(Set([token, copy]).count == 1)
    let names = [token: "horizontal"]
    #expect(names[copy] == "horizontal")
  }

  @Test("tokens kept in a set unregister exactly their registrations")
  func tokensInASetUnregisterTheirOwn() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    var kept: Set<TraitChangeRegistration> = []
    for name in ["a", "b", "c", "d"] {
      let token = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        log.append(name)
      }
      if name == "b" || name == "d" { kept.insert(token) }
    }

    for token in kept { node.unregisterForTraitChanges(token) }
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["a", "c"])
    #expect(graph.statistics.liveRegistrations == 2)
  }
}

extension GTNode {
  /// An action that does nothing, for the registration form without a target.
  fileprivate func gtIgnore() {}
}
