import Testing

@testable import TraitKit

// Writes of overrides at the edges: values equal but stored differently, reads of the node in
// the middle of an access of its overrides. A review of 8bcadc0 found each case. Fixtures start
// with `OE`.

/// A trait whose custom valuesEqual ignores case: "abc" and "ABC" are the same value to the
/// engine, but a reader can tell them apart.
private struct OECaseInsensitiveTrait: TraitDefinition {
  static let defaultValue = "none"
  static func valuesEqual(_ lhs: String, _ rhs: String) -> Bool {
    lhs.lowercased() == rhs.lowercased()
  }
}

/// A plain Double trait (statically Equatable): -0.0 == 0.0, with different bits.
private struct OEOffsetTrait: TraitDefinition {
  static let defaultValue = 1.0
}

/// An unrelated trait, to bump the graph's epoch with a real change.
private struct OEOtherTrait: TraitDefinition {
  static let defaultValue = 0
}

/// Another unrelated trait, whose change only advances the graph's epoch.
private struct OEUnrelatedTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A boxed value equal to another of the same key, which runs `onDeinit` when it goes.
private final class OEPayload: Equatable, Sendable {
  let key: Int
  nonisolated(unsafe) var onDeinit: (() -> Void)?

  init(_ key: Int, onDeinit: (() -> Void)? = nil) {
    self.key = key
    self.onDeinit = onDeinit
  }

  deinit { onDeinit?() }

  static func == (lhs: OEPayload, rhs: OEPayload) -> Bool { lhs.key == rhs.key }
}

private struct OEPayloadTrait: TraitDefinition {
  static let defaultValue = OEPayload(0)
}

@Suite("Writes of overrides: equal values stored differently, reads during an access")
struct OverridesWriteEdgeTests {
  @Test("an override added with a value equal to the inherited one is what the node reads (R3, R6)")
  func addedEqualOverrideIsRead() {
    let graph = TraitGraph()
    let parent = TraitNode()
    let node = TraitNode()
    graph.root.addTraitChild(parent)
    parent.addTraitChild(node)
    parent.traitOverrides[OECaseInsensitiveTrait.self] = "abc"
    #expect(node.traitCollection[OECaseInsensitiveTrait.self] == "abc")

    node.traitOverrides[OECaseInsensitiveTrait.self] = "ABC"

    // R3: the node's collection is its parent's with its overrides applied; R6: never stale.
    #expect(node.traitOverrides[OECaseInsensitiveTrait.self] == "ABC")
    #expect(node.traitCollection[OECaseInsensitiveTrait.self] == "ABC")
    // An unrelated change elsewhere makes the same read give another answer.
    graph.root.traitOverrides[OEOtherTrait.self] = 1
    #expect(node.traitCollection[OECaseInsensitiveTrait.self] == "ABC")
  }

  @Test(
    "a whole assignment whose old overrides' release reads the node still marks its change (R5)"
  )
  func wholeAssignmentReleasingIntoARead() {
    // helper-58's review: the setter let go of the old overrides before it took the change, and
    // a deinitializer that read the node then applied the new ones to it: the setter found the
    // node current, with nothing left to compare, and marked nothing.
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    var calls = 0
    node.registerForTraitChanges([OEPayloadTrait.self]) { (_: TraitNode, _) in calls += 1 }
    node.traitOverrides[OEPayloadTrait.self] = OEPayload(2)
    graph.updateTraitsIfNeeded()
    #expect(calls == 1)
    var deinitializerRead: Int?
    do {
      // An equal payload, assigned whole: no value changes, but the node's overrides hold the
      // only reference to the new instance, and its collection, stale now, the old one.
      let donor = TraitNode()
      donor.traitOverrides[OEPayloadTrait.self] = OEPayload(2) {
        deinitializerRead = node.traitCollection[OEPayloadTrait.self].key
      }
      node.traitOverrides = donor.traitOverrides
    }
    var overrides = node.traitOverrides
    overrides.remove(OEPayloadTrait.self)

    node.traitOverrides = overrides
    graph.updateTraitsIfNeeded()

    #expect(deinitializerRead == 0)
    #expect(node.traitCollection[OEPayloadTrait.self].key == 0)
    #expect(calls == 2)
  }

  @Test("a plain Double override of 0.0 under an inherited -0.0 reads +0.0 (R3, R6)")
  func addedSignedZeroOverrideIsRead() {
    let graph = TraitGraph()
    let parent = TraitNode()
    let node = TraitNode()
    graph.root.addTraitChild(parent)
    parent.addTraitChild(node)
    parent.traitOverrides[OEOffsetTrait.self] = -0.0
    #expect(node.traitCollection[OEOffsetTrait.self].sign == .minus)

    node.traitOverrides[OEOffsetTrait.self] = 0.0

    #expect(node.traitCollection[OEOffsetTrait.self].sign == .plus)
  }

  @Test(
    "an override written in place, read mid-access after another change, is still delivered (R5)"
  )
  func inPlaceWriteReadMidAccessIsDelivered() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    var calls = 0
    node.registerForTraitChanges([OEOtherTrait.self]) { (_: TraitNode, _: TraitCollection) in
      calls += 1
    }
    graph.updateTraitsIfNeeded()
    func configure(_ overrides: inout TraitOverrides) {
      overrides[OEOtherTrait.self] = 1
      // Any other change in the graph, then a read of the node, inside the access.
      graph.root.traitOverrides[OEUnrelatedTrait.self] = 1
      _ = node.traitCollection
    }

    configure(&node.traitOverrides)
    graph.updateTraitsIfNeeded()

    #expect(node.traitCollection[OEOtherTrait.self] == 1)
    // The registration's baseline is 0, the node's value 1: R5 calls it once.
    #expect(calls == 1)
  }

  @Test(
    "overrides assigned whole in place, read mid-access after another change, are still delivered (R5)"
  )
  func wholeInPlaceWriteReadMidAccessIsDelivered() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    var calls = 0
    node.registerForTraitChanges([OEOtherTrait.self]) { (_: TraitNode, _: TraitCollection) in
      calls += 1
    }
    graph.updateTraitsIfNeeded()
    var replacement = TraitOverrides()
    replacement[OEOtherTrait.self] = 1
    func configure(_ overrides: inout TraitOverrides) {
      overrides = replacement
      graph.root.traitOverrides[OEUnrelatedTrait.self] = 1
      _ = node.traitCollection
    }

    configure(&node.traitOverrides)
    graph.updateTraitsIfNeeded()

    #expect(node.traitCollection[OEOtherTrait.self] == 1)
    #expect(calls == 1)
  }

  @Test(
    "an override added whole by the setter with a value equal to the inherited one is read (R3, R6)"
  )
  func setterAddedEqualOverrideIsRead() {
    let graph = TraitGraph()
    let parent = TraitNode()
    let node = TraitNode()
    let child = TraitNode()
    graph.root.addTraitChild(parent)
    parent.addTraitChild(node)
    node.addTraitChild(child)
    parent.traitOverrides[OECaseInsensitiveTrait.self] = "abc"
    #expect(child.traitCollection[OECaseInsensitiveTrait.self] == "abc")

    var overrides = TraitOverrides()
    overrides[OECaseInsensitiveTrait.self] = "ABC"
    node.traitOverrides = overrides

    #expect(node.traitCollection[OECaseInsensitiveTrait.self] == "ABC")
    #expect(child.traitCollection[OECaseInsensitiveTrait.self] == "ABC")
  }

  @Test(
    "an override written in place to a stale node that is read mid-access is still delivered (R5)"
  )
  func inPlaceWriteToStaleNodeReadMidAccessIsDelivered() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    var calls = 0
    node.registerForTraitChanges([OEOtherTrait.self]) { (_: TraitNode, _: TraitCollection) in
      calls += 1
    }
    graph.updateTraitsIfNeeded()
    // Any change: the node's collection is not current now.
    graph.root.traitOverrides[OEUnrelatedTrait.self] = 1
    func configure(_ overrides: inout TraitOverrides) {
      overrides[OEOtherTrait.self] = 1
      _ = node.traitCollection
    }

    configure(&node.traitOverrides)
    graph.updateTraitsIfNeeded()

    #expect(calls == 1)
  }

  @Test(
    "overrides assigned whole, equal but stored differently, are read and call no one (R3, R5, R6)"
  )
  func wholeAssignmentStoredDifferentlyIsRead() {
    let graph = TraitGraph()
    let node = TraitNode()
    let child = TraitNode()
    graph.root.addTraitChild(node)
    node.addTraitChild(child)
    node.traitOverrides[OECaseInsensitiveTrait.self] = "abc"
    node.traitOverrides[OEOffsetTrait.self] = 0.0
    var calls = 0
    child.registerForTraitChanges([OECaseInsensitiveTrait.self, OEOffsetTrait.self]) {
      (_: TraitNode, _: TraitCollection) in calls += 1
    }
    graph.updateTraitsIfNeeded()
    _ = child.traitCollection
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }
    var replacement = TraitOverrides()
    replacement[OECaseInsensitiveTrait.self] = "ABC"
    replacement[OEOffsetTrait.self] = -0.0

    node.traitOverrides = replacement

    #expect(node.traitOverrides[OECaseInsensitiveTrait.self] == "ABC")
    #expect(node.traitCollection[OECaseInsensitiveTrait.self] == "ABC")
    #expect(child.traitCollection[OECaseInsensitiveTrait.self] == "ABC")
    #expect(node.traitCollection[OEOffsetTrait.self].sign == .minus)
    #expect(child.traitCollection[OEOffsetTrait.self].sign == .minus)
    // The values are equal to the ones the registration saw: nothing to tell it.
    #expect(requests == 0)
    graph.updateTraitsIfNeeded()
    #expect(calls == 0)
  }

  @Test("an access of the overrides that ends with an error thrown still reports its writes")
  func accessEndingWithErrorReports() {
    struct Failure: Error {}
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    var calls = 0
    node.registerForTraitChanges([OEOtherTrait.self]) { (_: TraitNode, _: TraitCollection) in
      calls += 1
    }
    graph.updateTraitsIfNeeded()
    func configure(_ overrides: inout TraitOverrides) throws {
      overrides[OEOtherTrait.self] = 1
      throw Failure()
    }

    #expect(throws: Failure.self) { try configure(&node.traitOverrides) }
    graph.updateTraitsIfNeeded()

    #expect(node.traitCollection[OEOtherTrait.self] == 1)
    #expect(calls == 1)
  }
}
