import Testing
import TraitKit

@Suite("Trait tree")
struct TraitTreeTests {
  // MARK: - One parent per node (R4)

  @Test("adding a node under another parent moves it: a node has exactly one parent")
  func addMovesNode() {
    let graph = TraitGraph()
    let first = GTNode("first")
    let second = GTNode("second")
    let node = GTNode("node")
    graph.root.gtAdd(first, second)

    first.addTraitChild(node)
    #expect(node.traitParent === first)
    #expect(first.traitChildren.map { $0 === node } == [true])

    second.addTraitChild(node)
    #expect(node.traitParent === second)
    #expect(first.traitChildren.isEmpty)
    #expect(second.traitChildren.map { $0 === node } == [true])
    #expect(graph.statistics.liveNodes == 4)
  }

  @Test("adding a child that its parent already has moves it after its siblings")
  func readdingMovesToEnd() {
    let parent = GTNode("parent")
    let children = parent.gtAdd(GTNode("a"), GTNode("b"), GTNode("c"))

    parent.addTraitChild(children[0])
    #expect(parent.traitChildren.map { ($0 as? GTNode)?.name } == ["b", "c", "a"])

    parent.addTraitChild(children[0])
    #expect(parent.traitChildren.map { ($0 as? GTNode)?.name } == ["b", "c", "a"])
    #expect(children.allSatisfy { $0.traitParent === parent })
  }

  @Test("removing a node from its parent detaches it together with its subtree")
  func removeDetachesSubtree() {
    let graph = TraitGraph()
    let node = GTNode("node")
    let child = GTNode("child")
    let sibling = GTNode("sibling")
    graph.root.gtAdd(node, sibling)
    node.addTraitChild(child)
    #expect(graph.statistics.liveNodes == 4)

    node.removeFromTraitParent()

    #expect(node.traitParent == nil)
    #expect(child.traitParent === node)
    #expect(graph.root.traitChildren.map { $0 === sibling } == [true])
    #expect(graph.statistics.liveNodes == 2)

    node.removeFromTraitParent()
    #expect(node.traitParent == nil)
    #expect(graph.statistics.liveNodes == 2)

    graph.root.addTraitChild(node)
    #expect(graph.statistics.liveNodes == 4)
  }

  @Test("adding a node as a child of itself traps")
  func addingSelfTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      node.addTraitChild(node)
    }
    #expect(gtStandardError(result).contains("Cannot add a node as a child of itself"))
  }

  @Test("adding a node under its own descendant traps")
  func addingUnderDescendantTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let graph = TraitGraph()
      let node = TraitNode()
      let child = TraitNode()
      let grandchild = TraitNode()
      graph.root.addTraitChild(node)
      node.addTraitChild(child)
      child.addTraitChild(grandchild)
      grandchild.addTraitChild(node)
    }
    #expect(gtStandardError(result).contains("own descendant"))
  }

  @Test("adding a graph's root under one of its own nodes traps")
  func addingRootUnderDescendantTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let graph = TraitGraph()
      let node = TraitNode()
      graph.root.addTraitChild(node)
      node.addTraitChild(graph.root)
    }
    #expect(gtStandardError(result).contains("own descendant"))
  }

  @Test("a node's list of children doubles when it is full, from 4 up to Int32.max")
  func childListDoublesUpToTheLimit() {
    #expect(TraitNode._grownChildCapacity(from: 0) == 4)
    #expect(TraitNode._grownChildCapacity(from: 4) == 8)
    #expect(TraitNode._grownChildCapacity(from: Int32.max / 2) == Int32.max - 1)
    #expect(TraitNode._grownChildCapacity(from: Int32.max / 2 + 1) == Int32.max)
    #expect(TraitNode._grownChildCapacity(from: Int32.max - 1) == Int32.max)
  }

  @Test("a node with Int32.max children cannot take another: it traps, naming the limit")
  func fullChildListTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      _ = TraitNode._grownChildCapacity(from: Int32.max)
    }
    #expect(gtStandardError(result).contains("A node holds at most 2147483647 children"))
  }

  @Test("adding a graph's root to another graph's tree traps: its graph keeps it as the root")
  func addingAnotherGraphsRootTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let graph = TraitGraph()
      let other = TraitGraph()
      graph.root.addTraitChild(other.root)
    }
    #expect(gtStandardError(result).contains("Cannot add a graph's root as a child"))
  }

  @Test("a root whose graph is gone is a detached node, and may be added anywhere")
  func rootOfDeadGraphMayBeAdded() {
    let graph = TraitGraph()
    var other: TraitGraph? = TraitGraph()
    let formerRoot = other!.root
    let child = TraitNode()
    formerRoot.addTraitChild(child)
    formerRoot.traitOverrides[TraitUserInterfaceStyle.self] = .dark
    other = nil
    graph.root.addTraitChild(formerRoot)
    #expect(formerRoot.traitParent === graph.root)
    #expect(child.traitCollection.userInterfaceStyle == .dark)
    #expect(graph.statistics.liveNodes == 3)
  }

  // MARK: - Never stale (R6)

  @Test("a collection reflects new overrides of the node and its ancestors before any pass")
  func collectionReflectsOverridesBeforePass() {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let child = GTNode("child")
    graph.root.addTraitChild(parent)
    parent.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(child.traitCollection.horizontalSizeClass == .compact)
    parent.traitOverrides.horizontalSizeClass = .regular
    #expect(child.traitCollection.horizontalSizeClass == .regular)
    #expect(graph.root.traitCollection.horizontalSizeClass == .compact)
    parent.traitOverrides.remove(TraitHorizontalSizeClass.self)
    #expect(child.traitCollection.horizontalSizeClass == .compact)
    child.traitOverrides[GTThemeTrait.self] = 9
    #expect(child.traitCollection[GTThemeTrait.self] == 9)
    graph.root.traitOverrides[GTThemeTrait.self] = 2
    #expect(parent.traitCollection[GTThemeTrait.self] == 2)
    #expect(child.traitCollection[GTThemeTrait.self] == 9)
  }

  @Test("a collection reflects a move of the node or of an ancestor before any pass")
  func collectionReflectsMovesBeforePass() {
    let graph = TraitGraph()
    let compact = GTNode("compact")
    let regular = GTNode("regular")
    let node = GTNode("node")
    let child = GTNode("child")
    graph.root.gtAdd(compact, regular)
    compact.traitOverrides.horizontalSizeClass = .compact
    regular.traitOverrides.horizontalSizeClass = .regular
    compact.addTraitChild(node)
    node.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    #expect(child.traitCollection.horizontalSizeClass == .compact)

    regular.addTraitChild(node)
    #expect(node.traitCollection.horizontalSizeClass == .regular)
    #expect(child.traitCollection.horizontalSizeClass == .regular)

    compact.addTraitChild(regular)
    compact.traitOverrides.verticalSizeClass = .compact
    #expect(child.traitCollection.horizontalSizeClass == .regular)
    #expect(child.traitCollection.verticalSizeClass == .compact)

    regular.traitOverrides.remove(TraitHorizontalSizeClass.self)
    #expect(child.traitCollection.horizontalSizeClass == .compact)
  }

  @Test("the graph's base traits reach every node before any pass")
  func baseTraitsReachNodesBeforePass() {
    let graph = TraitGraph()
    let child = GTNode("child")
    graph.root.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    var previous: [UserInterfaceStyle] = []
    child.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: GTNode, previousTraitCollection: TraitCollection) in
      previous.append(previousTraitCollection.userInterfaceStyle)
    }

    graph.baseTraits = TraitCollection(TraitUserInterfaceStyle.self, value: .dark)

    #expect(child.traitCollection.userInterfaceStyle == .dark)
    graph.updateTraitsIfNeeded()
    #expect(previous == [.unspecified])
  }

  // MARK: - Detached nodes (R10)

  @Test("a node outside any graph resolves from the defaults, its own overrides and its parents")
  func detachedNodeResolves() {
    let detachedRoot = GTNode("detached root")
    let child = GTNode("child")
    detachedRoot.addTraitChild(child)

    #expect(child.traitCollection == TraitCollection())
    detachedRoot.traitOverrides.horizontalSizeClass = .compact
    child.traitOverrides[GTThemeTrait.self] = 5

    #expect(detachedRoot.traitCollection.horizontalSizeClass == .compact)
    #expect(child.traitCollection.horizontalSizeClass == .compact)
    #expect(child.traitCollection[GTThemeTrait.self] == 5)
    #expect(detachedRoot.traitCollection[GTThemeTrait.self] == 0)
  }

  @Test("a removed subtree at once resolves from the defaults instead of its old ancestors")
  func removedSubtreeResolvesFromDefaults() {
    let graph = TraitGraph(baseTraits: TraitCollection(TraitUserInterfaceIdiom.self, value: .pad))
    let node = GTNode("node")
    let child = GTNode("child")
    graph.root.addTraitChild(node)
    node.addTraitChild(child)
    graph.root.traitOverrides.horizontalSizeClass = .compact
    node.traitOverrides.verticalSizeClass = .regular

    node.removeFromTraitParent()

    #expect(child.traitCollection.horizontalSizeClass == .unspecified)
    #expect(child.traitCollection.userInterfaceIdiom == .unspecified)
    #expect(child.traitCollection.verticalSizeClass == .regular)
  }

  @Test("a detached node keeps its registrations but receives no callbacks")
  func detachedNodeGetsNoCallbacks() {
    let graph = TraitGraph()
    let node = GTNode("node")
    let child = GTNode("child")
    graph.root.addTraitChild(node)
    node.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    var calls = 0
    for observed in [node, child] {
      observed.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        calls += 1
      }
    }
    #expect(graph.statistics.liveRegistrations == 2)

    node.removeFromTraitParent()
    #expect(graph.statistics.liveRegistrations == 0)
    node.traitOverrides.horizontalSizeClass = .compact
    child.traitOverrides.horizontalSizeClass = .regular
    node.updateTraitsIfNeeded()
    child.updateTraitsIfNeeded()
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()

    #expect(calls == 0)
    #expect(child.traitCollection.horizontalSizeClass == .regular)
    graph.root.addTraitChild(node)
    #expect(graph.statistics.liveRegistrations == 2)
  }

  @Test("after attaching, the next pass tells each registration what differs from its baseline")
  func attachDeliversDifferenceFromBaseline() {
    let graph = TraitGraph()
    let compact = GTNode("compact")
    let regular = GTNode("regular")
    let node = GTNode("node")
    graph.root.gtAdd(compact, regular)
    compact.traitOverrides.horizontalSizeClass = .compact
    regular.traitOverrides.horizontalSizeClass = .regular
    regular.traitOverrides[GTThemeTrait.self] = 1
    compact.traitOverrides[GTThemeTrait.self] = 1
    compact.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, previous: TraitCollection) in
      log.append(
        "size: \(previous.horizontalSizeClass) → \(node.traitCollection.horizontalSizeClass)"
      )
    }
    node.registerForTraitChanges([TraitVerticalSizeClass.self]) {
      (node: GTNode, previous: TraitCollection) in
      log.append(
        "vertical: \(previous.verticalSizeClass) → \(node.traitCollection.verticalSizeClass)"
      )
    }
    node.registerForTraitChanges([GTThemeTrait.self]) { (_: GTNode, _: TraitCollection) in
      log.append("theme")
    }
    node.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: GTNode, _: TraitCollection) in
      log.append("style")
    }

    node.removeFromTraitParent()
    node.traitOverrides.verticalSizeClass = .compact
    node.traitOverrides.userInterfaceStyle = .dark
    node.traitOverrides.remove(TraitUserInterfaceStyle.self)
    graph.updateTraitsIfNeeded()
    #expect(log.entries.isEmpty)
    regular.addTraitChild(node)
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["size: compact → regular", "vertical: unspecified → compact"])
  }

  @Test("a node that outlives its graph is detached, keeps its registrations and works elsewhere")
  func nodeOutlivesItsGraph() {
    let node = GTNode("survivor")
    var previous: [UserInterfaceStyle] = []
    weak var weakGraph: TraitGraph?
    do {
      let graph = TraitGraph(
        baseTraits: TraitCollection(TraitUserInterfaceStyle.self, value: .dark)
      )
      weakGraph = graph
      graph.root.addTraitChild(node)
      node.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        (_: GTNode, previousTraitCollection: TraitCollection) in
        previous.append(previousTraitCollection.userInterfaceStyle)
      }
      graph.updateTraitsIfNeeded()
    }
    #expect(weakGraph == nil)
    #expect(node.traitParent == nil)
    #expect(node.traitCollection.userInterfaceStyle == .unspecified)

    let next = TraitGraph(baseTraits: TraitCollection(TraitUserInterfaceStyle.self, value: .light))
    next.root.addTraitChild(node)
    #expect(next.statistics.liveRegistrations == 1)
    next.updateTraitsIfNeeded()
    #expect(previous == [.dark])
  }

  @Test("a registration made while detached is told about the values the node gets when attached")
  func registrationMadeWhileDetached() {
    let graph = TraitGraph()
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    let node = GTNode("node")
    var previous: [UserInterfaceSizeClass] = []
    var current: [UserInterfaceSizeClass] = []
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, previousTraitCollection: TraitCollection) in
      previous.append(previousTraitCollection.horizontalSizeClass)
      current.append(node.traitCollection.horizontalSizeClass)
    }
    #expect(graph.statistics.liveRegistrations == 0)

    graph.root.addTraitChild(node)
    #expect(graph.statistics.liveRegistrations == 1)
    #expect(previous.isEmpty)
    graph.updateTraitsIfNeeded()

    #expect(previous == [.unspecified])
    #expect(current == [.compact])
  }

  @Test("a node that moves to another graph is counted and notified by the new graph only")
  func moveBetweenGraphs() {
    let first = TraitGraph()
    let second = TraitGraph()
    second.root.traitOverrides.userInterfaceStyle = .dark
    let node = GTNode("node")
    let child = GTNode("child")
    first.root.addTraitChild(node)
    node.addTraitChild(child)
    first.updateTraitsIfNeeded()
    second.updateTraitsIfNeeded()
    var calls = 0
    child.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: GTNode, _: TraitCollection) in
      calls += 1
    }
    #expect(first.statistics.liveNodes == 3)
    #expect(first.statistics.liveRegistrations == 1)

    second.root.addTraitChild(node)

    #expect(first.statistics.liveNodes == 1)
    #expect(first.statistics.liveRegistrations == 0)
    #expect(second.statistics.liveNodes == 3)
    #expect(second.statistics.liveRegistrations == 1)
    #expect(child.traitCollection.userInterfaceStyle == .dark)
    first.updateTraitsIfNeeded()
    #expect(calls == 0)
    second.updateTraitsIfNeeded()
    #expect(calls == 1)
  }

  // MARK: - Moving subtrees (R4)

  @Test("moving a subtree is a change for exactly the nodes whose observed values differ")
  func moveNotifiesOnlyChangedNodes() {
    let graph = TraitGraph()
    let compact = GTNode("compact")
    let alsoCompact = GTNode("also compact")
    let regular = GTNode("regular")
    graph.root.gtAdd(compact, alsoCompact, regular)
    compact.traitOverrides.horizontalSizeClass = .compact
    alsoCompact.traitOverrides.horizontalSizeClass = .compact
    alsoCompact.traitOverrides.verticalSizeClass = .regular
    regular.traitOverrides.horizontalSizeClass = .regular

    let moved = GTNode("moved")
    let shielded = GTNode("shielded")
    let follower = GTNode("follower")
    compact.addTraitChild(moved)
    moved.gtAdd(shielded, follower)
    shielded.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    for node in [moved, shielded, follower] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, previous: TraitCollection) in
        log.append("\(node.name) size: \(previous.horizontalSizeClass)")
      }
      node.registerForTraitChanges([TraitVerticalSizeClass.self]) {
        (node: GTNode, previous: TraitCollection) in
        log.append("\(node.name) vertical: \(previous.verticalSizeClass)")
      }
    }

    alsoCompact.addTraitChild(moved)
    graph.updateTraitsIfNeeded()
    #expect(
      log.entries == [
        "moved vertical: unspecified", "shielded vertical: unspecified",
        "follower vertical: unspecified",
      ]
    )

    log.removeAll()
    regular.addTraitChild(moved)
    graph.updateTraitsIfNeeded()
    #expect(
      log.entries == [
        "moved size: compact", "moved vertical: regular", "shielded vertical: regular",
        "follower size: compact", "follower vertical: regular",
      ]
    )

    log.removeAll()
    regular.addTraitChild(GTNode("newcomer"))
    compact.addTraitChild(GTNode("other newcomer"))
    graph.updateTraitsIfNeeded()
    #expect(log.entries.isEmpty)
  }

  @Test("moving a subtree back before the next pass is no change at all")
  func moveAndMoveBack() {
    let graph = TraitGraph()
    let compact = GTNode("compact")
    let regular = GTNode("regular")
    let node = GTNode("node")
    graph.root.gtAdd(compact, regular)
    compact.traitOverrides.horizontalSizeClass = .compact
    regular.traitOverrides.horizontalSizeClass = .regular
    compact.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    var calls = 0
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      calls += 1
    }

    regular.addTraitChild(node)
    node.removeFromTraitParent()
    compact.addTraitChild(node)
    graph.updateTraitsIfNeeded()

    #expect(calls == 0)
  }

  // MARK: - Changing the tree during a pass

  @Test("a node removed by an earlier handler in the same pass is not called while detached")
  func removedDuringPassIsNotCalled() {
    let graph = TraitGraph()
    let first = GTNode("first")
    let second = GTNode("second")
    graph.root.gtAdd(first, second)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    first.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append(node.name)
      second.removeFromTraitParent()
    }
    second.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append(node.name)
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["first"])
    #expect(second.traitParent == nil)
  }

  @Test("a subtree that a handler detaches in the middle of a pass receives no more callbacks")
  func subtreeDetachedMidPassGetsNoCallbacks() {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let first = GTNode("first")
    let second = GTNode("second")
    let grandchild = GTNode("grandchild")
    graph.root.addTraitChild(parent)
    parent.gtAdd(first, second)
    second.addTraitChild(grandchild)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    for node in [first, second, grandchild] {
      // NB: `unowned`: a handler that kept `parent` would keep its own node alive in a cycle.
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned parent] (node: GTNode, _: TraitCollection) in
        log.append(node.name)
        if node.name == "first" { parent.removeFromTraitParent() }
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(parent.traitParent == nil)
    #expect(log.entries == ["first"])
  }

  @Test("the children of a node whose own handler detaches it receive no callbacks")
  func childrenOfSelfDetachedNodeGetNoCallbacks() {
    let graph = TraitGraph()
    let node = GTNode("node")
    let child = GTNode("child")
    graph.root.addTraitChild(node)
    node.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    for observed in [node, child] {
      observed.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (observed: GTNode, _: TraitCollection) in
        log.append(observed.name)
        if observed.name == "node" { observed.removeFromTraitParent() }
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["node"])
    // Attached again, the child hears of the difference from its baseline exactly once.
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    #expect(log.entries.filter { $0 == "child" }.count == 1)
  }

  @Test("a handler that removes its own node does not make a later sibling miss the change")
  func selfRemovalDuringPassKeepsSiblings() {
    let graph = TraitGraph()
    let nodes = graph.root.gtAdd(GTNode("first"), GTNode("second"), GTNode("third"))
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    for node in nodes {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        log.append(node.name)
        if node.name == "first" { node.removeFromTraitParent() }
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["first", "second", "third"])

    #expect(nodes[1].traitCollection.horizontalSizeClass == .compact)
  }

  @Test("a handler that moves its own node after its siblings does not make them miss the change")
  func selfMoveDuringPassKeepsSiblings() {
    let graph = TraitGraph()
    let nodes = graph.root.gtAdd(GTNode("first"), GTNode("second"), GTNode("third"))
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    for node in nodes {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        log.append(node.name)
        if node.name == "first" { node.traitParent?.addTraitChild(node) }
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["first", "second", "third"])

  }

  @Test(
    "a node that a handler moves ahead of the walk is called once per round, then for the move",
    arguments: [false, true]
  )
  func nodeMovedAheadOfWalk(underLaterSibling: Bool) {
    // N, under A, hears of the change first. B's handler then moves N under B itself, or under
    // its later sibling C: a parent the walk has not left. N must not be called twice in that
    // round; the next round tells it of the theme the move changed. Each call logs the round it
    // ran in, which the running pass's statistics count.
    let graph = TraitGraph()
    let nodes = graph.root.gtAdd(GTNode("A"), GTNode("B"), GTNode("C"))
    let moved = nodes[0].gtAdd(GTNode("N"))[0]
    nodes[0].traitOverrides[GTThemeTrait.self] = 1
    nodes[1].traitOverrides[GTThemeTrait.self] = 2
    nodes[2].traitOverrides[GTThemeTrait.self] = 2
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    // NB: the handlers hold the graph and the nodes unowned: the graph's tree holds them.
    let logCall = { [unowned graph] (node: GTNode) in
      log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
    }
    moved.registerForTraitChanges([TraitHorizontalSizeClass.self, GTThemeTrait.self]) {
      (node: GTNode, _: TraitCollection) in logCall(node)
    }
    var hasMoved = false
    for node in nodes[1...] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned moved, unowned later = nodes[2]] (node: GTNode, _: TraitCollection) in
        logCall(node)
        guard node.name == "B", !hasMoved else { return }
        hasMoved = true
        (underLaterSibling ? later : node).addTraitChild(moved)
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["N@1", "B@1", "C@1", "N@2"])
    #expect(moved.traitCollection[GTThemeTrait.self] == 2)
  }

  @Test("a node taken from a subtree the walk went past after it left waits for the next round")
  func nodeTakenFromDepartedSubtreeWaits() {
    // A's handler adds P under A, ahead of the walk, which visits P; P's handler detaches P with
    // Q and R below it, and the walk goes past Q all the same (R5). B's handler then moves R from
    // under Q to under B: the round went past R too, so R waits for the next round, after C.
    let graph = TraitGraph()
    let nodes = graph.root.gtAdd(GTNode("A"), GTNode("B"), GTNode("C"))
    let departing = GTNode("P")
    let taken = departing.gtAdd(GTNode("Q"))[0].gtAdd(GTNode("R"))[0]
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    // NB: the handlers hold the graph and the nodes unowned: the test holds them.
    let logCall = { [unowned graph] (node: GTNode) in
      log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
    }
    for node in [departing, taken] + nodes {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned departing, unowned taken] (node: GTNode, _: TraitCollection) in
        logCall(node)
        switch node.name {
        case "A": node.addTraitChild(departing)
        case "P": node.removeFromTraitParent()
        case "B": node.addTraitChild(taken)
        default: break
        }
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["A@1", "P@1", "B@1", "C@1", "R@2"])
    #expect(taken.traitCollection.horizontalSizeClass == .compact)
  }

  @Test("a node's children hear of later changes after a handler detached it during a pass")
  func childrenOfNodeDetachedDuringPassHearLater() {
    // The walk skips the detached node's children, but their summary stays with it: once the
    // node is attached again, the next pass tells the child what differs from its baseline.
    let graph = TraitGraph()
    let parent = GTNode("P")
    let child = GTNode("C")
    graph.root.addTraitChild(parent)
    parent.addTraitChild(child)
    let log = GTLog()
    var token: TraitChangeRegistration?
    token = parent.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("P")
      node.unregisterForTraitChanges(token)
      node.removeFromTraitParent()
    }
    child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, previous: TraitCollection) in
      log.append("C \(previous.horizontalSizeClass)→\(node.traitCollection.horizontalSizeClass)")
    }
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.root.traitOverrides.horizontalSizeClass = .compact

    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["P"])
    graph.root.addTraitChild(parent)
    graph.updateTraitsIfNeeded()
    gtChangeSizeClass(graph, to: .regular)

    #expect(log.entries == ["P", "C unspecified→compact", "C compact→regular"])
  }

  @Test("a node's children hear of its new graph's changes after a handler moved it there")
  func childrenOfNodeMovedToAnotherGraphHearLater() {
    let graph = TraitGraph()
    let other = TraitGraph()
    let parent = GTNode("P")
    let child = GTNode("C")
    graph.root.addTraitChild(parent)
    parent.addTraitChild(child)
    let log = GTLog()
    var moves = true
    // NB: the other graph unowned: once the node is in its tree, it holds this closure.
    parent.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned other] (node: GTNode, _: TraitCollection) in
      log.append("P")
      guard moves else { return }
      moves = false
      other.root.addTraitChild(node)
      other.updateTraitsIfNeeded()
    }
    child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, previous: TraitCollection) in
      log.append("C \(previous.horizontalSizeClass)→\(node.traitCollection.horizontalSizeClass)")
    }
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.root.traitOverrides.horizontalSizeClass = .compact

    withExtendedLifetime(other) { graph.updateTraitsIfNeeded() }
    // The other graph's pass tells P that its style went back to the default there.
    #expect(log.entries == ["P", "P"])
    gtChangeSizeClass(other, to: .regular)

    #expect(log.entries == ["P", "P", "C unspecified→regular"])
  }

  @Test("a subtree pass whose start a handler detaches calls nothing more there")
  func subtreePassStartDetached() {
    // R10. The handler's detachment changes the start's traits (it resolves from the defaults
    // now); the pass must not go on to a round that tells it so while it is detached. Found by
    // the differential test's soak run.
    let graph = TraitGraph()
    let node = GTNode("N")
    graph.root.addTraitChild(node)
    let log = GTLog()
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, previous: TraitCollection) in
      log.append("N \(previous.horizontalSizeClass)→\(node.traitCollection.horizontalSizeClass)")
      node.removeFromTraitParent()
    }
    graph.root.traitOverrides.horizontalSizeClass = .compact

    node.updateTraitsIfNeeded()

    #expect(log.entries == ["N unspecified→compact"])
    #expect(node.traitCollection.horizontalSizeClass == .unspecified)
  }
}
