import Testing

@testable import TraitKit

// Registrations that share a baseline and observe the same traits, one after another, are
// called in a run: each with the shared baseline, none moved to the new collection until the
// run ends, when the baseline's slot takes it in place if they were all of its users. These
// tests hold the run to what moving them one by one gives: each is called once per round, in
// the order they were made, with the collection it last heard of; a handler that changes the
// node's collection again, cancels a registration, or delivers another graph's pass to the node
// in the middle of the run, or another user of the baseline outside the run, changes nothing
// about that.

@Suite("Delivering to registrations that share a baseline")
struct DeliveryRunTests {
  /// What a test logs for a call of `name` on `node`: the size class it had and has.
  static func sizeClassEntry(
    _ name: String,
    _ node: TraitNode,
    _ previous: TraitCollection
  ) -> String {
    "\(name) \(previous.horizontalSizeClass)→\(node.traitCollection.horizontalSizeClass)"
  }

  /// A node under a graph's root with `count` registrations for the size class, each logging
  /// its name, the previous size class and the current one; the handler of `name` also runs
  /// `action`.
  private static func sizeClassNode(
    _ count: Int,
    log: GTLog,
    actions: [String: (GTNode) -> Void] = [:]
  ) -> (graph: TraitGraph, node: GTNode, tokens: [TraitChangeRegistration]) {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    let tokens = (0..<count).map { index in
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, previous: TraitCollection) in
        log.append(Self.sizeClassEntry("r\(index)", node, previous))
        actions["r\(index)"]?(node)
      }
    }
    return (graph, node, tokens)
  }

  @Test("registrations that share a baseline and traits are each called once, with it")
  func eachUserCalledOnceWithTheSharedBaseline() {
    let log = GTLog()
    let (graph, _, _) = Self.sizeClassNode(12, log: log)

    gtChangeSizeClass(graph, to: .compact)
    gtChangeSizeClass(graph, to: .regular)

    let first = (0..<12).map { "r\($0) unspecified→compact" }
    let second = (0..<12).map { "r\($0) compact→regular" }
    #expect(log.entries == first + second)
    #expect(graph.statistics.lastPass.callbacksDelivered == 12)
  }

  @Test("a handler that undoes the change spares the later registrations of the same baseline")
  func undoInTheMiddleOfARun() {
    let log = GTLog()
    let (graph, _, _) = Self.sizeClassNode(
      12,
      log: log,
      actions: [
        "r2": { node in node.traitParent?.traitOverrides.horizontalSizeClass = .unspecified }
      ]
    )

    gtChangeSizeClass(graph, to: .compact)

    // r0…r2 heard of compact and hear of its undoing in the next round; r3…r11 never saw it.
    let heard = (0...2).map { "r\($0) unspecified→compact" }
    let undone = (0...2).map { "r\($0) compact→unspecified" }
    #expect(log.entries == heard + undone)
    #expect(graph.statistics.lastPass.rounds == 2)
  }

  @Test("a handler that changes the value again gives the later registrations their own baseline")
  func changeInTheMiddleOfARun() {
    let log = GTLog()
    let (graph, _, _) = Self.sizeClassNode(
      12,
      log: log,
      actions: ["r4": { node in node.traitParent?.traitOverrides.horizontalSizeClass = .regular }]
    )

    gtChangeSizeClass(graph, to: .compact)

    let heard = (0...4).map { "r\($0) unspecified→compact" }
    let later = (5..<12).map { "r\($0) unspecified→regular" }
    let again = (0...4).map { "r\($0) compact→regular" }
    #expect(log.entries == heard + later + again)
  }

  @Test(
    "a handler that cancels a registration of the run stops its calls from then on, and no other",
    arguments: [(canceller: 1, cancelled: 7), (canceller: 5, cancelled: 2)]
  )
  func cancelInTheMiddleOfARun(canceller: Int, cancelled: Int) {
    // r1 cancels r7, which the run has not called yet; r5 cancels r2, which it has.
    let log = GTLog()
    var tokens: [TraitChangeRegistration] = []
    let (graph, _, made) = Self.sizeClassNode(
      12,
      log: log,
      actions: ["r\(canceller)": { node in node.unregisterForTraitChanges(tokens[cancelled]) }]
    )
    tokens = made

    gtChangeSizeClass(graph, to: .compact)
    gtChangeSizeClass(graph, to: .regular)

    let calledFirst = (0..<12).filter { $0 != cancelled || cancelled < canceller }
    let first = calledFirst.map { "r\($0) unspecified→compact" }
    let second = (0..<12).filter { $0 != cancelled }.map { "r\($0) compact→regular" }
    #expect(log.entries == first + second)
    #expect(graph.statistics.liveRegistrations == 11)
    #expect(graph.statistics.lastPass.callbacksDelivered == 11)
  }

  @Test(
    "a handler that moves the node's table mid-run leaves the rest of the run to hear once, in order",
    arguments: [1, 20]
  )
  func registrationThatMovesTheTableInTheMiddleOfARun(added: Int) {
    // Twelve registrations fill a table of twelve: r3's first registration moves it, and twenty
    // move it again as it grows.
    let log = GTLog()
    var registered = false
    let (graph, _, _) = Self.sizeClassNode(
      12,
      log: log,
      actions: [
        "r3": { node in
          guard !registered else { return }
          registered = true
          for index in 0..<added {
            node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
              (node: GTNode, previous: TraitCollection) in
              log.append(Self.sizeClassEntry("new\(index)", node, previous))
            }
          }
        }
      ]
    )

    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries == (0..<12).map { "r\($0) unspecified→compact" })
    #expect(graph.statistics.lastPass.callbacksDelivered == 12)

    log.removeAll()
    gtChangeSizeClass(graph, to: .regular)
    // The new registrations were made at compact, which they hear the end of with the others.
    let old = (0..<12).map { "r\($0) compact→regular" }
    let new = (0..<added).map { "new\($0) compact→regular" }
    #expect(log.entries == old + new)
    #expect(graph.statistics.lastPass.callbacksDelivered == 12 + added)
    #expect(graph.statistics.liveRegistrations == 12 + added)
  }

  @Test("a run whose new collection a later registration holds already leaves one slot for it")
  func runIntoACollectionAnotherSlotHolds() {
    // The last registration is made after the change, before the pass: its baseline is the new
    // collection, in a slot of its own. The run of the first ten then moves them into that
    // slot rather than making theirs take the same collection: one slot per distinct baseline.
    let log = GTLog()
    let (graph, node, _) = Self.sizeClassNode(10, log: log)
    graph.root.traitOverrides.horizontalSizeClass = .compact
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, previous: TraitCollection) in
      log.append("late \(previous.horizontalSizeClass)")
    }

    graph.updateTraitsIfNeeded()

    #expect(log.entries == (0..<10).map { "r\($0) unspecified→compact" })
    let table = node._observers!
    let held = (0..<Int32(table._snapshotSlotCount)).filter { table._snapshotState($0).isHeld }
    #expect(held.count == 1)
    gtChangeSizeClass(graph, to: .regular)
    #expect(log.entries.suffix(11) == (0..<10).map { "r\($0) compact→regular" } + ["late compact"])
  }

  @Test("a registration of other traits among a run's ends it, and each still hears once")
  func registrationOfOtherTraitsAmongARun() {
    // y2 shares the baseline but observes the style, which the size class changes leave alone:
    // the run of r0 and r1 stops at it, and r3…r12 are called after it. Were the baseline's slot
    // to take the new collection when the first run ends, r3…r12 would look already told.
    let log = GTLog()
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    let names = (0..<13).map { $0 == 2 ? "y2" : "r\($0)" }
    for name in names {
      let traits: [TraitKit.Trait] =
        name == "y2" ? [TraitUserInterfaceStyle.self] : [TraitHorizontalSizeClass.self]
      node.registerForTraitChanges(traits) { (node: GTNode, previous: TraitCollection) in
        log.append(
          "\(name) \(previous.horizontalSizeClass) \(previous.userInterfaceStyle)→"
            + "\(node.traitCollection.horizontalSizeClass) \(node.traitCollection.userInterfaceStyle)"
        )
      }
    }
    let sizeClassNames = names.filter { $0 != "y2" }

    gtChangeSizeClass(graph, to: .compact)
    gtChangeSizeClass(graph, to: .regular)
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(
      log.entries
        == sizeClassNames.map { "\($0) unspecified unspecified→compact unspecified" }
        + sizeClassNames.map { "\($0) compact unspecified→regular unspecified" }
        + ["y2 unspecified unspecified→regular dark"]
    )
  }

  /// What a handler of the run in `legacyCallbackSharingARunsBaseline` does.
  enum RunHandlerAction: Sendable, CaseIterable {
    /// Nothing.
    case none
    /// r5 cancels r2, which the run called.
    case cancel
    /// r5 cancels r2, which the run called, and registers n.
    case cancelAndRegister
  }

  @Test(
    "a legacy callback that shares a run's baseline still sees the change, after it",
    arguments: RunHandlerAction.allCases
  )
  func legacyCallbackSharingARunsBaseline(action: RunHandlerAction) {
    // The legacy callback is the baseline's first user, and a delivery calls it after the
    // registrations: the run of those cannot make the slot take the new collection. When r5
    // cancels r2, the run's count of calls matches the baseline's users, the legacy callback
    // among them, though it is not all of them; when it registers n too, so does the count of
    // live registrations.
    let log = GTLog()
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    _ = node._registerForAllTraitChanges(interestingTraits: []) { node, previous in
      log.append(Self.sizeClassEntry("legacy", node, previous))
    }
    var tokens: [TraitChangeRegistration] = []
    for index in 0..<12 {
      tokens.append(
        node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
          (node: GTNode, previous: TraitCollection) in
          log.append(Self.sizeClassEntry("r\(index)", node, previous))
          guard action != .none, index == 5,
            node.traitCollection.horizontalSizeClass == .compact
          else { return }
          node.unregisterForTraitChanges(tokens[2])
          guard action == .cancelAndRegister else { return }
          node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
            (node: GTNode, previous: TraitCollection) in
            log.append(Self.sizeClassEntry("n", node, previous))
          }
        }
      )
    }

    gtChangeSizeClass(graph, to: .compact)
    gtChangeSizeClass(graph, to: .regular)

    let first = (0..<12).map { "r\($0) unspecified→compact" } + ["legacy unspecified→compact"]
    let second =
      (0..<12).filter { $0 != 2 || action == .none }.map { "r\($0) compact→regular" }
      + (action == .cancelAndRegister ? ["n compact→regular"] : []) + ["legacy compact→regular"]
    #expect(log.entries == first + second)
  }

  @Test("registrations of another baseline between a run's keep their order and baselines")
  func interleavedRegistrations() {
    // x2 and x13 observe the display scale too: its change gives them a baseline of their own.
    // A size class change then runs the others on their shared baseline, x2 and x13 moving into
    // the run's slot among and after them. In the second, r5 changes the style in the middle,
    // so the rest of the run compares its own baseline with the node's newer collection.
    let log = GTLog()
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    for index in 0..<14 {
      let name = index == 2 || index == 13 ? "x\(index)" : "r\(index)"
      let traits: [TraitKit.Trait] =
        name.hasPrefix("x")
        ? [TraitHorizontalSizeClass.self, TraitDisplayScale.self] : [TraitHorizontalSizeClass.self]
      node.registerForTraitChanges(traits) { (node: GTNode, previous: TraitCollection) in
        log.append("\(name) \(previous.horizontalSizeClass)")
        if name == "r5" && node.traitCollection.horizontalSizeClass == .regular {
          node.traitParent?.traitOverrides.userInterfaceStyle = .dark
        }
      }
    }
    graph.root.traitOverrides.displayScale = 2
    graph.updateTraitsIfNeeded()
    #expect(log.entries == ["x2 unspecified", "x13 unspecified"])

    gtChangeSizeClass(graph, to: .compact)

    let names = (0..<14).map { $0 == 2 || $0 == 13 ? "x\($0)" : "r\($0)" }
    #expect(
      log.entries == ["x2 unspecified", "x13 unspecified"] + names.map { "\($0) unspecified" }
    )
    #expect(graph.statistics.lastPass.rounds == 1)
    gtChangeSizeClass(graph, to: .regular)
    #expect(log.entries.suffix(14) == ArraySlice(names.map { "\($0) compact" }))
  }

  @Test("another graph's pass that a handler runs on the node delivers to the rest of the run")
  func nestedPassOfAnotherGraph() {
    let log = GTLog()
    let other = TraitGraph(
      baseTraits: TraitCollection { $0.horizontalSizeClass = .regular }
    )
    let (graph, _, _) = Self.sizeClassNode(
      10,
      log: log,
      actions: [
        // NB: the other graph unowned: once the node is in its tree, it holds this closure.
        "r1": { [unowned other] node in
          other.root.addTraitChild(node)
          other.updateTraitsIfNeeded()
        }
      ]
    )

    withExtendedLifetime(other) { gtChangeSizeClass(graph, to: .compact) }

    // The nested pass tells r0 and r1 of the move from compact, and r2…r9, which never heard of
    // compact, of the move from their own baseline; the outer pass then has nobody left to call.
    let outer = (0...1).map { "r\($0) unspecified→compact" }
    let nested =
      (0...1).map { "r\($0) compact→regular" } + (2..<10).map { "r\($0) unspecified→regular" }
    #expect(log.entries == outer + nested)
  }

  @Test(
    "a handler that changes the graph's base traits gives the later registrations the new collection"
  )
  func baseTraitsChangeInTheMiddleOfARun() {
    // r4 changes the display scale, which none observes, at the base: the later registrations
    // still hear of the size class, and each keeps as its baseline the collection it was called
    // with, which the next change shows as the previous one.
    let log = GTLog()
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    for index in 0..<12 {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned graph] (node: GTNode, previous: TraitCollection) in
        log.append("r\(index) \(previous.displayScale)")
        if index == 4, node.traitCollection.horizontalSizeClass == .compact {
          graph.baseTraits = TraitCollection { $0.displayScale = 3 }
        }
      }
    }

    gtChangeSizeClass(graph, to: .compact)
    let first = log.entries
    gtChangeSizeClass(graph, to: .regular)

    #expect(first == (0..<12).map { "r\($0) 0.0" })
    let second = (0...4).map { "r\($0) 0.0" } + (5..<12).map { "r\($0) 3.0" }
    #expect(log.entries.suffix(12) == ArraySlice(second))
  }

  @Test("a change in the first graph stops the other graph's run on a node that moved there early")
  func changeInTheFirstGraphDuringTheOtherGraphsRun() {
    // r1 moves the node to the other graph, whose base has the same size class, and runs its
    // pass: r0 and r1 have heard of it, and r2…r9 hear of it in a run of the other graph's. r4
    // there writes in the first graph, whose run on the node the move ended: that stops the
    // other graph's run after r4, the rest hear one by one, and each keeps what it heard.
    let log = GTLog()
    let graph = TraitGraph()
    let other = TraitGraph(baseTraits: TraitCollection { $0.horizontalSizeClass = .compact })
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    var wrote = false
    for index in 0..<10 {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        [unowned graph, unowned other] (node: GTNode, previous: TraitCollection) in
        log.append("r\(index) \(previous.horizontalSizeClass)")
        if index == 1, node.traitParent === graph.root {
          other.root.addTraitChild(node)
          other.updateTraitsIfNeeded()
        }
        if index == 4, node.traitParent === other.root, !wrote {
          wrote = true
          graph.root.traitOverrides.userInterfaceStyle = .dark
        }
      }
    }

    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries == (0..<10).map { "r\($0) unspecified" })
    #expect(wrote)

    gtChangeSizeClass(other, to: .regular)
    #expect(log.entries.suffix(10) == ArraySlice((0..<10).map { "r\($0) compact" }))
    #expect(other.statistics.lastPass.callbacksDelivered == 10)
  }

  @Test(
    "a registration of other traits after a run's users, behind tombstones or moved up by a compaction, is not called by the run",
    arguments: [4, 17]
  )
  func otherTraitsAfterTombstones(cancelled: Int) {
    // r0…r8 observe the size class; then come `cancelled` registrations of the display scale,
    // cancelled before the change, and x, of the display scale too. Four stay as tombstones;
    // the seventeenth cancellation compacts the table, and x moves up behind r8.
    let log = GTLog()
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    @discardableResult
    func register(_ name: String, _ trait: any TraitDefinition.Type) -> TraitChangeRegistration {
      node.registerForTraitChanges([trait]) { (_: GTNode, _: TraitCollection) in
        log.append(name)
      }
    }
    for index in 0..<9 { register("r\(index)", TraitHorizontalSizeClass.self) }
    let others = (0..<cancelled).map { register("y\($0)", TraitDisplayScale.self) }
    register("x", TraitDisplayScale.self)
    for token in others { node.unregisterForTraitChanges(token) }

    gtChangeSizeClass(graph, to: .compact)
    #expect(log.entries == (0..<9).map { "r\($0)" })
    graph.root.traitOverrides.displayScale = 2
    graph.updateTraitsIfNeeded()
    #expect(log.entries == (0..<9).map { "r\($0)" } + ["x"])
  }

  /// A target that logs its name and the size classes it is called with.
  final class SizeClassLoggingTarget {
    let name: String
    let log: GTLog

    init(_ name: String, log: GTLog) {
      self.name = name
      self.log = log
    }

    func sizeClassDidChange(node: GTNode, previous: TraitCollection) {
      log.append(DeliveryRunTests.sizeClassEntry(name, node, previous))
    }
  }

  @Test("a run of handlers and target-actions, mixed, calls each once, in the order they were made")
  func handlersAndTargetActionsInOneRun() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    let log = GTLog()
    // NB: handlers are kept in their entries and target-actions in boxes, which the run's loop
    // calls on different paths; every pattern of the two follows one another here.
    let isTarget = [false, true, false, false, true, true, false, true, true, true, false, false]
    var targets: [SizeClassLoggingTarget] = []
    for (index, usesTarget) in isTarget.enumerated() {
      if usesTarget {
        let target = SizeClassLoggingTarget("t\(index)", log: log)
        targets.append(target)
        node.registerForTraitChanges(
          [TraitHorizontalSizeClass.self],
          target: target,
          action: SizeClassLoggingTarget.sizeClassDidChange
        )
      } else {
        node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
          (node: GTNode, previous: TraitCollection) in
          log.append(Self.sizeClassEntry("r\(index)", node, previous))
        }
      }
    }

    gtChangeSizeClass(graph, to: .compact)
    gtChangeSizeClass(graph, to: .regular)

    let names = isTarget.enumerated().map { ($1 ? "t" : "r") + "\($0)" }
    let first = names.map { "\($0) unspecified→compact" }
    let second = names.map { "\($0) compact→regular" }
    #expect(log.entries == first + second)
    #expect(graph.statistics.lastPass.callbacksDelivered == isTarget.count)
    withExtendedLifetime(targets) {}
  }

  @Test("a run skips and cancels the registrations whose targets are gone, and counts no call")
  func deadTargetsInARun() {
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    let counter = GTCounter()
    var targets: [GTCountingTarget?] = (0..<12).map { _ in GTCountingTarget(counter: counter) }
    for target in targets {
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: target.unsafelyUnwrapped,
        action: GTCountingTarget.countCall
      )
    }
    targets[3] = nil
    targets[7] = nil
    targets[11] = nil

    gtChangeSizeClass(graph, to: .compact)

    #expect(counter.value == 9)
    #expect(graph.statistics.lastPass.callbacksDelivered == 9)
    #expect(graph.statistics.liveRegistrations == 9)
    gtChangeSizeClass(graph, to: .regular)
    #expect(counter.value == 18)
    #expect(graph.statistics.lastPass.callbacksDelivered == 9)
    withExtendedLifetime(targets) {}
  }
}
