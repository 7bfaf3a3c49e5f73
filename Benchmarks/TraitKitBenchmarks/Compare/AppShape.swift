import TraitKit

/// An app-shaped trait tree and a plain model of it that computes the expected callbacks.
///
/// One screen (the graph's root) → one window scene → 2 windows → per window a navigation
/// controller with a navigation bar and 4 view controllers → per view controller a root container
/// and 60–90 views of mixed kinds: size-class containers (some overriding the style, as a
/// media panel that is always dark, or the horizontal size class, as a compact column), labels,
/// image views, themed views and cells (each cell holding a label and an image view). The scene
/// overrides every trait the app uses, as a system would set them. Built from a fixed seed, so
/// that every contender and every run sees the same tree.
struct AppShape: Sendable {
  /// Parents and children; node 0 is the screen, node 1 the scene.
  let shape: TreeShape
  /// Each node's kind.
  let kinds: [AppNodeKind]
  /// Each node's overrides at the start: `AppTrait.allCases.count` optional values per node.
  let initialOverrides: [Int?]
  /// The view controllers, window by window.
  let viewControllers: [Int]
  /// The view controller whose subtree the local-override workload changes.
  let localScreen: Int

  /// The scene node.
  let scene = 1

  /// The number of nodes, the screen included.
  var count: Int { shape.count }

  /// The number of nodes of each kind, in `AppNodeKind` order, kinds with no node left out.
  var census: [(kind: AppNodeKind, count: Int)] {
    AppNodeKind.allCases.compactMap { kind in
      let count = kinds.count { $0 == kind }
      return count == 0 ? nil : (kind, count)
    }
  }

  // MARK: - Building

  /// Builds the tree from `seed`.
  init(
    seed: UInt64 = 0x7A17_0017,
    windows: Int = 2,
    controllersPerWindow: Int = 4,
    viewsPerController: ClosedRange<Int> = 60...90
  ) {
    let traitCount = AppTrait.allCases.count
    var generator = SeededGenerator(seed: seed)
    var parent: [Int] = []
    var kinds: [AppNodeKind] = []
    var overrides: [Int?] = []
    var depth: [Int] = []
    func add(_ kind: AppNodeKind, under node: Int, _ values: [(AppTrait, Int)] = []) -> Int {
      parent.append(node)
      kinds.append(kind)
      depth.append(node < 0 ? 0 : depth[node] + 1)
      overrides += [Int?](repeating: nil, count: traitCount)
      for (trait, value) in values {
        overrides[(parent.count - 1) * traitCount + trait.rawValue] = value
      }
      return parent.count - 1
    }
    let screen = add(.screen, under: -1)
    let large = ContentSizeCategoryIndex.large
    let scene = add(
      .scene,
      under: screen,
      [
        (.horizontalSizeClass, 1), (.verticalSizeClass, 2), (.userInterfaceStyle, 1),
        (.preferredContentSizeCategory, large), (.displayScale, 3), (.theme, 0),
      ]
    )
    var viewControllers: [Int] = []
    for _ in 0..<windows {
      let window = add(.window, under: scene)
      let navigation = add(.navigationController, under: window)
      _ = add(.navigationBar, under: navigation)
      for _ in 0..<controllersPerWindow {
        let controller = add(.viewController, under: navigation)
        viewControllers.append(controller)
        let rootView = add(.container, under: controller)
        let target = Int.random(in: viewsPerController, using: &generator)
        var open = [rootView]
        var views = 1
        while views < target {
          let host = open[Int.random(in: 0..<open.count, using: &generator)]
          let roll = Int.random(in: 0..<100, using: &generator)
          switch roll {
          case 0..<15:
            let special = Int.random(in: 0..<10, using: &generator)
            let values: [(AppTrait, Int)] =
              switch special {
              case 0: [(.userInterfaceStyle, 2)]  // a media panel that is always dark
              case 1: [(.horizontalSizeClass, 1)]  // a column that is always compact
              default: []
              }
            let container = add(.container, under: host, values)
            if depth[container] - depth[controller] < 5 { open.append(container) }
            views += 1
          case 15..<45:
            _ = add(.label, under: host)
            views += 1
          case 45..<65:
            _ = add(.imageView, under: host)
            views += 1
          case 65..<80:
            _ = add(.themedView, under: host)
            views += 1
          default:
            let cell = add(.cell, under: host)
            _ = add(.label, under: cell)
            _ = add(.imageView, under: cell)
            views += 3
          }
        }
      }
    }
    self.shape = TreeShape(parent: parent)
    self.kinds = kinds
    self.initialOverrides = overrides
    self.viewControllers = viewControllers
    self.localScreen = viewControllers[1]
  }

  // MARK: - The model

  /// Every node's resolved values under `overrides`: `AppTrait.allCases.count` per node, a
  /// trait that nothing sets reading 0 (every trait's default).
  func resolve(_ overrides: [Int?]) -> [Int] {
    let traitCount = AppTrait.allCases.count
    var values = [Int](repeating: 0, count: count * traitCount)
    for node in 0..<count {
      for trait in 0..<traitCount {
        let inherited = node == 0 ? 0 : values[shape.parent[node] * traitCount + trait]
        values[node * traitCount + trait] = overrides[node * traitCount + trait] ?? inherited
      }
    }
    return values
  }

  /// Applies the changes of `cycle` in turn from the initial overrides and returns what each
  /// one does.
  ///
  /// - Precondition: The cycle returns the tree to its initial state.
  func simulate(_ cycle: [AppChange]) -> [AppChange.Effect] {
    let traitCount = AppTrait.allCases.count
    var overrides = initialOverrides
    var values = resolve(overrides)
    var effects: [AppChange.Effect] = []
    for change in cycle {
      for (trait, value) in change.writes {
        overrides[change.node * traitCount + trait.rawValue] = value
      }
      let next = resolve(overrides)
      var effect = AppChange.Effect()
      for node in 1..<count {
        var changed: UInt32 = 0
        for trait in AppTrait.allCases
        where values[node * traitCount + trait.rawValue] != next[node * traitCount + trait.rawValue]
        {
          changed |= trait.bit
        }
        guard changed != 0 else { continue }
        effect.changedNodes += 1
        if changed & kinds[node].uses != 0 {
          effect.usingNodes += 1
          effect.usingByKind[kinds[node], default: 0] += 1
        }
      }
      effect.floorWrites = change.writes.map { trait, value in
        (trait, next[change.node * traitCount + trait.rawValue], value != nil)
      }
      effects.append(effect)
      values = next
    }
    require(overrides == initialOverrides, "A workload's cycle must return the tree's state")
    return effects
  }
}

/// Indices of content size categories in `ContentSizeCategory.allCases`.
enum ContentSizeCategoryIndex {
  /// `.large`, the system's default.
  static let large = ContentSizeCategory.allCases.firstIndex(of: .large)!
  /// `.extraExtraLarge`.
  static let extraExtraLarge = ContentSizeCategory.allCases.firstIndex(of: .extraExtraLarge)!
}
