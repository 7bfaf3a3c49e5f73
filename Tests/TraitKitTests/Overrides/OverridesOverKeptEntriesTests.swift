import Foundation
import Testing
import TraitKit

// Each trait is used by one test only, so that it is unknown when that test decodes its
// identifier: decoding then keeps the entry, and the test's override is the first write of
// the trait.

private struct OKZoomTrait: TraitDefinition {
  static let defaultValue = 100
  static let identifier = "com.traitkit.tests.ok.zoom"
}

private struct OKDefaultZoomTrait: TraitDefinition {
  static let defaultValue = 100
  static let identifier = "com.traitkit.tests.ok.default-zoom"
}

private struct OKRemovedZoomTrait: TraitDefinition {
  static let defaultValue = 100
  static let identifier = "com.traitkit.tests.ok.removed-zoom"
}

private struct OKOtherZoomTrait: TraitDefinition {
  static let defaultValue = 100
  static let identifier = "com.traitkit.tests.ok.other-zoom"
}

/// Decodes `json`, an object of kept entries (their traits unknown so far).
private func decodedKeepingEntries(_ json: String) throws -> TraitCollection {
  try JSONDecoder().decode(TraitCollection.self, from: Data(json.utf8))
}

/// The document a collection encodes to, with sorted keys.
private func document(_ traits: TraitCollection) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return String(decoding: try encoder.encode(traits), as: UTF8.self)
}

/// A graph whose base traits are `base`, with one child of the root.
private func graph(over base: TraitCollection) -> (TraitGraph, TraitNode) {
  let graph = TraitGraph(baseTraits: base)
  let child = TraitNode()
  graph.root.addTraitChild(child)
  return (graph, child)
}

@Suite("Overrides over entries that decoding kept (R3, R13)")
struct OverridesOverKeptEntriesTests {
  @Test("a node's override replaces the kept entry under its identifier, as replacing does")
  func overrideReplacesKeptEntry() throws {
    let base = try decodedKeepingEntries(#"{"com.traitkit.tests.ok.zoom":150,"other":1}"#)
    let (graph, child) = graph(over: base)
    child.traitOverrides[OKZoomTrait.self] = 200
    #expect(child.traitCollection == base.replacing(OKZoomTrait.self, value: 200))
    #expect(try document(child.traitCollection) == #"{"com.traitkit.tests.ok.zoom":200,"other":1}"#)
    withExtendedLifetime(graph) {}
  }

  @Test("an override of the default value encodes what the node reads, not the kept entry")
  func defaultOverrideDropsKeptEntry() throws {
    let base = try decodedKeepingEntries(#"{"com.traitkit.tests.ok.default-zoom":150}"#)
    let (graph, child) = graph(over: base)
    child.traitOverrides[OKDefaultZoomTrait.self] = 100
    let traits = child.traitCollection
    #expect(traits[OKDefaultZoomTrait.self] == 100)
    #expect(try document(traits) == "{}")
    let back = try JSONDecoder().decode(TraitCollection.self, from: JSONEncoder().encode(traits))
    #expect(back[OKDefaultZoomTrait.self] == 100)
    #expect(traits == TraitCollection())
    withExtendedLifetime(graph) {}
  }

  @Test("the node's descendants see the replacement, and its parent keeps the entry")
  func descendantsAndParent() throws {
    let base = try decodedKeepingEntries(#"{"com.traitkit.tests.ok.other-zoom":150}"#)
    let (graph, child) = graph(over: base)
    let grandchild = TraitNode()
    child.addTraitChild(grandchild)
    child.traitOverrides[OKOtherZoomTrait.self] = 100
    #expect(try document(grandchild.traitCollection) == "{}")
    #expect(
      try document(graph.root.traitCollection) == #"{"com.traitkit.tests.ok.other-zoom":150}"#
    )
    withExtendedLifetime(graph) {}
  }

  @Test("removing the override brings back the entry the node inherits")
  func removingTheOverride() throws {
    let base = try decodedKeepingEntries(#"{"com.traitkit.tests.ok.removed-zoom":150}"#)
    let (graph, child) = graph(over: base)
    child.traitOverrides[OKRemovedZoomTrait.self] = 100
    #expect(try document(child.traitCollection) == "{}")
    child.traitOverrides.remove(OKRemovedZoomTrait.self)
    #expect(child.traitCollection == base)
    #expect(
      try document(child.traitCollection) == #"{"com.traitkit.tests.ok.removed-zoom":150}"#
    )
    withExtendedLifetime(graph) {}
  }
}
