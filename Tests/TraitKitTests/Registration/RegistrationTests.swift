import Testing
import TraitKit

@Suite("Registration")
struct RegistrationTests {
  // MARK: - No initial call (R7)

  @Test("registering calls nothing, in any of the registration forms")
  func noInitialCall() {
    let graph = TraitGraph()
    let node = GTLayoutNode()
    graph.root.addTraitChild(node)
    node.traitOverrides.horizontalSizeClass = .compact
    let target = GTTarget()
    var handlerCalls = 0

    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTLayoutNode, _: TraitCollection) in
      handlerCalls += 1
    }
    node.registerForTraitChanges(
      [TraitHorizontalSizeClass.self],
      target: target,
      action: GTTarget.refreshEverything
    )
    node.registerForTraitChanges(
      [TraitHorizontalSizeClass.self],
      action: GTLayoutNode.setNeedsLayout
    )
    graph.updateTraitsIfNeeded()
    graph.updateTraitsIfNeeded()

    #expect(handlerCalls == 0)
    #expect(target.plainCalls == 0)
    #expect(node.layoutRequests == 0)
    #expect(graph.statistics.lastPass.callbacksDelivered == 0)
  }

  @Test("a registration hears of no change made before it, even one not yet delivered")
  func pendingChangesBeforeRegistrationAreNotDelivered() {
    let (graph, node) = makeGraphWithChild()
    graph.root.traitOverrides.horizontalSizeClass = .compact
    node.traitOverrides[GTThemeTrait.self] = 2
    var calls = 0

    node.registerForTraitChanges([TraitHorizontalSizeClass.self, GTThemeTrait.self]) {
      (_: GTNode, _: TraitCollection) in
      calls += 1
    }
    graph.updateTraitsIfNeeded()
    #expect(calls == 0)

    node.traitOverrides[GTThemeTrait.self] = 3
    graph.updateTraitsIfNeeded()
    #expect(calls == 1)
  }

  // MARK: - Which traits (R8)

  @Test("a handler receives the observed object and is called only for its own traits")
  func onlyRegisteredTraits() {
    let (graph, node) = makeGraphWithChild()
    // NB: identities, not nodes: a handler that stored its node would keep it in a cycle.
    var observed: [ObjectIdentifier] = []
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      observed.append(ObjectIdentifier(node))
    }
    let otherChanges: [(inout TraitOverrides) -> Void] = [
      { $0.verticalSizeClass = .compact },
      { $0.userInterfaceStyle = .dark },
      { $0.userInterfaceIdiom = .phone },
      { $0.displayScale = 2 },
      { $0.layoutDirection = .rightToLeft },
      { $0.preferredContentSizeCategory = .large },
      { $0[GTThemeTrait.self] = 5 },
      { $0[GTFlagTrait.self] = true },
    ]

    for change in otherChanges {
      change(&graph.root.traitOverrides)
      graph.updateTraitsIfNeeded()
    }
    #expect(observed.isEmpty)

    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    #expect(observed.count == 1)
    #expect(observed.first == ObjectIdentifier(node))
  }

  @Test("registering for an empty list of traits traps")
  func emptyTraitListTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      let traits: [any TraitDefinition.Type] = []
      node.registerForTraitChanges(traits) { (_: TraitNode, _: TraitCollection) in }
    }
    #expect(gtStandardError(result).contains("Must pass one or more traits to register for"))
  }

  @Test("registering an empty list of traits with an action and no target traps too")
  func emptyTraitListWithActionTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = GTLayoutNode()
      node.registerForTraitChanges([], action: GTLayoutNode.setNeedsLayout)
    }
    #expect(gtStandardError(result).contains("Must pass one or more traits to register for"))
  }

  @Test("registering an empty list of traits with a target and an action of no arguments traps")
  func emptyTraitListWithTargetTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = GTNode("node")
      let target = GTTarget()
      node.registerForTraitChanges([], target: target, action: GTTarget.refreshEverything)
    }
    #expect(gtStandardError(result).contains("Must pass one or more traits to register for"))
  }

  @Test("registering an empty list of traits with a target and an action of one argument traps")
  func emptyTraitListWithTargetOneArgumentTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = GTNode("node")
      let target = GTTarget()
      node.registerForTraitChanges([], target: target, action: GTTarget.refresh(node:))
    }
    #expect(gtStandardError(result).contains("Must pass one or more traits to register for"))
  }

  @Test(
    "registering an empty list of traits with a target and an action of two arguments traps"
  )
  func emptyTraitListWithTargetTwoArgumentsTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = GTNode("node")
      let target = GTTarget()
      node.registerForTraitChanges(
        [],
        target: target,
        action: GTTarget.refresh(node:previousTraitCollection:)
      )
    }
    #expect(gtStandardError(result).contains("Must pass one or more traits to register for"))
  }

  @Test("registering a handler whose first parameter cannot take the observed node traps")
  func mismatchedObservedTypeTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTLayoutNode, _: TraitCollection) in
      }
    }
    let standardError = gtStandardError(result)
    #expect(standardError.contains("A trait change handler for GTLayoutNode"))
    #expect(standardError.contains("its first parameter must accept the observed object"))
  }

  @Test("registering an action of one argument that cannot take the observed node traps")
  func mismatchedObservedTypeOneArgumentTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      let target = GTTarget()
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: target,
        action: GTTarget.refresh(node:)
      )
    }
    let standardError = gtStandardError(result)
    #expect(standardError.contains("A trait change handler for GTNode"))
    #expect(standardError.contains("its first parameter must accept the observed object"))
  }

  @Test("registering an action of two arguments whose first cannot take the observed node traps")
  func mismatchedObservedTypeTwoArgumentsTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      let target = GTTarget()
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: target,
        action: GTTarget.refresh(node:previousTraitCollection:)
      )
    }
    let standardError = gtStandardError(result)
    #expect(standardError.contains("A trait change handler for GTNode"))
    #expect(standardError.contains("its first parameter must accept the observed object"))
  }

  @Test("a trait listed twice in one registration counts once")
  func duplicateTraitsCountOnce() async {
    let (graph, node) = makeGraphWithChild()

    await confirmation(expectedCount: 2) { called in
      node.registerForTraitChanges([
        TraitHorizontalSizeClass.self, TraitHorizontalSizeClass.self, GTThemeTrait.self,
        TraitHorizontalSizeClass.self, GTThemeTrait.self,
      ]) { (_: GTNode, _: TraitCollection) in
        called()
      }
      #expect(graph.statistics.liveRegistrations == 1)
      node.traitOverrides.horizontalSizeClass = .compact
      node.traitOverrides[GTThemeTrait.self] = 1
      graph.updateTraitsIfNeeded()
      node.traitOverrides.horizontalSizeClass = .regular
      graph.updateTraitsIfNeeded()
    }
  }

  // MARK: - Unregistering

  @Test("unregistering stops one registration, and unregistering it again changes nothing")
  func unregisterIsIdempotent() {
    let (graph, node) = makeGraphWithChild()
    let log = GTLog()
    let first = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      log.append("first")
    }
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      log.append("second")
    }
    #expect(graph.statistics.liveRegistrations == 2)

    node.unregisterForTraitChanges(first)
    #expect(graph.statistics.liveRegistrations == 1)
    node.unregisterForTraitChanges(first)
    #expect(graph.statistics.liveRegistrations == 1)
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    node.unregisterForTraitChanges(first)

    #expect(log.entries == ["second"])
    #expect(graph.statistics.liveRegistrations == 1)
  }

  @Test("unregistering nil does nothing")
  func unregisterNil() {
    let (graph, node) = makeGraphWithChild()
    var calls = 0
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      calls += 1
    }
    let none: TraitChangeRegistration? = nil

    node.unregisterForTraitChanges(none)
    node.unregisterForTraitChanges(nil)
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(calls == 1)
    #expect(graph.statistics.liveRegistrations == 1)
  }

  @Test("unregistering with another node's token does nothing to either node")
  func unregisterForeignToken() {
    let (graph, node) = makeGraphWithChild()
    let other = GTNode("other")
    graph.root.addTraitChild(other)
    let log = GTLog()
    let nodeToken = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append(node.name)
    }
    other.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append(node.name)
    }

    other.unregisterForTraitChanges(nodeToken)
    graph.root.unregisterForTraitChanges(nodeToken)
    #expect(graph.statistics.liveRegistrations == 2)
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["node", "other"])
  }

  @Test("a registration unregistered during a pass, before its turn, is not called")
  func unregisteredBeforeItsTurn() {
    let (graph, node) = makeGraphWithChild()
    let child = GTNode("child")
    node.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    let log = GTLog()
    var sameNodeToken: TraitChangeRegistration?
    var childToken: TraitChangeRegistration?
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      log.append("first")
      node.unregisterForTraitChanges(sameNodeToken)
      child.unregisterForTraitChanges(childToken)
    }
    sameNodeToken = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      log.append("unregistered on the same node")
    }
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      log.append("third")
    }
    childToken = child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      log.append("unregistered on the child")
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(log.entries == ["first", "third"])
    #expect(graph.statistics.liveRegistrations == 2)
  }

  @Test("a handler that unregisters itself is not called again")
  func selfUnregistering() {
    let (graph, node) = makeGraphWithChild()
    var calls = 0
    var token: TraitChangeRegistration?
    token = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (node: GTNode, _: TraitCollection) in
      calls += 1
      node.unregisterForTraitChanges(token)
    }

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()

    #expect(calls == 1)
    #expect(graph.statistics.liveRegistrations == 0)
  }

  // MARK: - Targets and actions (R8)

  @Test("an action without arguments is called on its target")
  func actionWithoutArguments() {
    let (graph, node) = makeGraphWithChild()
    let target = GTTarget()
    node.registerForTraitChanges(
      [TraitHorizontalSizeClass.self],
      target: target,
      action: GTTarget.refreshEverything
    )

    node.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    node.traitOverrides.verticalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(target.plainCalls == 1)
  }

  @Test("an action with one argument receives the observed node")
  func actionWithOneArgument() {
    let (graph, node) = makeGraphWithChild()
    let target = GTTarget()
    node.registerForTraitChanges(
      [TraitHorizontalSizeClass.self],
      target: target,
      action: GTTarget.refresh(node:)
    )

    node.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(target.observedNodes.count == 1)
    #expect(target.observedNodes.first === node)
  }

  @Test("an action with two arguments receives the observed node and its previous collection")
  func actionWithTwoArguments() throws {
    let (graph, node) = makeGraphWithChild()
    node.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    let target = GTTarget()
    node.registerForTraitChanges(
      [TraitHorizontalSizeClass.self],
      target: target,
      action: GTTarget.refresh(node:previousTraitCollection:)
    )

    node.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()

    #expect(target.twoArgumentCalls == 1)
    #expect(target.observedNodes.first === node)
    let previous = try #require(target.previousCollections.first)
    #expect(previous.horizontalSizeClass == .regular)
  }

  @Test("the action form without a target calls the observed node's own method")
  func actionOnObservedNode() {
    let graph = TraitGraph()
    let node = GTLayoutNode()
    graph.root.addTraitChild(node)
    graph.updateTraitsIfNeeded()
    node.registerForTraitChanges(
      [TraitHorizontalSizeClass.self],
      action: GTLayoutNode.setNeedsLayout
    )

    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()

    #expect(node.layoutRequests == 2)
    #expect(node.sizeClassesSeen == [.compact, .regular])
  }

  @Test("the action form without a target does not keep the observed node alive")
  func actionOnObservedNodeDoesNotRetainIt() {
    weak var weakNode: GTLayoutNode?
    do {
      let node = GTLayoutNode()
      weakNode = node
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        action: GTLayoutNode.setNeedsLayout
      )
      node.registerForTraitChanges(
        [TraitVerticalSizeClass.self],
        target: node,
        action: GTLayoutNode.setNeedsLayout
      )
      withExtendedLifetime(node) { #expect(weakNode != nil) }
    }
    #expect(weakNode == nil)
  }

  @Test("a target is held weakly")
  func targetIsWeak() {
    let (graph, node) = makeGraphWithChild()
    weak var weakTarget: GTTarget?
    do {
      let target = GTTarget()
      weakTarget = target
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: target,
        action: GTTarget.refreshEverything
      )
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: target,
        action: GTTarget.refresh(node:)
      )
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: target,
        action: GTTarget.refresh(node:previousTraitCollection:)
      )
    }

    #expect(weakTarget == nil)
    node.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.liveRegistrations == 0)
  }

  @Test("a registration whose target is gone is skipped, then purged by the pass that reaches it")
  func deadTargetIsSkippedAndPurged() {
    let (graph, node) = makeGraphWithChild()
    let counter = GTCounter()
    var survivorCalls = 0
    weak var weakTarget: GTCountingTarget?
    do {
      let target = GTCountingTarget(counter: counter)
      weakTarget = target
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: target,
        action: GTCountingTarget.countCall
      )
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        survivorCalls += 1
      }
      node.traitOverrides.horizontalSizeClass = .compact
      graph.updateTraitsIfNeeded()
      #expect(counter.value == 1)
    }
    #expect(weakTarget == nil)

    node.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()

    #expect(counter.value == 1)
    #expect(survivorCalls == 2)
    #expect(graph.statistics.liveRegistrations == 1)
    node.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    #expect(graph.statistics.lastPass.callbacksDelivered == 1)
  }

  // MARK: - Lifetime (R9)

  @Test("a node's handlers, and what they capture, are released when the node goes away")
  func handlersDieWithTheirNode() {
    weak var weakCaptured: GTCaptured?
    weak var weakNode: GTNode?
    do {
      let node = GTNode("node")
      let captured = GTCaptured()
      weakNode = node
      weakCaptured = captured
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        _ = captured
      }
    }
    #expect(weakNode == nil)
    #expect(weakCaptured == nil)
  }

  @Test("unregistering releases the handler and what it captures at once")
  func unregisterReleasesHandler() {
    let (graph, node) = makeGraphWithChild()
    weak var weakCaptured: GTCaptured?
    var token: TraitChangeRegistration?
    do {
      let captured = GTCaptured()
      weakCaptured = captured
      token = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        _ = captured
      }
    }
    #expect(weakCaptured != nil)

    node.unregisterForTraitChanges(token)

    #expect(weakCaptured == nil)
    #expect(graph.statistics.liveRegistrations == 0)
  }

  @Test("a node removed from its graph and dropped releases its handlers")
  func removedNodeReleasesHandlers() {
    let (graph, _) = makeGraphWithChild()
    weak var weakCaptured: GTCaptured?
    weak var weakNode: GTNode?
    do {
      let node = GTNode("removed")
      let captured = GTCaptured()
      weakNode = node
      weakCaptured = captured
      graph.root.addTraitChild(node)
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        _ = captured
      }
      graph.updateTraitsIfNeeded()
      node.removeFromTraitParent()
    }
    #expect(weakNode == nil)
    #expect(weakCaptured == nil)
  }

  @Test("removing a subtree with registrations lowers the live registrations at once")
  func removalLowersLiveRegistrations() {
    let (graph, node) = makeGraphWithChild()
    let child = GTNode("child")
    node.addTraitChild(child)
    for observed in [node, node, child] {
      observed.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
      }
    }
    graph.root.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: TraitNode, _: TraitCollection) in
    }
    #expect(graph.statistics.liveRegistrations == 4)

    child.removeFromTraitParent()
    #expect(graph.statistics.liveRegistrations == 3)
    node.removeFromTraitParent()
    #expect(graph.statistics.liveRegistrations == 1)
    #expect(graph.statistics.liveNodes == 1)
  }

  @Test("a token keeps neither its node nor what the handler captures alive")
  func tokenKeepsNothingAlive() {
    let (graph, _) = makeGraphWithChild()
    weak var weakCaptured: GTCaptured?
    weak var weakNode: GTNode?
    var token: TraitChangeRegistration?
    do {
      let node = GTNode("node")
      let captured = GTCaptured()
      weakNode = node
      weakCaptured = captured
      graph.root.addTraitChild(node)
      token = node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        _ = captured
      }
      node.removeFromTraitParent()
    }

    #expect(token != nil)
    #expect(weakNode == nil)
    #expect(weakCaptured == nil)
    graph.root.unregisterForTraitChanges(token)
    #expect(graph.statistics.liveRegistrations == 0)
  }

  @Test("a handler that uses the observed object it is passed makes no retain cycle")
  func noCycleThroughObservedObject() {
    weak var weakGraph: TraitGraph?
    weak var weakNode: GTNode?
    var calls = 0
    do {
      let graph = TraitGraph()
      let node = GTNode("node")
      weakGraph = graph
      weakNode = node
      graph.root.addTraitChild(node)
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, _: TraitCollection) in
        calls += node.traitCollection.horizontalSizeClass == .compact ? 1 : 0
      }
      node.traitOverrides.horizontalSizeClass = .compact
      graph.updateTraitsIfNeeded()
    }
    #expect(calls == 1)
    #expect(weakGraph == nil)
    #expect(weakNode == nil)
  }
}
