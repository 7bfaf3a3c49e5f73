import Testing
import TraitKit

@Suite("Update pass")
struct UpdatePassTests {
  // MARK: - Timing

  @Test("callbacks wait for the pass, and all of them have run when the pass returns")
  func passIsSynchronous() {
    let graph = TraitGraph()
    let nodes = graph.root.gtAdd(GTNode("a"), GTNode("b"))
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    for node in nodes {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        log.append(node.name)
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(log.entries.isEmpty)
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["a", "b"])
    #expect(graph.statistics.lastPass.rounds == 1)
    #expect(graph.statistics.lastPass.callbacksDelivered == 2)
  }

  @Test("a pass with nothing pending runs no round and visits no node")
  func idlePass() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
    }
    graph.updateTraitsIfNeeded()

    graph.updateTraitsIfNeeded()

    #expect(graph.statistics.lastPass.rounds == 0)
    #expect(graph.statistics.lastPass.nodesVisited == 0)
    #expect(graph.statistics.lastPass.callbacksDelivered == 0)
  }

  // MARK: - Order

  @Test("a round calls parents before children, and children in the order they were added")
  func preOrder() {
    let graph = TraitGraph()
    let a = GTNode("a")
    let a1 = GTNode("a1")
    let a1x = GTNode("a1x")
    let a1y = GTNode("a1y")
    let a2 = GTNode("a2")
    let b = GTNode("b")
    let b1 = GTNode("b1")
    let c = GTNode("c")
    graph.root.gtAdd(c, a, b)
    a.gtAdd(a1, a2)
    a1.gtAdd(a1y, a1x)
    b.addTraitChild(b1)
    // Re-adding moves a node after its siblings: the order is the order of the last addition.
    graph.root.addTraitChild(c)
    a1.addTraitChild(a1y)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    graph.root.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: TraitNode, _: TraitCollection) in
      log.append("root")
    }
    for node in [b1, a1y, c, a2, a1x, b, a1, a] {
      node.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        (node: GTNode, _: TraitCollection) in
        log.append(node.name)
      }
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["root", "a", "a1", "a1x", "a1y", "a2", "b", "b1", "c"])
  }

  @Test("a node's registrations are called in the order they were made")
  func registrationOrder() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    let traits: [any TraitDefinition.Type] = [
      GTThemeTrait.self, TraitHorizontalSizeClass.self, GTThemeTrait.self,
      TraitUserInterfaceStyle.self,
    ]
    var tokens: [TraitChangeRegistration] = []
    for (position, trait) in traits.enumerated() {
      tokens.append(
        node.registerForTraitChanges([trait]) { (_: GTNode, _: TraitCollection) in
          log.append("r\(position)")
        }
      )
    }

    node.traitOverrides.userInterfaceStyle = .dark
    node.traitOverrides.horizontalSizeClass = .regular
    node.traitOverrides[GTThemeTrait.self] = 1
    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["r0", "r1", "r2", "r3"])

    log.removeAll()
    node.unregisterForTraitChanges(tokens[1])
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      log.append("r4")
    }
    node.traitOverrides.horizontalSizeClass = .compact
    node.traitOverrides[GTThemeTrait.self] = 2
    node.traitOverrides.userInterfaceStyle = .light
    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["r0", "r2", "r3", "r4"])
  }

  // MARK: - Coalescing

  @Test("a registration is called once per round however many of its traits changed")
  func oncePerRound() async {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()

    await confirmation(expectedCount: 1) { called in
      node.registerForTraitChanges([
        TraitHorizontalSizeClass.self, TraitVerticalSizeClass.self, GTThemeTrait.self,
      ]) { (_: GTNode, _: TraitCollection) in
        called()
      }
      graph.root.traitOverrides.horizontalSizeClass = .compact
      node.traitOverrides.verticalSizeClass = .regular
      node.traitOverrides[GTThemeTrait.self] = 4
      graph.root.traitOverrides.horizontalSizeClass = .regular
      graph.updateTraitsIfNeeded()
    }
  }

  @Test(
    "a color-appearance registration is called once per pass however many members change",
    arguments: 1...6
  )
  func semanticSetCalledOnce(changedMembers: Int) async {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    let changes: [(inout TraitOverrides) -> Void] = [
      { $0.userInterfaceStyle = .dark },
      { $0.userInterfaceIdiom = .pad },
      { $0.displayGamut = .P3 },
      { $0.accessibilityContrast = .high },
      { $0.userInterfaceLevel = .elevated },
      { $0.listEnvironment = .sidebar },
    ]

    await confirmation(expectedCount: 1) { called in
      node.registerForTraitChanges(TraitCollection.systemTraitsAffectingColorAppearance) {
        (_: GTNode, _: TraitCollection) in
        called()
      }
      for change in changes.prefix(changedMembers) { change(&graph.root.traitOverrides) }
      graph.updateTraitsIfNeeded()
      // Traits outside the set do not call it.
      graph.root.traitOverrides.horizontalSizeClass = .compact
      graph.root.traitOverrides.displayScale = 3
      graph.updateTraitsIfNeeded()
    }
  }

  @Test("values that change and change back between two passes fire nothing")
  func changeAndChangeBack() {
    let graph = TraitGraph()
    let node = GTNode("node")
    let child = GTNode("child")
    graph.root.addTraitChild(node)
    node.addTraitChild(child)
    node.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    var calls = 0
    for observed in [node, child] {
      observed.registerForTraitChanges([
        TraitHorizontalSizeClass.self, TraitVerticalSizeClass.self, GTThemeTrait.self,
      ]) { (_: GTNode, _: TraitCollection) in
        calls += 1
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.root.traitOverrides.remove(TraitHorizontalSizeClass.self)
    node.traitOverrides.verticalSizeClass = .regular
    node.traitOverrides.verticalSizeClass = .compact
    child.traitOverrides[GTThemeTrait.self] = 3
    child.traitOverrides[GTThemeTrait.self] = 0
    graph.updateTraitsIfNeeded()

    #expect(calls == 0)
    #expect(graph.statistics.lastPass.callbacksDelivered == 0)
  }

  @Test("a handler is not called for a trait it did not register for")
  func unrelatedTraitDoesNotFire() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    var calls = 0
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      calls += 1
    }

    graph.root.traitOverrides.verticalSizeClass = .compact
    node.traitOverrides[GTThemeTrait.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(calls == 0)
  }

  // MARK: - The previous collection

  @Test("previousTraitCollection is the collection a registration last saw, exact for its traits")
  func previousIsBaseline() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    var seen: [(previous: TraitCollection, current: TraitCollection)] = []
    node.registerForTraitChanges([TraitHorizontalSizeClass.self, TraitVerticalSizeClass.self]) {
      (node: GTNode, previous: TraitCollection) in
      seen.append((previous, node.traitCollection))
    }

    node.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    #expect(seen.isEmpty)

    node.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    node.traitOverrides.verticalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    node.traitOverrides.horizontalSizeClass = .regular
    node.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(seen.map(\.previous.horizontalSizeClass) == [.unspecified, .compact, .compact])
    #expect(seen.map(\.previous.verticalSizeClass) == [.unspecified, .unspecified, .regular])
    #expect(seen.map(\.current.horizontalSizeClass) == [.compact, .compact, .regular])
    #expect(seen.map(\.current.verticalSizeClass) == [.unspecified, .regular, .compact])
  }

  @Test("the first previousTraitCollection is the collection the node had when registering")
  func firstPreviousIsCollectionAtRegistration() throws {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    node.traitOverrides.horizontalSizeClass = .compact
    node.traitOverrides[GTThemeTrait.self] = 8
    graph.updateTraitsIfNeeded()
    let atRegistration = node.traitCollection
    var previous: [TraitCollection] = []
    node.registerForTraitChanges([TraitHorizontalSizeClass.self, GTThemeTrait.self]) {
      (_: GTNode, previousTraitCollection: TraitCollection) in
      previous.append(previousTraitCollection)
    }

    node.traitOverrides.horizontalSizeClass = .regular
    node.traitOverrides[GTThemeTrait.self] = 9
    graph.updateTraitsIfNeeded()

    let first = try #require(previous.first)
    #expect(previous.count == 1)
    #expect(first.horizontalSizeClass == atRegistration.horizontalSizeClass)
    #expect(first[GTThemeTrait.self] == 8)
  }

  // MARK: - The current collection

  @Test("TraitCollection.current is the observed node's collection during its handlers")
  func currentDuringHandler() {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let child = GTNode("child")
    graph.root.addTraitChild(parent)
    parent.addTraitChild(child)
    parent.traitOverrides.userInterfaceStyle = .dark
    child.traitOverrides.userInterfaceStyle = .light
    graph.updateTraitsIfNeeded()
    var matches: [String] = []
    for node in [parent, child] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        if TraitCollection.current == node.traitCollection { matches.append(node.name) }
        let elsewhere = TraitCollection(GTThemeTrait.self, value: 1)
        elsewhere.performAsCurrent {
          if TraitCollection.current != elsewhere { matches.append("not restored") }
        }
        if TraitCollection.current != node.traitCollection { matches.append("lost") }
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    let outside = TraitCollection(GTThemeTrait.self, value: 42)
    outside.performAsCurrent { graph.updateTraitsIfNeeded() }

    #expect(matches == ["parent", "child"])
    #expect(TraitCollection.current == TraitCollection())
  }

  @Test("TraitCollection.current follows a change a handler makes to its node or above it")
  func currentAfterHandlerChange() {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let child = GTNode("child")
    graph.root.addTraitChild(parent)
    parent.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    var seen: [(style: UserInterfaceStyle, theme: Int)] = []
    child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned parent] (node: GTNode, _: TraitCollection) in
      node.traitOverrides.userInterfaceStyle = .dark
      seen.append(
        (TraitCollection.current.userInterfaceStyle, TraitCollection.current[GTThemeTrait.self])
      )
      parent.traitOverrides[GTThemeTrait.self] = 5
      seen.append(
        (TraitCollection.current.userInterfaceStyle, TraitCollection.current[GTThemeTrait.self])
      )
      #expect(TraitCollection.current == node.traitCollection)
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(seen.map(\.style) == [.dark, .dark])
    #expect(seen.map(\.theme) == [0, 5])
    #expect(TraitCollection.current == TraitCollection())
  }

  @Test(
    "a task a handler creates does not inherit the pass's current; performAsCurrent carries it"
  )
  func taskCreatedInHandlerDoesNotInheritPassCurrent() async {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    var tasks: [Task<(plain: Int, carried: Int), Never>] = []
    node.registerForTraitChanges([GTThemeTrait.self]) { (node: GTNode, _: TraitCollection) in
      let traits = node.traitCollection
      tasks.append(
        Task {
          let plain = TraitCollection.current[GTThemeTrait.self]
          let carried = traits.performAsCurrent { TraitCollection.current[GTThemeTrait.self] }
          return (plain, carried)
        }
      )
    }
    node.traitOverrides[GTThemeTrait.self] = 5
    graph.updateTraitsIfNeeded()
    #expect(tasks.count == 1)
    let seen = await tasks[0].value
    #expect(seen.plain == GTThemeTrait.defaultValue)
    #expect(seen.carried == 5)
  }

  @Test("TraitCollection.current is the node's collection even after an earlier handler changed it")
  func currentAfterEarlierHandlerChangedNode() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    var currentStyles: [UserInterfaceStyle] = []
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      node.traitOverrides.userInterfaceStyle = .dark
    }
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      #expect(node.traitCollection.userInterfaceStyle == .dark)
      currentStyles.append(TraitCollection.current.userInterfaceStyle)
    }

    node.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(currentStyles == [.dark])

  }

  @Test("a pass of another graph run from a handler delivers, then gives current back")
  func passOfAnotherGraphFromHandler() {
    let outer = TraitGraph()
    let inner = TraitGraph()
    let outerNode = GTNode("outer")
    let innerNode = GTNode("inner")
    outer.root.addTraitChild(outerNode)
    inner.root.addTraitChild(innerNode)
    outerNode.traitOverrides.userInterfaceStyle = .dark
    innerNode.traitOverrides.userInterfaceStyle = .light
    outer.updateTraitsIfNeeded()
    inner.updateTraitsIfNeeded()
    let log = GTLog()
    innerNode.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("inner current \(TraitCollection.current.userInterfaceStyle)")
    }
    outerNode.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      innerNode.traitOverrides.horizontalSizeClass = .regular
      inner.updateTraitsIfNeeded()
      log.append("outer current \(TraitCollection.current.userInterfaceStyle)")
    }

    outerNode.traitOverrides.horizontalSizeClass = .compact
    outer.updateTraitsIfNeeded()

    #expect(log.entries == ["inner current light", "outer current dark"])
    #expect(inner.statistics.lastPass.callbacksDelivered == 1)
    #expect(outer.statistics.lastPass.callbacksDelivered == 1)
  }

  @Test("a subtree pass run from another graph's handler delivers: only its graph's pass blocks it")
  func subtreePassOfAnotherGraphFromHandler() {
    let outer = TraitGraph()
    let inner = TraitGraph()
    let outerNode = GTNode("outer")
    let innerNode = GTNode("inner")
    outer.root.addTraitChild(outerNode)
    inner.root.addTraitChild(innerNode)
    let log = GTLog()
    innerNode.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("inner \(node.traitCollection.horizontalSizeClass)")
    }
    outerNode.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      innerNode.traitOverrides.horizontalSizeClass = .regular
      innerNode.updateTraitsIfNeeded()
      log.append("outer done")
    }

    outerNode.traitOverrides.horizontalSizeClass = .compact
    outer.updateTraitsIfNeeded()

    #expect(log.entries == ["inner regular", "outer done"])
    #expect(inner.statistics.lastPass.callbacksDelivered == 1)
    inner.updateTraitsIfNeeded()
    #expect(inner.statistics.lastPass.rounds == 0, "the inner graph was left clean")
  }

  // MARK: - Rounds

  @Test("changes that handlers make are delivered by a second round of the same call")
  func handlerChangesGetAFollowUpRound() {
    let graph = TraitGraph()
    let early = GTNode("early")
    let late = GTNode("late")
    graph.root.gtAdd(early, late)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    early.registerForTraitChanges([GTThemeTrait.self]) {
      (node: GTNode, previous: TraitCollection) in
      log.append(
        "early: \(previous[GTThemeTrait.self]) → \(node.traitCollection[GTThemeTrait.self])"
      )
    }
    late.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("late")
      early.traitOverrides[GTThemeTrait.self] = 7
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["late", "early: 0 → 7"])
    #expect(graph.statistics.lastPass.rounds == 2)
    #expect(graph.statistics.lastPass.callbacksDelivered == 2)
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.rounds == 0)
  }

  @Test("a handler that unregisters the registrations sharing its baseline still reads it")
  func previousSurvivesUnregisteringItsSharers() {
    // Both registrations share one baseline snapshot. The first handler's baseline moves on
    // before it runs; unregistering the second drops the snapshot's last use mid-callback, yet
    // the previous collection the handler holds stays readable. A debug build retains it anyway;
    // an optimized one does not, and there AddressSanitizer reports a use after free without the
    // pass keeping released baselines (`Scripts/sanitize.sh address-release`).
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    node.traitOverrides[GTThemeTrait.self] = 1
    graph.updateTraitsIfNeeded()
    var second: TraitChangeRegistration?
    var seen: [Int] = []
    node.registerForTraitChanges([GTThemeTrait.self]) {
      (node: GTNode, previous: TraitCollection) in
      node.unregisterForTraitChanges(second)
      node.traitOverrides.horizontalSizeClass = .compact
      _ = node.traitCollection
      seen.append(previous[GTThemeTrait.self])
    }
    second = node.registerForTraitChanges([GTThemeTrait.self]) {
      (_: GTNode, _: TraitCollection) in
      seen.append(-1)
    }

    node.traitOverrides[GTThemeTrait.self] = 2
    graph.updateTraitsIfNeeded()

    #expect(seen == [1])
    #expect(graph.statistics.liveRegistrations == 1)
  }

  @Test("siblings sharing a baseline each read it as previous, pass after pass, as it is recycled")
  func sharedBaselineAcrossPasses() {
    // The siblings inherit the root's collection, so all four registrations release the same
    // baseline in each pass: the pass keeps it once, lets the other references go at once, and
    // recycles it for the root's next collection. Every handler must still read it.
    let graph = TraitGraph()
    let nodes = (0..<4).map { GTNode("sibling \($0)") }
    for node in nodes { graph.root.addTraitChild(node) }
    graph.updateTraitsIfNeeded()
    var seen: [Int] = []
    for node in nodes {
      node.registerForTraitChanges([GTThemeTrait.self]) {
        (node: GTNode, previous: TraitCollection) in
        seen.append(previous[GTThemeTrait.self] * 10 + node.traitCollection[GTThemeTrait.self])
      }
    }

    var passes: [[Int]] = []
    for value in 1...5 {
      graph.root.traitOverrides[GTThemeTrait.self] = value
      graph.updateTraitsIfNeeded()
      passes.append(seen)
      seen = []
    }

    #expect(passes == (1...5).map { Array(repeating: ($0 - 1) * 10 + $0, count: 4) })
  }

  @Test("a change check remembered in a pass is not reused at a freed collection's address")
  func changeCheckNotReusedAfterReallocation() {
    // The pass remembers "theme did not change between baseline B and collection C" without
    // retaining C. A handler then frees C and makes a new collection, which the allocator is
    // likely to place at C's address, with a new theme: the reader must hear of it.
    let graph = TraitGraph()
    let holder = GTNode("holder")
    let reader = GTNode("reader")
    let trigger = GTNode("trigger")
    graph.root.gtAdd(holder, trigger)
    holder.addTraitChild(reader)
    holder.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    var themes: [Int] = []
    reader.registerForTraitChanges([GTThemeTrait.self]) { (node: GTNode, _: TraitCollection) in
      themes.append(node.traitCollection[GTThemeTrait.self])
    }
    trigger.registerForTraitChanges([TraitVerticalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      // Free the holder's collection (a fresh one replaces it first), then make another.
      holder.traitOverrides.remove(TraitHorizontalSizeClass.self)
      _ = holder.traitCollection
      holder.traitOverrides.horizontalSizeClass = .regular
      holder.traitOverrides[GTThemeTrait.self] = 7
      _ = holder.traitCollection
    }

    // The theme is written and written back: the reader is visited and finds it unchanged.
    holder.traitOverrides[GTThemeTrait.self] = 5
    holder.traitOverrides.remove(GTThemeTrait.self)
    holder.traitOverrides.horizontalSizeClass = .compact
    graph.root.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(themes == [7])
    #expect(reader.traitCollection[GTThemeTrait.self] == 7)
  }

  @Test("a handler that changes its own trait is called again in the next round, not the same one")
  func selfChangeIsNextRound() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    var previousThemes: [Int] = []
    node.registerForTraitChanges([TraitHorizontalSizeClass.self, GTThemeTrait.self]) {
      (node: GTNode, previous: TraitCollection) in
      previousThemes.append(previous[GTThemeTrait.self])
      node.traitOverrides[GTThemeTrait.self] = 1
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(previousThemes == [0, 0])
    #expect(graph.statistics.lastPass.rounds == 2)
    #expect(node.traitCollection[GTThemeTrait.self] == 1)
  }

  @Test("calling updateTraitsIfNeeded from inside a handler does nothing")
  func nestedUpdateIsNoOp() {
    let graph = TraitGraph()
    let early = GTNode("early")
    let late = GTNode("late")
    graph.root.gtAdd(early, late)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    early.registerForTraitChanges([GTThemeTrait.self]) { (_: GTNode, _: TraitCollection) in
      log.append("early")
    }
    // NB: `unowned`: a handler that kept the graph or `early` would keep its node in a cycle.
    late.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned graph, unowned early] (late: GTNode, _: TraitCollection) in
      log.append("late")
      early.traitOverrides[GTThemeTrait.self] = 1
      graph.updateTraitsIfNeeded()
      early.updateTraitsIfNeeded()
      late.updateTraitsIfNeeded()
      graph.root.updateTraitsIfNeeded()
      log.append("late done")
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["late", "late done", "early"])
    #expect(graph.statistics.lastPass.rounds == 2)
  }

  @Test("a pass whose handlers keep changing what they observe traps instead of spinning")
  func nonConvergingPassTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let graph = TraitGraph()
      let node = TraitNode()
      graph.root.addTraitChild(node)
      node.registerForTraitChanges([GTFlagTrait.self]) { (node: TraitNode, _: TraitCollection) in
        node.traitOverrides[GTFlagTrait.self].toggle()
      }
      node.traitOverrides[GTFlagTrait.self] = true
      graph.updateTraitsIfNeeded()
    }
    #expect(
      gtStandardError(result).contains(
        "Trait updates did not converge after 100 rounds: trait change handlers keep making "
          + "changes that need another round"
      )
    )
  }

  @Test("a subtree pass whose handlers keep changing what they observe traps the same way")
  func nonConvergingSubtreePassTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let graph = TraitGraph()
      let parent = TraitNode()
      let node = TraitNode()
      graph.root.addTraitChild(parent)
      parent.addTraitChild(node)
      node.registerForTraitChanges([GTFlagTrait.self]) { (node: TraitNode, _: TraitCollection) in
        node.traitOverrides[GTFlagTrait.self].toggle()
      }
      node.traitOverrides[GTFlagTrait.self] = true
      parent.updateTraitsIfNeeded()
    }
    #expect(
      gtStandardError(result).contains("Trait updates did not converge after 100 rounds")
    )
  }

  @Test(
    "a no-op subtree pass after the pending node left lets the next change call onNeedsUpdate (R5)"
  )
  func noOpSubtreePassLeavesGraphClean() {
    let graph = TraitGraph()
    let leaving = TraitNode()
    let other = TraitNode()
    graph.root.addTraitChild(leaving)
    graph.root.addTraitChild(other)
    leaving.registerForTraitChanges([GTThemeTrait.self]) { (_: TraitNode, _: TraitCollection) in }
    other.registerForTraitChanges([GTThemeTrait.self]) { (_: TraitNode, _: TraitCollection) in }
    graph.updateTraitsIfNeeded()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }

    leaving.traitOverrides[GTThemeTrait.self] = 1
    #expect(requests == 1)
    // The only pending change leaves the graph with its node.
    leaving.removeFromTraitParent()
    // A subtree pass: nothing is pending for it, and nothing anywhere in the graph.
    other.updateTraitsIfNeeded()

    graph.root.traitOverrides[GTThemeTrait.self] = 2
    // The graph went clean with the subtree pass and dirty again now.
    #expect(requests == 2)
    withExtendedLifetime(leaving) {}
  }

  @Test("a pass that needs exactly 99 follow-up rounds still converges")
  func longChainConverges() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    node.registerForTraitChanges([GTThemeTrait.self]) { (node: GTNode, _: TraitCollection) in
      let theme = node.traitCollection[GTThemeTrait.self]
      if theme < 100 { node.traitOverrides[GTThemeTrait.self] = theme + 1 }
    }

    node.traitOverrides[GTThemeTrait.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(node.traitCollection[GTThemeTrait.self] == 100)
    #expect(graph.statistics.lastPass.rounds == 100)
  }

  // MARK: - Scheduling

  @Test("onNeedsUpdate is called once each time the graph goes from clean to dirty")
  func onNeedsUpdateOncePerTransition() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    node.registerForTraitChanges([TraitHorizontalSizeClass.self, TraitVerticalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
    }
    graph.updateTraitsIfNeeded()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(requests == 1)
    node.traitOverrides.verticalSizeClass = .regular
    graph.root.traitOverrides.horizontalSizeClass = .regular
    #expect(requests == 1)

    graph.updateTraitsIfNeeded()
    #expect(requests == 1)
    node.traitOverrides.verticalSizeClass = .regular
    #expect(requests == 1)
    node.traitOverrides.verticalSizeClass = .compact
    #expect(requests == 2)
    graph.updateTraitsIfNeeded()

    let newcomer = GTNode("newcomer")
    newcomer.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
    }
    graph.root.addTraitChild(newcomer)
    #expect(requests == 3)
    graph.updateTraitsIfNeeded()
    #expect(requests == 3)
  }

  @Test("a host that runs a pass from onNeedsUpdate delivers each change at once")
  func passFromOnNeedsUpdate() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    var previous: [UserInterfaceSizeClass] = []
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, previousTraitCollection: TraitCollection) in
      previous.append(previousTraitCollection.horizontalSizeClass)
    }
    graph.onNeedsUpdate = { graph.updateTraitsIfNeeded() }

    node.traitOverrides.horizontalSizeClass = .compact
    #expect(previous == [.unspecified])
    node.traitOverrides.horizontalSizeClass = .regular
    #expect(previous == [.unspecified, .compact])
    graph.onNeedsUpdate = nil
  }

  // MARK: - Subtree passes

  @Test("a subtree pass delivers within the subtree only and leaves the rest for the graph pass")
  func subtreePass() {
    let graph = TraitGraph()
    let a = GTNode("a")
    let a1 = GTNode("a1")
    let b = GTNode("b")
    graph.root.gtAdd(a, b)
    a.addTraitChild(a1)
    graph.updateTraitsIfNeeded()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }
    let log = GTLog()
    for node in [a, a1, b] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        log.append(node.name)
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    a.updateTraitsIfNeeded()
    #expect(log.entries == ["a", "a1"])
    #expect(requests == 1)

    // The graph is still dirty (b waits), so this change requests no second pass.
    a1.traitOverrides.horizontalSizeClass = .regular
    #expect(requests == 1)
    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["a", "a1", "a1", "b"])
  }

  @Test("a subtree pass that delivers everything pending leaves the graph clean")
  func subtreePassCanCleanGraph() {
    let graph = TraitGraph()
    let a = GTNode("a")
    let b = GTNode("b")
    graph.root.gtAdd(a, b)
    graph.updateTraitsIfNeeded()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }
    var calls = 0
    for node in [a, b] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        calls += 1
      }
    }

    a.traitOverrides.horizontalSizeClass = .compact
    #expect(requests == 1)
    a.updateTraitsIfNeeded()
    #expect(calls == 1)
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.rounds == 0)
    b.traitOverrides.horizontalSizeClass = .compact
    #expect(requests == 2)
  }

  @Test("a subtree pass that delivers a change above it to its only observers cleans the graph")
  func subtreePassDeliversChangeAboveAndCleans() {
    let graph = TraitGraph()
    let a = GTNode("a")
    let b = GTNode("b")
    graph.root.gtAdd(a, b)
    var calls = 0
    a.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in calls += 1
    }
    b.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: GTNode, _: TraitCollection) in calls += 100
    }
    graph.updateTraitsIfNeeded()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(requests == 1)
    a.updateTraitsIfNeeded()
    #expect(calls == 1)
    // Clean again: the next change asks for a pass.
    a.traitOverrides.horizontalSizeClass = .regular
    #expect(requests == 2)
    graph.updateTraitsIfNeeded()
    #expect(calls == 2)

    // And a pass of the graph then finds nothing to do.
    graph.root.traitOverrides.horizontalSizeClass = .regular
    a.traitOverrides.remove(TraitHorizontalSizeClass.self)
    a.updateTraitsIfNeeded()
    #expect(calls == 2)
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.rounds == 0)
    #expect(requests == 3)
  }

  @Test("subtree passes of siblings that together deliver a change above them clean the graph")
  func siblingSubtreePassesDeliverChangeAboveAndClean() {
    let graph = TraitGraph()
    let (a, b, c) = (GTNode("a"), GTNode("b"), GTNode("c"))
    graph.root.gtAdd(a, b, c)
    var calls: [String] = []
    for node in [a, b] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in calls.append(node.name)
      }
    }
    // `c` overrides the trait: the change above never reaches it.
    c.traitOverrides.horizontalSizeClass = .regular
    c.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in calls.append(node.name)
    }
    graph.updateTraitsIfNeeded()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(requests == 1)
    a.updateTraitsIfNeeded()
    b.updateTraitsIfNeeded()
    #expect(calls == ["a", "b"])
    // Nothing is owed anywhere: a pass of the graph finds nothing to do…
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.rounds == 0)
    #expect(graph.statistics.lastPass.nodesVisited == 0)
    // …and the next change asks for a pass again.
    graph.root.traitOverrides.horizontalSizeClass = .regular
    #expect(requests == 2)
    graph.updateTraitsIfNeeded()
    #expect(calls == ["a", "b", "a", "b"])
  }

  @Test(
    "a change made above a subtree pass as it lets go of a node reaches the subtree, nested pass or not",
    arguments: [false, true]
  )
  func changeAboveMadeAsSubtreePassEndsReachesSubtree(deinitializerRunsPass: Bool) {
    let graph = TraitGraph()
    let (a, s, b) = (GTNode("a"), GTNode("s"), GTNode("b"))
    graph.root.gtAdd(a, b)
    a.addTraitChild(s)
    let root = graph.root
    // `b` shields the theme: its own subtree pass delivers only its other change.
    b.traitOverrides[GTThemeTrait.self] = 9
    do {
      // A node whose removal lets go of a value whose deinitializer changes the root.
      let doomed = GTNode("doomed")
      doomed.traitOverrides[GTDeinitPayloadTrait.self] = GTDeinitPayload { [unowned b] in
        root.traitOverrides[GTThemeTrait.self] = 5
        b.traitOverrides[GTOpaqueTrait.self] = GTOpaqueValue(label: "x")
        if deinitializerRunsPass { b.updateTraitsIfNeeded() }
      }
      s.addTraitChild(doomed)
    }
    var themeCalls = 0
    s.registerForTraitChanges([GTThemeTrait.self]) { (_: GTNode, _: TraitCollection) in
      themeCalls += 1
    }
    s.registerForTraitChanges([GTFlagTrait.self]) { (node: GTNode, _: TraitCollection) in
      for child in node.traitChildren { child.removeFromTraitParent() }
    }
    var opaqueCalls = 0
    b.registerForTraitChanges([GTOpaqueTrait.self]) { (_: GTNode, _: TraitCollection) in
      opaqueCalls += 1
    }
    graph.updateTraitsIfNeeded()

    root.traitOverrides[GTFlagTrait.self] = true
    s.updateTraitsIfNeeded()
    #expect(s.traitChildren.isEmpty)
    #expect(s.traitCollection[GTThemeTrait.self] == 5)
    #expect(opaqueCalls == (deinitializerRunsPass ? 1 : 0))
    graph.updateTraitsIfNeeded()
    #expect(themeCalls == 1)
    #expect(opaqueCalls == 1)
  }

  @Test("a change above a subtree pass still reaches the root's and a deeper sibling's observers")
  func changeAboveSubtreePassReachesOtherObservers() {
    let graph = TraitGraph()
    let (a, b, deep) = (GTNode("a"), GTNode("b"), GTNode("deep"))
    graph.root.gtAdd(a, b)
    b.addTraitChild(deep)
    var calls: [String] = []
    for node in [a, deep] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in calls.append(node.name)
      }
    }
    graph.root.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: TraitNode, _: TraitCollection) in calls.append("root")
    }
    graph.updateTraitsIfNeeded()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    a.updateTraitsIfNeeded()
    #expect(calls == ["a"])
    // Still owed to the root and to `deep`: the graph stays dirty, and its pass delivers there
    // only.
    b.traitOverrides.userInterfaceStyle = .dark
    #expect(requests == 1)
    graph.updateTraitsIfNeeded()
    #expect(calls == ["a", "root", "deep"])
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.rounds == 0)
  }

  @Test("a subtree pass of two rounds that delivered a change above it cleans the graph too")
  func twoRoundSubtreePassCleans() {
    let graph = TraitGraph()
    let (a, b, c) = (GTNode("a"), GTNode("b"), GTNode("c"))
    graph.root.gtAdd(a, b)
    a.addTraitChild(c)
    var calls = 0
    a.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned c] (_: GTNode, _: TraitCollection) in
      calls += 1
      c.traitOverrides.userInterfaceStyle = .dark
    }
    c.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: GTNode, _: TraitCollection) in calls += 100
    }
    b.registerForTraitChanges([TraitLegibilityWeight.self]) {
      (_: GTNode, _: TraitCollection) in calls += 10_000
    }
    graph.updateTraitsIfNeeded()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    a.updateTraitsIfNeeded()
    #expect(calls == 101)
    #expect(graph.statistics.lastPass.rounds == 2)

    b.traitOverrides.legibilityWeight = .bold
    #expect(requests == 2)
  }

  @Test("a subtree pass leaves a change above it pending for the other observers below an ancestor")
  func subtreePassKeepsChangeAboveForOthers() {
    let graph = TraitGraph()
    let middle = GTNode("middle")
    let start = GTNode("start")
    let cousin = GTNode("cousin")
    let shielded = GTNode("shielded")
    graph.root.gtAdd(middle, shielded)
    middle.gtAdd(start, cousin)
    shielded.traitOverrides.horizontalSizeClass = .regular
    var calls: [String] = []
    for node in [start, cousin, shielded] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in calls.append(node.name)
      }
    }
    graph.updateTraitsIfNeeded()
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    start.updateTraitsIfNeeded()
    #expect(calls == ["start"])
    // The cousin still waits for the change; the shielded node, which overrides it, does not.
    graph.updateTraitsIfNeeded()
    #expect(calls == ["start", "cousin"])
    #expect(requests == 1)
  }

  @Test(
    "a subtree pass whose handler moves or detaches its start leaves the graph clean",
    arguments: [GTSubtreeStartFate.detached, .movedInGraph, .movedToOtherGraph, .parentDetached]
  )
  func subtreePassCleansAfterItsStartLeaves(fate: GTSubtreeStartFate) {
    let graph = TraitGraph()
    let other = TraitGraph()
    let grandparent = GTNode("grandparent")
    let parent = GTNode("parent")
    let start = GTNode("start")
    let elsewhere = GTNode("elsewhere")
    graph.root.gtAdd(grandparent, elsewhere)
    grandparent.gtAdd(parent)
    parent.gtAdd(start)
    var requests = 0
    graph.onNeedsUpdate = { requests += 1 }
    var calls = 0
    start.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned elsewhere, unowned parent, unowned other] (start: GTNode, _: TraitCollection) in
      calls += 1
      switch fate {
      case .detached: start.removeFromTraitParent()
      case .movedInGraph: elsewhere.addTraitChild(start)
      case .movedToOtherGraph: other.root.addTraitChild(start)
      case .parentDetached: parent.removeFromTraitParent()
      }
    }
    elsewhere.registerForTraitChanges([TraitVerticalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      calls += 1
    }

    start.traitOverrides.horizontalSizeClass = .compact
    #expect(requests == 1)
    start.updateTraitsIfNeeded()
    #expect(calls == 1)

    // Nothing waits: the graph is clean, so the next change asks for a pass again.
    elsewhere.traitOverrides.verticalSizeClass = .compact
    #expect(requests == 2)
    graph.updateTraitsIfNeeded()
    #expect(calls == 2)
    #expect(graph.statistics.lastPass.rounds == 1)
  }

  @Test("a subtree pass below a changed ancestor delivers the ancestor's change")
  func subtreePassSeesAncestorChanges() {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let child = GTNode("child")
    graph.root.addTraitChild(parent)
    parent.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    var previous: [UserInterfaceSizeClass] = []
    child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, previousTraitCollection: TraitCollection) in
      previous.append(previousTraitCollection.horizontalSizeClass)
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    child.updateTraitsIfNeeded()
    #expect(previous == [.unspecified])
    graph.updateTraitsIfNeeded()
    #expect(previous == [.unspecified])
  }

  // MARK: - Registrations made during a pass

  @Test("a registration made by a handler is not told about changes made before it")
  func registrationDuringPass() {
    let graph = TraitGraph()
    let early = GTNode("early")
    let late = GTNode("late")
    graph.root.gtAdd(early, late)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    early.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (early: GTNode, _: TraitCollection) in
      log.append("early")
      for node in [early, late] {
        node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
          (node: GTNode, _: TraitCollection) in
          log.append("new on \(node.name)")
        }
      }
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["early"])

    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["early", "early", "new on early", "new on late"])
  }

  // MARK: - Tree changes during a round (R5)

  /// A tree for the tests below: the root's children A, X and C; under A, P; under P, N.
  ///
  /// N observes the contrast, which C overrides; C observes the style.
  private static func passedSubtree(
    _ log: GTLog
  ) -> (graph: TraitGraph, a: GTNode, x: GTNode, c: GTNode, n: GTNode) {
    let graph = TraitGraph()
    let (a, x, c, p, n) = (GTNode("A"), GTNode("X"), GTNode("C"), GTNode("P"), GTNode("N"))
    graph.root.gtAdd(a, x, c)
    a.gtAdd(p)
    p.gtAdd(n)
    c.traitOverrides.accessibilityContrast = .high
    graph.updateTraitsIfNeeded()
    n.registerForTraitChanges([TraitAccessibilityContrast.self]) {
      [unowned graph] (node: GTNode, _: TraitCollection) in
      log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
    }
    c.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned graph] (node: GTNode, _: TraitCollection) in
      log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
    }
    return (graph, a, x, c, n)
  }

  @Test("a node deep in a subtree the round passed waits a round when a handler moves it ahead")
  func nodeInPassedSubtreeMovedAhead() {
    // The round passes A's subtree (nobody there observes the style). X's handler moves N, two
    // levels down in it, under C, which the round has not reached: N went past, so it hears of
    // C's contrast in round 2, after C.
    let log = GTLog()
    let (graph, _, x, c, n) = Self.passedSubtree(log)
    x.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned graph] (node: GTNode, _: TraitCollection) in
      log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
      c.addTraitChild(n)
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["X@1", "C@1", "N@2"])
  }

  @Test("a node a handler moves ahead of the round from a subtree it has not reached hears at once")
  func nodeAheadMovedAhead() {
    // X's handler moves N from under C, which the round has not reached, to under C's new child
    // D: N never went past, so round 1 calls it, after C.
    let log = GTLog()
    let graph = TraitGraph()
    let (x, c, d, n) = (GTNode("X"), GTNode("C"), GTNode("D"), GTNode("N"))
    graph.root.gtAdd(x, c)
    c.gtAdd(n)
    graph.updateTraitsIfNeeded()
    for node in [c, n] {
      node.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        [unowned graph] (node: GTNode, _: TraitCollection) in
        log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
      }
    }
    x.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned graph] (node: GTNode, _: TraitCollection) in
      log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
      c.addTraitChild(d)
      d.addTraitChild(n)
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["X@1", "C@1", "N@1"])
  }

  @Test("children a handler gives the node it is called for are visited in the same round")
  func childrenOfTheNodeBeingCalled() {
    // X's handler moves N, which the round passed under A, under X itself: the round has not
    // gone through X's children yet, but N went past, so N waits for round 2. M, new, is
    // visited in round 1.
    let log = GTLog()
    let (graph, _, x, _, n) = Self.passedSubtree(log)
    let m = GTNode("M")
    m.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned graph] (node: GTNode, _: TraitCollection) in
      log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
    }
    n.traitOverrides.userInterfaceStyle = .light
    x.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned graph] (node: GTNode, _: TraitCollection) in
      log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
      node.addTraitChild(m)
      node.addTraitChild(n)
      node.traitOverrides.accessibilityContrast = .high
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["X@1", "M@1", "C@1", "N@2"])
  }

  @Test("a node the round went past waits a round when it comes back from another graph's pass")
  func nodeBackFromAnotherGraphsPass() {
    // Found by review. M's handler sends N, which round 1 called, through graph B's pass, whose
    // visit marks N with B's round, and back under Z: N is still one the round went past, so
    // its call for coming back waits for round 2, after Z.
    let log = GTLog()
    let a = TraitGraph()
    let b = TraitGraph(baseTraits: TraitCollection { $0.horizontalSizeClass = .regular })
    let (n, m, z) = (GTNode("N"), GTNode("M"), GTNode("Z"))
    a.root.gtAdd(n, m, z)
    a.updateTraitsIfNeeded()
    var sent = false
    for node in [n, m, z] {
      // NB: unowned: a node's handler that held a node or graph of these trees would keep it.
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned a, unowned b, unowned n, unowned m, unowned z]
        (node: GTNode, previous: TraitCollection) in
        log.append(
          "\(node.name) \(previous.horizontalSizeClass)→\(node.traitCollection.horizontalSizeClass)"
            + "@\(a.statistics.lastPass.rounds)"
        )
        guard node === m, !sent else { return }
        sent = true
        b.root.addTraitChild(n)
        b.updateTraitsIfNeeded()
        z.addTraitChild(n)
      }
    }

    a.root.traitOverrides.horizontalSizeClass = .compact
    a.updateTraitsIfNeeded()

    #expect(
      log.entries == [
        "N unspecified→compact@1", "M unspecified→compact@1", "N compact→regular@1",
        "Z unspecified→compact@1", "N regular→compact@2",
      ]
    )
  }

  @Test("a node a handler adds behind the round and then moves ahead of it hears at once")
  func nodeAddedBehindThenMovedAhead() {
    // Found by review. X's handler adds N under P, which round 1 has called, then moves it
    // under C, which the round has not reached: the round never went past N, so it calls N
    // after C.
    let log = GTLog()
    let graph = TraitGraph()
    let (p, x, c, n) = (GTNode("P"), GTNode("X"), GTNode("C"), GTNode("N"))
    graph.root.gtAdd(p, x, c)
    graph.updateTraitsIfNeeded()
    for node in [p, x, c, n] {
      node.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        [unowned graph, unowned p, unowned x, unowned c, unowned n] (
          node: GTNode,
          _: TraitCollection
        )
        in
        log.append("\(node.name)@\(graph.statistics.lastPass.rounds)")
        guard node === x else { return }
        p.addTraitChild(n)
        c.addTraitChild(n)
      }
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["P@1", "X@1", "C@1", "N@1"])
  }

  @Test("a node a handler detaches while the pass calls it hears of its own change once back")
  func nodeDetachedDuringItsVisitHearsLater() {
    // Found by the differential test. R1's handler detaches P, N's parent, while the pass calls
    // N for N's own style: R2 hears of nothing in that pass (R10), and of the style once P is
    // back. The visit had cleared N's pending style, and N's override hid it from the change
    // that attaching P again marks.
    let log = GTLog()
    let graph = TraitGraph()
    let (p, n) = (GTNode("P"), GTNode("N"))
    graph.root.gtAdd(p)
    p.gtAdd(n)
    graph.updateTraitsIfNeeded()
    for name in ["R1", "R2"] {
      n.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        [unowned p] (node: GTNode, previous: TraitCollection) in
        log.append(
          "\(name) \(previous.userInterfaceStyle)→\(node.traitCollection.userInterfaceStyle)"
        )
        if name == "R1" { p.removeFromTraitParent() }
      }
    }
    n.traitOverrides.userInterfaceStyle = .dark

    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["R1 unspecified→dark"])
    graph.root.addTraitChild(p)
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["R1 unspecified→dark", "R2 unspecified→dark"])
  }

  @Test("a child of a node a handler detaches during its visit hears of the change once back")
  func childOfNodeDetachedDuringItsVisitHearsLater() {
    // Found by the differential test. C's handler detaches P, C's parent, while the pass calls C
    // for C's own style: D, below C, hears of nothing in that pass (R10), and of the style once
    // P is back. The walk skipped D, out of the graph, and what reached it was lost: C's
    // override hid it from the change that attaching P again marks.
    let log = GTLog()
    let graph = TraitGraph()
    let (p, c, d) = (GTNode("P"), GTNode("C"), GTNode("D"))
    graph.root.gtAdd(p)
    p.gtAdd(c)
    c.gtAdd(d)
    graph.updateTraitsIfNeeded()
    for node in [c, d] {
      node.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
        [unowned p] (node: GTNode, previous: TraitCollection) in
        log.append(
          "\(node.name) \(previous.userInterfaceStyle)→\(node.traitCollection.userInterfaceStyle)"
        )
        if node.name == "C" { p.removeFromTraitParent() }
      }
    }
    c.traitOverrides.userInterfaceStyle = .dark

    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["C unspecified→dark"])
    graph.root.addTraitChild(p)
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["C unspecified→dark", "D unspecified→dark"])
  }

  @Test("a node the round passed with its parent waits a round when a handler separates them")
  func nodeSeparatedFromItsPassedParent() {
    // Found by review. Round 1 passes N's subtree and calls L, whose handler detaches N, then D
    // from N, and adds D under L: D went past with N, so it hears of L's size class in round 2.
    let log = GTLog()
    let graph = TraitGraph()
    let (n, d, l) = (GTNode("N"), GTNode("D"), GTNode("L"))
    graph.root.gtAdd(n, l)
    n.gtAdd(d)
    l.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    d.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      [unowned graph] (_: GTNode, _: TraitCollection) in
      log.append("D@\(graph.statistics.lastPass.rounds)")
    }
    l.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned graph, unowned n, unowned d] (node: GTNode, _: TraitCollection) in
      log.append("L@\(graph.statistics.lastPass.rounds)")
      n.removeFromTraitParent()
      d.removeFromTraitParent()
      node.addTraitChild(d)
    }

    l.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["L@1", "D@2"])
  }

  @Test("a subtree pass's start hears of a change above it made then brought ahead of the round")
  func changeAboveStartBroughtAheadOfTheRound() {
    // Found by the tracking differential test. In a subtree pass from S, C's first call moves S
    // under P and changes C's style, so that round 2 calls C again, after S. C's second call
    // changes P's contrast, which S observes, then moves C out of S and P under C, ahead of the
    // round: round 2 reaches P and goes past S, which it visited already. S hears of the
    // contrast in round 3.
    let log = GTLog()
    let graph = TraitGraph()
    let (s, c, p) = (GTNode("S"), GTNode("C"), GTNode("P"))
    graph.root.gtAdd(s, p)
    s.gtAdd(c)
    graph.updateTraitsIfNeeded()
    s.registerForTraitChanges([TraitAccessibilityContrast.self]) {
      [unowned graph] (node: GTNode, _: TraitCollection) in
      log.append(
        "S \(node.traitCollection.accessibilityContrast)@\(graph.statistics.lastPass.rounds)"
      )
    }
    c.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned graph, unowned s, unowned p] (node: GTNode, _: TraitCollection) in
      log.append("C \(node.traitCollection.userInterfaceStyle)@\(graph.statistics.lastPass.rounds)")
      if node.traitCollection.userInterfaceStyle == .dark {
        p.addTraitChild(s)
        node.traitOverrides.userInterfaceStyle = .light
      } else {
        p.traitOverrides.accessibilityContrast = .high
        graph.root.addTraitChild(node)
        node.addTraitChild(p)
      }
    }

    s.traitOverrides.userInterfaceStyle = .dark
    s.updateTraitsIfNeeded()
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["C dark@1", "C light@2", "S high@3"])
  }

  @Test("a node a handler moves to another graph keeps what is observed below it since")
  func frameMovedToOtherGraphKeepsWhatIsObservedSince() {
    // Found by the tracking differential test. Graph A's pass calls N, below M and P. N's
    // handler cancels itself, moves P under Q, in graph B, and registers on M for the contrast:
    // the round, going back up through M and P, must not narrow their summaries to what it saw
    // there, or B's passes never reach M.
    let log = GTLog()
    let a = TraitGraph()
    let b = TraitGraph()
    let (p, m, n, q) = (GTNode("P"), GTNode("M"), GTNode("N"), GTNode("Q"))
    a.root.gtAdd(p)
    p.gtAdd(m)
    m.gtAdd(n)
    b.root.gtAdd(q)
    a.updateTraitsIfNeeded()
    b.updateTraitsIfNeeded()
    var token: TraitChangeRegistration?
    token = n.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned p, unowned m, unowned q] (node: GTNode, _: TraitCollection) in
      log.append("N")
      node.unregisterForTraitChanges(token)
      q.addTraitChild(p)
      m.registerForTraitChanges([TraitAccessibilityContrast.self]) {
        (node: GTNode, _: TraitCollection) in
        log.append("M \(node.traitCollection.accessibilityContrast)")
      }
    }

    a.root.traitOverrides.userInterfaceStyle = .dark
    a.updateTraitsIfNeeded()
    b.updateTraitsIfNeeded()
    b.root.traitOverrides.accessibilityContrast = .high
    b.updateTraitsIfNeeded()

    #expect(log.entries == ["N", "M high"])
  }

  @Test("a node that joined behind the round stays unvisited through another graph's pass")
  func nodeJoinedBehindThroughAnotherGraphsPass() {
    // Found by review. L's handler adds J under N, which round 1 called, sends N through graph
    // B's pass, which calls J there, brings N back, and moves J under L, ahead of the walk: the
    // round never went past J, so it calls J in round 1.
    let log = GTLog()
    let graph = TraitGraph()
    let other = TraitGraph(baseTraits: TraitCollection { $0.horizontalSizeClass = .compact })
    let (n, j, l) = (GTNode("N"), GTNode("J"), GTNode("L"))
    graph.root.gtAdd(n, l)
    l.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    for node in [n, j] {
      node.registerForTraitChanges([TraitUserInterfaceStyle.self, TraitHorizontalSizeClass.self]) {
        [unowned graph] (node: GTNode, _: TraitCollection) in
        log.append(
          "\(node.name) \(node.traitCollection.horizontalSizeClass)@\(graph.statistics.lastPass.rounds)"
        )
      }
    }
    l.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      [unowned graph, unowned other, unowned n, unowned j] (node: GTNode, _: TraitCollection) in
      log.append("L@\(graph.statistics.lastPass.rounds)")
      n.addTraitChild(j)
      other.root.addTraitChild(n)
      other.updateTraitsIfNeeded()
      graph.root.addTraitChild(n)
      node.addTraitChild(j)
    }

    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(log.entries.contains("J regular@1"))
    #expect(!log.entries.contains("J regular@2"))
  }
}

/// What a handler of a subtree pass's start does to the start.
enum GTSubtreeStartFate: Sendable, CustomTestStringConvertible {
  case detached
  case movedInGraph
  case movedToOtherGraph
  case parentDetached

  var testDescription: String {
    switch self {
    case .detached: "the start detached"
    case .movedInGraph: "the start moved within its graph"
    case .movedToOtherGraph: "the start moved to another graph"
    case .parentDetached: "the start's parent detached"
    }
  }
}
