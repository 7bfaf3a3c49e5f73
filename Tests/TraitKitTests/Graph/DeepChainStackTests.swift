import Foundation
import Testing
import TraitKit

/// Runs `body` on a new thread whose stack holds `bytes`, and waits for it.
///
/// A call that recursed once per node of a long chain would overflow such a stack and crash the
/// process, so a test that passes shows the work took bounded stack.
private func onSmallStack(bytes: Int, _ body: @escaping @Sendable () -> Void) {
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    body()
    done.signal()
  }
  thread.stackSize = bytes
  thread.start()
  done.wait()
}

/// anchors.md §5.3, S3: a deep chain must not grow the stack.
@Suite("A deep chain takes bounded stack")
struct DeepChainStackTests {
  private static let depth = 100_000
  /// 256 KiB: a recursion per node would need some megabytes at this depth.
  private static let stack = 256 << 10

  @Test("a 100,000-deep chain is built, resolved, passed through and torn down on a 256 KiB stack")
  func deepChain() {
    nonisolated(unsafe) var calls = 0
    nonisolated(unsafe) var leafValue = -1
    onSmallStack(bytes: Self.stack) {
      let graph = TraitGraph()
      var nodes = [graph.root]
      for _ in 1..<Self.depth {
        let node = TraitNode()
        nodes.last!.addTraitChild(node)
        nodes.append(node)
      }
      let leaf = nodes.last!
      _ = leaf.traitCollection
      leaf.registerForTraitChanges([TraitHorizontalSizeClass.self]) { (_: TraitNode, _) in
        calls += 1
      }
      graph.root.traitOverrides.horizontalSizeClass = .compact
      graph.updateTraitsIfNeeded()
      leafValue = leaf.traitCollection.horizontalSizeClass == .compact ? 1 : 0
      // The chain below the root moves into another graph, whose pass reaches the leaf again.
      let other = TraitGraph()
      other.root.traitOverrides.horizontalSizeClass = .regular
      other.root.addTraitChild(nodes[1])
      other.updateTraitsIfNeeded()
      nodes.removeAll()
    }
    #expect(calls == 2)
    #expect(leafValue == 1)
  }
}
