import Testing
import TraitKit

// A trait value may be an object whose deinitializer runs user code; the engine lets values go
// only once the tree is consistent, so that code may read the tree. Each test here freed memory
// twice or read freed memory (AddressSanitizer) before the engine ordered its releases.

/// A value that runs `onDeinit` when it goes.
private final class VDPayload: Sendable {
  nonisolated(unsafe) var onDeinit: (() -> Void)?

  init(onDeinit: (() -> Void)? = nil) { self.onDeinit = onDeinit }

  deinit { onDeinit?() }
}

private struct VDPayloadTrait: TraitDefinition {
  static let defaultValue: VDPayload? = nil
}

/// A value stored boxed: a `String` longer than 8 bytes.
private struct VDTextTrait: TraitDefinition {
  static let defaultValue = ""
}

@Suite("Values whose deinitializers read the tree")
struct ValueDeinitializerTests {
  @Test("a replaced override's value may read its node as it goes")
  func replacedOverrideReadsItsNode() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    var seenWhileGoing: [Bool] = []
    node.traitOverrides[VDPayloadTrait.self] = VDPayload(onDeinit: { [unowned node] in
      seenWhileGoing.append(node.traitCollection[VDPayloadTrait.self] != nil)
    })
    _ = node.traitCollection
    let second = VDPayload()

    node.traitOverrides[VDPayloadTrait.self] = second
    _ = node.traitCollection

    #expect(seenWhileGoing == [true])
    #expect(node.traitCollection[VDPayloadTrait.self] === second)
  }

  @Test("nodes that share the base traits let go of them when they are replaced by equal ones")
  func equalBaseTraits() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    let text = String(repeating: "a", count: 50)
    graph.baseTraits = TraitCollection(VDTextTrait.self, value: text)
    _ = node.traitCollection

    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }

    graph.baseTraits = TraitCollection(VDTextTrait.self, value: String(repeating: "a", count: 50))

    #expect(node.traitCollection[VDTextTrait.self] == text)
    #expect(requests == 0)
  }
}
