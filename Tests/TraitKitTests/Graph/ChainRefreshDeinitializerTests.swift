import Testing

@testable import TraitKit

// A read of a node whose ancestors are stale refreshes them top-down; each refresh lets go of
// what it replaced last, which can run a value's deinitializer, and that can read and change the
// tree. helper-66's review found two ways the refresh went on from a collection let go of: after
// a write to a current ancestor, which applies itself at once (203bccb made that one write enough;
// a write and a read did it before), and after a read and an equal write refreshed a node of the
// chain at the same epoch, which the chain then made anew. Fixtures start with `CR`.

private struct CRInt: TraitDefinition { static let defaultValue = 0 }
private struct CRInt2: TraitDefinition { static let defaultValue = 0 }
private struct CRText: TraitDefinition { static let defaultValue = "" }

private final class CRPayload: Equatable, @unchecked Sendable {
  let key: Int
  var onDeinit: (() -> Void)?
  init(_ key: Int) { self.key = key }
  deinit { onDeinit?() }
  static func == (lhs: CRPayload, rhs: CRPayload) -> Bool { lhs.key == rhs.key }
}

private struct CRPayloadTrait: TraitDefinition {
  static let defaultValue: CRPayload? = nil
}

private func crText(_ c: Character) -> String { String(repeating: c, count: 40) }

@Suite("A read's refresh of stale ancestors when values' deinitializers run in it (R6)")
struct ChainRefreshDeinitializerTests {
  /// The tree root → O → S → R.
  ///
  /// A read refreshes the stale chain O, S, R; S, whose last override went
  /// while it was stale, shares O's collection without a reference and lets go of its own, whose
  /// payload's deinitializer writes O: O, current, applies the write at once and lets go of the
  /// collection S shares; the chain then refreshes R from it.
  @Test("a chain refresh goes on from a collection a deinitializer's write let go of (R6, UAF)")
  func chainAfterWriteAbove() {
    let graph = TraitGraph()
    let o = TraitNode()
    let s = TraitNode()
    let r = TraitNode()
    graph.root.addTraitChild(o)
    o.addTraitChild(s)
    s.addTraitChild(r)
    o.traitOverrides[CRText.self] = crText("o")
    o.traitOverrides[CRInt.self] = 1
    s.traitOverrides[CRPayloadTrait.self] = CRPayload(0)
    r.traitOverrides[CRPayloadTrait.self] = CRPayload(99)
    r.traitOverrides[CRInt2.self] = 7
    _ = r.traitCollection
    var log: [String] = []
    do {
      // S, current, takes a payload at once: its new collection holds it, R's inherited one not.
      let payload = CRPayload(1)
      payload.onDeinit = {
        log.append("deinit: s shares o \(s._resolvedRef.toOpaque() == o._resolvedRef.toOpaque())")
        o.traitOverrides[CRText.self] = crText("v")
      }
      s.traitOverrides[CRPayloadTrait.self] = payload
    }
    // O, current, takes a write at once; S goes stale.
    o.traitOverrides[CRInt.self] = 2
    // S, stale, drops its override: the write waits for its next refresh.
    s.traitOverrides.remove(CRPayloadTrait.self)
    #expect(log.isEmpty)

    #expect(r.traitCollection[CRText.self] == crText("v"))
    #expect(log == ["deinit: s shares o true"])
    #expect(r.traitCollection[CRInt.self] == 2)
    #expect(r.traitCollection[CRInt2.self] == 7)
    #expect(s.traitCollection[CRText.self] == crText("v"))
    withExtendedLifetime(graph) {}
  }

  @Test(
    "a chain refresh refreshes again a node a deinitializer refreshed and wrote, in a process whose shields hold the traits (R6, UAF)"
  )
  func chainReRefreshAfterEqualWrite() async {
    // NB: in a process of its own, where these traits are the first numbered: past the 127 a
    // shield holds, the write of the inherited value counts as a change, and takes a new epoch.
    await #expect(processExitsWith: .success) {
      for trait: any TraitDefinition.Type in [
        CRInt.self, CRInt2.self, CRText.self, CRPayloadTrait.self,
      ] {
        _ = _TraitRegistry.index(of: trait)
      }
      precondition(_TraitRegistry.index(of: CRPayloadTrait.self) <= _TraitFilter.lastExactIndex)
      if let failure = crReRefreshAfterEqualWrite() { preconditionFailure(failure) }
    }
  }
}

/// Runs the tree root → A → B → {C, D}; returns what went wrong, or nil (or crashes).
///
/// A read of C refreshes the stale chain A, B, C; A's refresh lets go of
/// a payload whose deinitializer reads D (refreshing B and D at the same epoch) and writes B an
/// override of the value B inherits (no value changes: no new epoch); the chain then refreshes B
/// again, which makes its collection anew and lets go of the one D shares.
private func crReRefreshAfterEqualWrite() -> String? {
  let graph = TraitGraph()
  defer { withExtendedLifetime(graph) {} }
  let a = TraitNode()
  let b = TraitNode()
  let c = TraitNode()
  let d = TraitNode()
  graph.root.addTraitChild(a)
  a.addTraitChild(b)
  b.addTraitChild(c)
  b.addTraitChild(d)
  a.traitOverrides[CRPayloadTrait.self] = CRPayload(0)
  b.traitOverrides[CRText.self] = crText("b")
  b.traitOverrides[CRPayloadTrait.self] = CRPayload(99)
  _ = c.traitCollection
  _ = d.traitCollection
  var log: [String] = []
  do {
    // A, current, takes the payload at once: B's inherited collection does not hold it.
    let payload = CRPayload(1)
    payload.onDeinit = {
      _ = d.traitCollection
      b.traitOverrides[CRInt2.self] = 0  // the value B inherits
      log.append("d current \(d._resolvedIsCurrent), b to apply \(b._overridesChanged)")
    }
    a.traitOverrides[CRPayloadTrait.self] = payload
  }
  // The root, current, takes a write at once: A goes stale, and its write waits.
  graph.root.traitOverrides[CRInt.self] = 3
  a.traitOverrides.remove(CRPayloadTrait.self)
  guard log.isEmpty else { return "the payload went early: \(log)" }

  guard c.traitCollection[CRInt.self] == 3 else { return "C does not read the root's write" }
  guard log == ["d current true, b to apply true"] else { return "not the case: \(log)" }
  let values = (d.traitCollection[CRText.self], d.traitCollection[CRInt.self])
  guard values == (crText("b"), 3) else { return "D reads \(values)" }
  guard d._resolvedRef.toOpaque() == b._resolvedRef.toOpaque() else {
    return "D shares another collection than B's"
  }
  return nil
}
