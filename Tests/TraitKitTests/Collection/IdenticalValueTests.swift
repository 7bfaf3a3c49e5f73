import Foundation
import Testing

@testable import TraitKit

// An `Equatable` value with identical bytes is one value, whatever `==` says of it, stored
// unboxed or boxed: before, a NaN written twice was one value in a `Double` trait (unboxed: the
// same bits) and two in a `Double?` trait (boxed: two boxes, and NaN != NaN), so collections,
// override writes and decodes of the same bytes disagreed with the storage's layout (R1, R2).

/// A `Double?` trait, stored boxed: the counterpart of ``IVScaleTrait``.
private struct IVMaybeScaleTrait: TraitDefinition {
  static let defaultValue: Double? = nil
  static let identifier = "com.traitkit.tests.iv.maybe-scale"
}

/// A `Double` trait, stored unboxed.
private struct IVScaleTrait: TraitDefinition {
  static let defaultValue = 0.0
  static let identifier = "com.traitkit.tests.iv.scale"
}

/// A boxed trait whose default is NaN.
private struct IVNaNDefaultTrait: TraitDefinition {
  static let defaultValue: Double? = .nan
}

/// An `Int` trait, stored unboxed, whose `valuesEqual` holds for no two values.
private struct IVNeverEqualCountTrait: TraitDefinition {
  static let defaultValue = 0
  static func valuesEqual(_: Int, _: Int) -> Bool { false }
}

/// A `String` trait, stored boxed, whose `valuesEqual` holds for no two values.
private struct IVNeverEqualLabelTrait: TraitDefinition {
  static let defaultValue = ""
  static func valuesEqual(_: String, _: String) -> Bool { false }
}

/// A node under a graph's root, with one registration for `trait` that counts its calls, and a
/// count of the graph's requests for a pass.
private final class IVFixture {
  let graph = TraitGraph()
  let node = TraitNode()
  var calls = 0
  var requests = 0

  init(observing trait: any TraitDefinition.Type) {
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    node.registerForTraitChanges([trait]) { [unowned self] (_: TraitNode, _: TraitCollection) in
      calls += 1
    }
    graph.onNeedsUpdate = { [unowned self] in requests += 1 }
  }
}

@Suite("Values with identical bytes")
struct IdenticalValueTests {
  @Test("a NaN written twice is one value, stored unboxed or boxed")
  func notANumberWrittenTwice() {
    let unboxed = (
      TraitCollection(IVScaleTrait.self, value: .nan),
      TraitCollection(IVScaleTrait.self, value: .nan)
    )
    let boxed = (
      TraitCollection(IVMaybeScaleTrait.self, value: .nan),
      TraitCollection(IVMaybeScaleTrait.self, value: .nan)
    )
    #expect(unboxed.0 == unboxed.1)
    #expect(boxed.0 == boxed.1)
    #expect(boxed.0.hashValue == boxed.1.hashValue)
    #expect(boxed.0.changedTraits(from: boxed.1).isEmpty)
    #expect(Set([boxed.0, boxed.1]).count == 1)
    #expect(boxed.0[IVMaybeScaleTrait.self]?.isNaN == true)
    // Another NaN's bits are another value, as they are unboxed.
    let other = Double(nan: 1, signaling: false)
    #expect(TraitCollection(IVScaleTrait.self, value: other) != unboxed.0)
    #expect(TraitCollection(IVMaybeScaleTrait.self, value: other) != boxed.0)
  }

  @Test("rewriting a NaN override asks for no pass and calls nothing, stored unboxed or boxed")
  func notANumberOverrideRewritten() {
    func rewrite<T: TraitDefinition>(_: T.Type, _ value: T.Value, then changed: T.Value) {
      let fixture = IVFixture(observing: T.self)
      fixture.node.traitOverrides[T.self] = value
      fixture.graph.updateTraitsIfNeeded()
      #expect(fixture.calls == 1)
      let requests = fixture.requests

      fixture.node.traitOverrides[T.self] = value
      fixture.graph.updateTraitsIfNeeded()
      #expect(fixture.requests == requests)
      #expect(fixture.calls == 1)

      fixture.node.traitOverrides[T.self] = changed
      fixture.graph.updateTraitsIfNeeded()
      #expect(fixture.calls == 2)
    }
    rewrite(IVScaleTrait.self, .nan, then: 2)
    rewrite(IVMaybeScaleTrait.self, .nan, then: 2)
  }

  @Test("a NaN written to a boxed trait whose default is that NaN is the default")
  func notANumberDefault() {
    let written = TraitCollection(IVNaNDefaultTrait.self, value: .nan)
    #expect(written == TraitCollection())
    #expect(written.hashValue == TraitCollection().hashValue)
    #expect(
      TraitCollection(traitsFrom: [TraitCollection(IVNaNDefaultTrait.self, value: 1), written])[
        IVNaNDefaultTrait.self
      ] == 1
    )
  }

  @Test("a value that valuesEqual calls unequal to itself is one value with identical bytes")
  func neverEqualWitness() {
    #expect(
      TraitCollection(IVNeverEqualCountTrait.self, value: 1)
        == TraitCollection(IVNeverEqualCountTrait.self, value: 1)
    )
    #expect(
      TraitCollection(IVNeverEqualLabelTrait.self, value: "x")
        == TraitCollection(IVNeverEqualLabelTrait.self, value: "x")
    )
    // Other bytes leave the answer to `valuesEqual`.
    #expect(
      TraitCollection(IVNeverEqualCountTrait.self, value: 1)
        != TraitCollection(IVNeverEqualCountTrait.self, value: 2)
    )
  }

  @Test("a value that is not Equatable stays a change when rewritten with identical bytes (R1)")
  func notEquatableRewritten() {
    let fixture = IVFixture(observing: VTTokenTrait.self)
    fixture.node.traitOverrides[VTTokenTrait.self] = VTToken(raw: 7)
    fixture.graph.updateTraitsIfNeeded()
    fixture.node.traitOverrides[VTTokenTrait.self] = VTToken(raw: 7)
    fixture.graph.updateTraitsIfNeeded()
    #expect(fixture.calls == 2)
    #expect(
      TraitCollection(VTTokenTrait.self, value: VTToken(raw: 7))
        != TraitCollection(VTTokenTrait.self, value: VTToken(raw: 7))
    )
  }

  @Test("two decodes of one document are equal, with one hash, NaN entries included (R13)")
  func decodedTwice() throws {
    _ = TraitCollection(IVMaybeScaleTrait.self, value: 1)
    let plist = Data(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" \
      "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0"><dict>
      <key>com.example.newer-app.ratio</key><real>nan</real>
      <key>com.traitkit.tests.iv.maybe-scale</key><real>nan</real>
      </dict></plist>
      """.utf8
    )
    let first = try PropertyListDecoder().decode(TraitCollection.self, from: plist)
    let second = try PropertyListDecoder().decode(TraitCollection.self, from: plist)
    #expect(first[IVMaybeScaleTrait.self]?.isNaN == true)
    #expect(first == second)
    #expect(first.hashValue == second.hashValue)
    #expect(Set([first, second]).count == 1)
    // The unknown entry is written back as it was read.
    let again = try PropertyListDecoder().decode(
      TraitCollection.self,
      from: try PropertyListEncoder().encode(first)
    )
    #expect(again == first)
  }
}
