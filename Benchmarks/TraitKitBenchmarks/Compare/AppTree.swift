import TraitKit
import TraitKitLegacy

/// The app-shaped tree as a TraitKit graph, observed one of two ways: every node adopts the
/// legacy `traitCollectionDidChange` (declaring the traits it uses as interesting), or every node
/// registers for exactly the traits it uses.
final class AppTree {
  /// How the nodes observe their traits.
  enum Observation {
    /// Every node but the screen adopts `traitCollectionDidChange`.
    case legacy
    /// Every node but the screen registers for the traits it uses.
    case registrations
  }

  let graph: TraitGraph
  let nodes: [TraitNode]
  let observation: Observation
  /// Counts the callbacks of every node.
  let counter: CallbackCounter

  /// Builds `app`'s tree with its initial overrides, runs a pass, then has every node observe
  /// the traits its kind uses, in the way `observation` says.
  init(_ app: AppShape, observation: Observation) {
    let counter = CallbackCounter()
    self.counter = counter
    self.observation = observation
    let adopter: any LegacyAdopting = LegacyAdopter()
    let tree = TraitKitTree(app.shape) {
      observation == .legacy ? adopter.makeNode(counter: counter) : TraitNode()
    }
    graph = tree.graph
    nodes = tree.nodes
    let traitCount = AppTrait.allCases.count
    for node in 0..<app.count {
      for trait in AppTrait.allCases {
        guard let value = app.initialOverrides[node * traitCount + trait.rawValue] else {
          continue
        }
        trait.write(value, to: &nodes[node].traitOverrides)
      }
    }
    graph.updateTraitsIfNeeded()
    let expected = app.resolve(app.initialOverrides)
    for node in 0..<app.count {
      for trait in AppTrait.allCases {
        require(
          trait.read(nodes[node].traitCollection) == expected[node * traitCount + trait.rawValue],
          "Node \(node) resolves \(trait.label) unlike the model"
        )
      }
    }
    for node in 1..<app.count {
      let traits = AppTrait.members(of: app.kinds[node].uses).map(\.definition)
      switch observation {
      case .legacy:
        adopter.adopt(nodes[node], interestingTraits: traits)
      case .registrations:
        nodes[node].registerForTraitChanges(traits) { (_: TraitNode, _: TraitCollection) in
          counter.count += 1
        }
      }
    }
    graph.updateTraitsIfNeeded()
    require(counter.take() == 0, "Observing must not call anyone")
  }

  /// A closure that performs `change`'s override writes, without the update pass.
  func writer(for change: AppChange) -> () -> Void {
    let node = nodes[change.node]
    let writes = change.writes
    return {
      for (trait, value) in writes { trait.write(value, to: &node.traitOverrides) }
    }
  }
}

@available(*, unavailable)
extension AppTree: Sendable {}

/// Adopts the deprecated legacy adapter for `AppTree`.
///
/// NB: a protocol, so that only the witnesses below are deprecated: the benchmark uses the
/// deprecated adapter on purpose, and calls through the protocol do not repeat the warning.
protocol LegacyAdopting {
  /// A node that counts its `traitCollectionDidChange` calls in `counter`.
  func makeNode(counter: CallbackCounter) -> TraitNode
  /// Has `node` (made by `makeNode`) adopt `traitCollectionDidChange`.
  func adopt(_ node: TraitNode, interestingTraits: [any TraitDefinition.Type])
}

/// The `LegacyAdopting` of the benchmark.
struct LegacyAdopter: LegacyAdopting {
  @available(*, deprecated, message: "Measures the deprecated legacy adapter on purpose")
  func makeNode(counter: CallbackCounter) -> TraitNode {
    LegacyAppNode(counter: counter)
  }

  @available(*, deprecated, message: "Measures the deprecated legacy adapter on purpose")
  func adopt(_ node: TraitNode, interestingTraits: [any TraitDefinition.Type]) {
    unsafeDowncast(node, to: LegacyAppNode.self)
      .adoptTraitCollectionDidChange(interestingTraits: interestingTraits)
  }
}

/// A node of the legacy contender: it counts its calls and does nothing else, like the
/// registrations' handlers.
@available(*, deprecated, message: "Measures the deprecated legacy adapter on purpose")
final class LegacyAppNode: TraitNode, TraitCollectionDidChangeObserving {
  private let counter: CallbackCounter

  init(counter: CallbackCounter) {
    self.counter = counter
    super.init()
  }

  func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {
    counter.count += 1
  }
}
