import Testing
import TraitKit

@Suite("Automatic trait tracking")
struct TraitTrackingTests {
  // MARK: - What a run records

  @Test("only the traits a tracked closure reads invalidate it")
  func onlyReadTraitsInvalidate() {
    let tree = TTTree()
    tree.a.body = { view in _ = view.traitCollection.horizontalSizeClass }
    tree.a.layout()

    tree.a.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(!tree.a.needsLayout)

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.needsLayout)
    #expect(tree.a.invalidated == [.layout])
  }

  @Test("a custom trait read through the subscript is tracked like a system trait")
  func customTraitIsTracked() {
    let tree = TTTree()
    tree.a.body = { view in _ = view.traitCollection[TTThemeTrait.self] }
    tree.a.layout()

    tree.a.traitOverrides.horizontalSizeClass = .regular
    #expect(tree.invalidationsOfNextPass() == 0)

    tree.a.traitOverrides[TTThemeTrait.self] = 7
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.needsLayout)
  }

  @Test("a run that stops reading a trait stops depending on it")
  func stoppedReadIsForgotten() {
    let tree = TTTree()
    var readsVerticalSizeClass = true
    tree.a.body = { view in
      _ = view.traitCollection.horizontalSizeClass
      if readsVerticalSizeClass { _ = view.traitCollection.verticalSizeClass }
    }
    tree.a.layout()
    readsVerticalSizeClass = false
    tree.a.layout()

    tree.a.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(!tree.a.needsLayout)

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.needsLayout)
  }

  @Test("a run that stops reading another node stops depending on that node")
  func stoppedNodeReadIsForgotten() {
    let tree = TTTree()
    var readsB = true
    let b = tree.b
    tree.a.body = { view in
      _ = view.traitCollection.userInterfaceStyle
      if readsB { _ = b.traitCollection.horizontalSizeClass }
    }
    tree.a.layout()
    readsB = false
    tree.a.layout()

    tree.b.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(tree.a.invalidated.isEmpty)
  }

  @Test("each run replaces the slot's previous record")
  func runReplacesRecord() {
    let tree = TTTree()
    var readsHorizontal = true
    tree.a.body = { view in
      if readsHorizontal {
        _ = view.traitCollection.horizontalSizeClass
      } else {
        _ = view.traitCollection.verticalSizeClass
      }
    }
    tree.a.layout()
    readsHorizontal = false
    tree.a.layout()

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)

    tree.a.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.invalidated == [.layout])
  }

  @Test("each run replaces the slot's invalidation with its own")
  func runReplacesInvalidation() async {
    let tree = TTTree()
    await confirmation("the first run's invalidation", expectedCount: 0) { first in
      await confirmation("the second run's invalidation", expectedCount: 1) { second in
        tree.a.withTraitTracking(slot: .layout, invalidation: { _ in first() }) {
          _ = tree.a.traitCollection.horizontalSizeClass
        }
        tree.a.withTraitTracking(slot: .layout, invalidation: { _ in second() }) {
          _ = tree.a.traitCollection.horizontalSizeClass
        }
        tree.a.traitOverrides.horizontalSizeClass = .compact
        #expect(tree.invalidationsOfNextPass() == 1)
      }
    }
  }

  @Test(
    "different slots on one node are independent",
    arguments: [
      (TraitTrackingSlot.layout, TraitTrackingSlot.display),
      (.properties, .constraints),
      (.layout, TraitTrackingSlot("custom")),
    ]
  )
  func slotsAreIndependent(first: TraitTrackingSlot, second: TraitTrackingSlot) {
    let tree = TTTree()
    let view = tree.a
    view.track(first) { _ = view.traitCollection.horizontalSizeClass }
    view.track(second) { _ = view.traitCollection.verticalSizeClass }
    // Re-running the first slot with other reads leaves the second slot's record alone.
    view.track(first) { _ = view.traitCollection.userInterfaceStyle }

    view.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [second])

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)

    view.traitOverrides.userInterfaceStyle = .dark
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [second, first])
  }

  @Test("a slot is identified by its name, so an equal slot made anew shares its record")
  func slotIdentityIsItsName() {
    let tree = TTTree()
    let view = tree.a
    view.track(TraitTrackingSlot("custom")) { _ = view.traitCollection.horizontalSizeClass }
    view.track(TraitTrackingSlot("custom")) { _ = view.traitCollection.verticalSizeClass }

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)

    view.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [TraitTrackingSlot("custom")])
  }

  @Test("a tracked closure returns its body's result")
  func returnsBodyResult() {
    let tree = TTTree()
    tree.a.traitOverrides.horizontalSizeClass = .regular
    let sizeClass = tree.a.track(.layout) { tree.a.traitCollection.horizontalSizeClass }
    #expect(sizeClass == .regular)
  }

  // MARK: - Which reads count

  @Test("reads through a collection obtained inside the tracked closure count")
  func readsThroughObtainedCollectionCount() {
    let tree = TTTree()
    tree.a.body = { view in
      let tc = view.traitCollection
      _ = tc.horizontalSizeClass
      _ = tc[TTThemeTrait.self]
    }
    tree.a.layout()

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)

    tree.a.layout()
    tree.a.traitOverrides[TTThemeTrait.self] = 2
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.invalidated == [.layout, .layout])
  }

  @Test("reads outside any tracked closure record nothing")
  func readsOutsideRecordNothing() {
    let tree = TTTree()
    _ = tree.a.traitCollection.horizontalSizeClass
    _ = tree.b.traitCollection.verticalSizeClass

    tree.a.traitOverrides.horizontalSizeClass = .compact
    tree.b.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(tree.a.invalidated.isEmpty)
    #expect(tree.b.invalidated.isEmpty)
  }

  @Test("reads outside a node's tracked closure do not join its record")
  func readsOutsideDoNotJoinRecord() {
    let tree = TTTree()
    tree.a.body = { view in _ = view.traitCollection.horizontalSizeClass }
    tree.a.layout()
    _ = tree.a.traitCollection.verticalSizeClass

    tree.a.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(!tree.a.needsLayout)
  }

  @Test("a collection obtained inside a tracked closure records nothing once the closure returns")
  func escapedCollectionRecordsNothingAfterwards() {
    let tree = TTTree()
    let tc = tree.a.track(.layout) { tree.a.traitCollection }
    _ = tc.horizontalSizeClass

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(tree.a.invalidated.isEmpty)
  }

  @Test("a tracked closure that throws keeps its reads and stops recording when it exits")
  func throwingClosureStopsRecording() {
    let tree = TTTree()
    let view = tree.a
    #expect(throws: TTError.self) {
      try view.track(.layout) {
        _ = view.traitCollection.horizontalSizeClass
        throw TTError()
      }
    }
    _ = view.traitCollection.verticalSizeClass

    view.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [.layout])
  }

  // MARK: - Reads of other nodes

  @Test("a read of another node's trait invalidates the reader when that node's value changes")
  func readOfAnotherNodeInvalidatesReader() async {
    let tree = TTTree()
    let (a, b) = (tree.a, tree.b)
    let reader = ObjectIdentifier(a)
    await confirmation("the reader's invalidation", expectedCount: 1) { invalidated in
      a.withTraitTracking(
        slot: .layout,
        invalidation: { node in
          #expect(ObjectIdentifier(node) == reader)
          invalidated()
        }
      ) {
        _ = b.traitCollection.horizontalSizeClass
      }

      // The reader's own value of the trait was not read.
      a.traitOverrides.horizontalSizeClass = .compact
      #expect(tree.invalidationsOfNextPass() == 0)

      b.traitOverrides.horizontalSizeClass = .compact
      #expect(tree.invalidationsOfNextPass() == 1)
    }
  }

  @Test("a read of another node follows that node's values, inherited ones included")
  func readOfAnotherNodeFollowsItsValues() {
    let tree = TTTree()
    let b = tree.b
    tree.a.body = { _ in _ = b.traitCollection.horizontalSizeClass }
    tree.a.layout()

    tree.graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.needsLayout)

    tree.a.layout()
    tree.b.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)

    // b's override masks the root's change: b's value does not change.
    tree.graph.root.traitOverrides.horizontalSizeClass = .regular
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(!tree.a.needsLayout)
  }

  // MARK: - Delivery

  @Test("an invalidation runs before the registrations of the node whose trait changed")
  func invalidationPrecedesRegistrations() {
    let tree = TTTree()
    var events: [String] = []
    tree.a.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: TTView, _: TraitCollection) in
      events.append("registration")
    }
    let invalidation: (TraitNode) -> Void = { _ in events.append("invalidation") }
    tree.a.withTraitTracking(slot: .layout, invalidation: invalidation) {
      _ = tree.a.traitCollection.horizontalSizeClass
    }

    tree.a.traitOverrides.horizontalSizeClass = .compact
    let pass = tree.pass()
    #expect(events == ["invalidation", "registration"])
    #expect(pass.invalidationsDelivered == 1)
    #expect(pass.callbacksDelivered == 1)
  }

  @Test("a slot is invalidated once per pass however many of its recorded traits changed")
  func oneInvalidationForSeveralTraits() {
    let tree = TTTree()
    let b = tree.b
    tree.a.body = { view in
      _ = view.traitCollection.horizontalSizeClass
      _ = view.traitCollection.verticalSizeClass
      _ = view.traitCollection[TTThemeTrait.self]
      _ = b.traitCollection.userInterfaceStyle
    }
    tree.a.layout()

    tree.a.traitOverrides.horizontalSizeClass = .compact
    tree.a.traitOverrides.verticalSizeClass = .compact
    tree.a.traitOverrides[TTThemeTrait.self] = 1
    tree.b.traitOverrides.userInterfaceStyle = .dark
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.invalidated == [.layout])
  }

  @Test("a slot is invalidated once per pass when a handler's change causes a second round")
  func oneInvalidationAcrossRounds() {
    let tree = TTTree()
    tree.a.body = { view in
      _ = view.traitCollection.horizontalSizeClass
      _ = view.traitCollection.verticalSizeClass
    }
    tree.a.layout()
    tree.a.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (view: TTView, _: TraitCollection) in
      view.traitOverrides.verticalSizeClass = .compact
    }

    tree.a.traitOverrides.horizontalSizeClass = .compact
    let pass = tree.pass()
    #expect(pass.rounds == 2)
    #expect(pass.invalidationsDelivered == 1)
    #expect(tree.a.invalidated == [.layout])
  }

  @Test("a slot is invalidated once per pass when a second round changes another node it read")
  func oneInvalidationAcrossRoundsAndNodes() {
    let tree = TTTree()
    let b = tree.b
    tree.a.body = { view in
      _ = view.traitCollection.horizontalSizeClass
      _ = b.traitCollection.verticalSizeClass
    }
    tree.a.layout()
    tree.a.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: TTView, _: TraitCollection) in
      b.traitOverrides.verticalSizeClass = .compact
    }

    tree.a.traitOverrides.horizontalSizeClass = .compact
    let pass = tree.pass()
    #expect(pass.rounds == 2)
    #expect(pass.invalidationsDelivered == 1)
    #expect(tree.a.invalidated == [.layout])
  }

  @Test("a change already reported does not invalidate again in a later pass")
  func reportedChangeIsNotRedelivered() {
    let tree = TTTree()
    let view = tree.a
    view.track(.layout) { _ = view.traitCollection.horizontalSizeClass }
    view.track(.display) { _ = view.traitCollection.verticalSizeClass }

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)

    // The layout slot has not re-run; the pass visits the node for the display slot's change.
    view.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [.layout, .display])

    // An inherited change masked by the node's override reaches the node but changes nothing.
    tree.graph.root.traitOverrides.horizontalSizeClass = .regular
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(view.invalidated == [.layout, .display])
  }

  @Test("a new change of a recorded trait invalidates again even if the slot has not re-run")
  func newChangeInvalidatesAgain() {
    let tree = TTTree()
    tree.a.body = { view in _ = view.traitCollection.horizontalSizeClass }
    tree.a.layout()

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    tree.a.traitOverrides.horizontalSizeClass = .regular
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.invalidated == [.layout, .layout])
  }

  @Test("values that changed and changed back between passes invalidate nothing")
  func changedBackInvalidatesNothing() {
    let tree = TTTree()
    let b = tree.b
    tree.a.body = { view in
      _ = view.traitCollection.horizontalSizeClass
      _ = view.traitCollection[TTThemeTrait.self]
      _ = b.traitCollection.verticalSizeClass
    }
    tree.a.layout()

    tree.a.traitOverrides.horizontalSizeClass = .compact
    tree.a.traitOverrides.remove(TraitHorizontalSizeClass.self)
    tree.a.traitOverrides[TTThemeTrait.self] = 5
    tree.a.traitOverrides[TTThemeTrait.self] = 0
    tree.graph.root.traitOverrides.verticalSizeClass = .regular
    tree.graph.root.traitOverrides.verticalSizeClass = .unspecified
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(!tree.a.needsLayout)
  }

  @Test("the invalidation count of a pass counts every slot the pass invalidated")
  func passCountsEverySlot() {
    let tree = TTTree()
    let c = TTView()
    tree.b.addTraitChild(c)
    for view in [tree.a, tree.b, c] {
      view.track(.layout) { _ = view.traitCollection.horizontalSizeClass }
    }
    tree.a.track(.display) { _ = tree.a.traitCollection.horizontalSizeClass }
    tree.a.track(.properties) { _ = tree.a.traitCollection.verticalSizeClass }

    tree.graph.root.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 4)
    #expect(tree.a.invalidations(of: .layout) == 1)
    #expect(tree.a.invalidations(of: .display) == 1)
    #expect(tree.a.invalidations(of: .properties) == 0)
    #expect(tree.b.invalidated == [.layout])
    #expect(c.invalidated == [.layout])
  }

  @Test("an invalidation may re-run its slot during the pass")
  func invalidationMayRerunSlot() {
    let tree = TTTree()
    let view = tree.a
    var seen: [UserInterfaceSizeClass] = []
    // The invalidation lays the node it is given out again, at once.
    func layout(_ node: TraitNode) {
      node.withTraitTracking(slot: .layout, invalidation: layout) {
        seen.append(node.traitCollection.horizontalSizeClass)
      }
    }
    layout(view)

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    view.traitOverrides.horizontalSizeClass = .regular
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(seen == [.unspecified, .compact, .regular])
  }

  @Test("a slot that runs again during the pass is invalidated again by a later change in it")
  func rerunDuringPassIsInvalidatedAgain() {
    let tree = TTTree()
    let view = tree.a
    view.body = { view in
      _ = view.traitCollection.horizontalSizeClass
      _ = view.traitCollection.verticalSizeClass
    }
    view.layout()
    // A handler lays out at once, as a host's `layoutIfNeeded()` does, then changes a trait that
    // the new layout read: the next round must invalidate it again.
    view.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (view: TTView, _: TraitCollection) in
      view.layoutIfNeeded()
      view.traitOverrides.verticalSizeClass = .compact
    }

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 2)
    #expect(view.invalidated == [.layout, .layout])
    #expect(view.needsLayout)
    #expect(view.layoutCount == 2)
  }

  @Test("a slot that its invalidation re-runs hears of a change a later round of the pass makes")
  func rerunByInvalidationHearsLaterRound() {
    let tree = TTTree()
    let view = tree.a
    var seen: [[UserInterfaceSizeClass]] = []
    func layout(_ node: TraitNode) {
      node.withTraitTracking(slot: .layout, invalidation: layout) {
        seen.append([
          node.traitCollection.horizontalSizeClass, node.traitCollection.verticalSizeClass,
        ])
      }
    }
    layout(view)
    view.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (view: TTView, _: TraitCollection) in
      view.traitOverrides.verticalSizeClass = .compact
    }

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 2)
    #expect(
      seen == [[.unspecified, .unspecified], [.compact, .unspecified], [.compact, .compact]]
    )
  }

  @Test("a slot re-run by its own invalidation during the pass keeps the reads that run adds")
  func rerunDuringPassKeepsNewReads() {
    let tree = TTTree()
    // The invalidation lays the node it is given out again, at once; a compact layout reads more.
    func layout(_ node: TraitNode) {
      node.withTraitTracking(slot: .layout, invalidation: layout) {
        if node.traitCollection.horizontalSizeClass == .compact {
          _ = node.traitCollection.verticalSizeClass
        }
      }
    }
    layout(tree.a)

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)

    tree.a.traitOverrides.verticalSizeClass = .compact
    let invalidations = tree.invalidationsOfNextPass()
    #expect(invalidations == 1)

  }

  @Test("a slot re-run between passes keeps the reads that run adds")
  func rerunBetweenPassesKeepsNewReads() {
    let tree = TTTree()
    tree.a.body = { view in
      if view.traitCollection.horizontalSizeClass == .compact {
        _ = view.traitCollection.verticalSizeClass
      }
    }
    tree.a.layout()

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    tree.a.layoutIfNeeded()

    tree.a.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.invalidated == [.layout, .layout])
  }

  @Test("a run after a change but before the pass sees the new value and is not invalidated by it")
  func runBeforePassSeesNewValue() {
    let tree = TTTree()
    tree.a.body = { view in _ = view.traitCollection.horizontalSizeClass }
    tree.a.layout()

    tree.a.traitOverrides.horizontalSizeClass = .compact
    tree.a.layout()
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(!tree.a.needsLayout)
  }

  @Test("a subtree pass delivers the invalidations of the nodes it covers")
  func subtreePassDelivers() {
    let tree = TTTree()
    let b = tree.b
    tree.a.body = { _ in _ = b.traitCollection.horizontalSizeClass }
    tree.a.layout()
    b.traitOverrides.horizontalSizeClass = .compact

    // The reader's subtree does not hold the node that changed.
    tree.a.updateTraitsIfNeeded()
    #expect(tree.graph.statistics.lastPass.invalidationsDelivered == 0)
    #expect(!tree.a.needsLayout)

    b.updateTraitsIfNeeded()
    #expect(tree.graph.statistics.lastPass.invalidationsDelivered == 1)
    #expect(tree.a.needsLayout)
    #expect(tree.invalidationsOfNextPass() == 0)
  }

  @Test("moving the node a slot read under a parent with other values invalidates the slot")
  func movingReadNodeInvalidates() {
    let tree = TTTree()
    let child = TraitNode()
    tree.b.addTraitChild(child)
    tree.a.body = { _ in _ = child.traitCollection.horizontalSizeClass }
    tree.a.layout()
    tree.graph.root.traitOverrides.userInterfaceStyle = .dark
    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)

    // Moving the node under a parent with the same size class changes nothing it read.
    let sameSizeClass = TraitNode()
    tree.graph.root.addTraitChild(sameSizeClass)
    sameSizeClass.addTraitChild(child)
    #expect(tree.invalidationsOfNextPass() == 0)

    tree.a.addTraitChild(child)
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.invalidated == [.layout])
  }

  // MARK: - Lifetime

  @Test("a slot whose node was deallocated never fires")
  func deallocatedReaderNeverFires() async {
    let tree = TTTree()
    let b = tree.b
    await confirmation("the dead reader's invalidation", expectedCount: 0) { invalidated in
      weak var weakReader: TraitNode?
      do {
        let reader = TraitNode()
        weakReader = reader
        tree.graph.root.addTraitChild(reader)
        reader.withTraitTracking(slot: .layout, invalidation: { _ in invalidated() }) {
          _ = b.traitCollection.horizontalSizeClass
          _ = reader.traitCollection.horizontalSizeClass
        }
        reader.removeFromTraitParent()
      }
      #expect(weakReader == nil)

      b.traitOverrides.horizontalSizeClass = .compact
      #expect(tree.invalidationsOfNextPass() == 0)
      tree.graph.root.traitOverrides.horizontalSizeClass = .regular
      #expect(tree.invalidationsOfNextPass() == 0)
    }
  }

  @Test("removing a slot's tracking drops its record and leaves other slots alone")
  func removeTraitTrackingDropsRecord() {
    let tree = TTTree()
    let view = tree.a
    view.track(.layout) { _ = view.traitCollection.horizontalSizeClass }
    view.track(.display) { _ = view.traitCollection.horizontalSizeClass }
    view.removeTraitTracking(slot: .layout)

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [.display])

    // Tracking the slot anew records again.
    view.track(.layout) { _ = view.traitCollection.horizontalSizeClass }
    view.traitOverrides.horizontalSizeClass = .regular
    #expect(tree.invalidationsOfNextPass() == 2)
    #expect(view.invalidations(of: .layout) == 1)
    #expect(view.invalidations(of: .display) == 2)
  }

  @Test("a slot removed right after its run and tracked again records anew")
  func lastTrackedSlotRemovedAndTrackedAgain() {
    let tree = TTTree()
    let view = tree.a
    view.track(.layout) { _ = view.traitCollection.horizontalSizeClass }
    view.removeTraitTracking(slot: .layout)
    view.track(.layout) { _ = view.traitCollection.verticalSizeClass }

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    view.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [.layout])
  }

  @Test("a slot removed by its own tracked closure ends its run safely and never fires")
  func slotRemovedDuringItsRun() {
    let tree = TTTree()
    let view = tree.a
    let result = view.track(.layout) {
      _ = view.traitCollection.horizontalSizeClass
      view.removeTraitTracking(slot: .layout)
      // Reads after the removal record nothing, and the run still returns normally.
      _ = view.traitCollection.verticalSizeClass
      return 7
    }
    #expect(result == 7)

    view.traitOverrides.horizontalSizeClass = .compact
    view.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(view.invalidated.isEmpty)

    // The slot can be tracked anew, nested in another slot's run too.
    view.track(.display) {
      view.track(.layout) {
        _ = view.traitCollection.userInterfaceStyle
        view.removeTraitTracking(slot: .layout)
      }
      _ = view.traitCollection.userInterfaceStyle
    }
    view.traitOverrides.userInterfaceStyle = .dark
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [.display])
  }

  @Test("removing a slot that was never tracked does nothing")
  func removingUntrackedSlotDoesNothing() {
    let tree = TTTree()
    tree.b.removeTraitTracking(slot: .layout)
    tree.a.track(.display) { _ = tree.a.traitCollection.horizontalSizeClass }
    tree.a.removeTraitTracking(slot: .layout)

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.invalidated == [.display])
  }

  @Test("a slot that read a node which was then deallocated re-runs safely")
  func rerunAfterReadNodeDeallocated() async {
    // NB: exit tests, so that a use of the dead node's memory fails this test alone. Whether that
    // use crashes depends on what the freed memory holds, which differs from one process to the
    // next: several processes make a crash likely if the engine regresses.
    for _ in 0..<8 {
      await #expect(processExitsWith: .success) {
        let graph = TraitGraph()
        let reader = TTView()
        graph.root.addTraitChild(reader)
        var other: TraitNode? = TraitNode()
        if let other { graph.root.addTraitChild(other) }
        reader.body = { view in
          _ = other?.traitCollection.horizontalSizeClass
          _ = view.traitCollection.verticalSizeClass
        }
        reader.layout()
        other?.removeFromTraitParent()
        other = nil
        reader.layout()

        reader.traitOverrides.verticalSizeClass = .compact
        graph.updateTraitsIfNeeded()
        precondition(graph.statistics.lastPass.invalidationsDelivered == 1)
      }
    }

  }

  // MARK: - Nesting

  @Test("nested scopes on one node record into the innermost slot only")
  func nestedSlotsOnOneNode() {
    let tree = TTTree()
    let view = tree.a
    view.track(.layout) {
      _ = view.traitCollection.horizontalSizeClass
      view.track(.display) { _ = view.traitCollection.verticalSizeClass }
      _ = view.traitCollection.userInterfaceStyle
    }

    view.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [.display])

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [.display, .layout])

    // Reads after the inner scope returns go to the outer slot again.
    view.traitOverrides.userInterfaceStyle = .dark
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [.display, .layout, .layout])
  }

  @Test("a collection obtained in an outer scope and read inside a nested one records outside")
  func outerCollectionReadInNestedScope() {
    let tree = TTTree()
    let view = tree.a
    view.track(.layout) {
      let outer = view.traitCollection
      view.track(.display) { _ = outer.horizontalSizeClass }
    }

    view.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(view.invalidated == [.layout])
  }

  @Test("a slot re-entered inside another slot's run leaves that run its collections' reads")
  func reenteredSlotKeepsIntermediateRun() {
    let tree = TTTree()
    let (a, b) = (tree.a, tree.b)
    a.track(.layout) {
      b.track(.display) {
        let fromB = b.traitCollection
        a.track(.layout) { _ = fromB.userInterfaceStyle }
      }
    }

    b.traitOverrides.userInterfaceStyle = .dark
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(a.invalidated.isEmpty)
    #expect(b.invalidated == [.display])
  }

  @Test("slots re-entered in turn inside each other's runs record into the run each read is for")
  func slotsReenteredInTurn() {
    let tree = TTTree()
    let (a, b) = (tree.a, tree.b)
    let c = TTView()
    tree.graph.root.addTraitChild(c)
    // c { a { b { a { b { … } } } } }: a and b each run twice, interleaved, inside c's run.
    c.track(.layout) {
      let fromC = c.traitCollection
      a.track(.layout) {
        b.track(.display) {
          let fromB = b.traitCollection
          a.track(.layout) {
            _ = fromB.userInterfaceStyle
            b.track(.display) { _ = fromC.horizontalSizeClass }
          }
        }
        // Back in a's first run: the links the inner runs changed are as they were.
        _ = fromC.accessibilityContrast
      }
    }

    b.traitOverrides.userInterfaceStyle = .dark
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(b.invalidated == [.display])
    c.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(c.invalidated == [.layout])
    c.traitOverrides.accessibilityContrast = .high
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(c.invalidated == [.layout, .layout])
    #expect(a.invalidated.isEmpty)
  }

  @Test("nested scopes on two nodes record into the innermost slot only")
  func nestedSlotsOnTwoNodes() {
    let tree = TTTree()
    let (a, b) = (tree.a, tree.b)
    a.track(.layout) {
      _ = a.traitCollection.horizontalSizeClass
      b.track(.layout) { _ = b.traitCollection.verticalSizeClass }
    }

    b.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(a.invalidated.isEmpty)
    #expect(b.invalidated == [.layout])

    a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(a.invalidated == [.layout])
    #expect(b.invalidated == [.layout])
  }

  @Test("a nested scope on a node of another graph takes the reads made inside it")
  func nestedSlotAcrossGraphs() {
    let tree = TTTree()
    let other = TTTree()
    let (outer, inner) = (tree.a, other.a)
    outer.track(.layout) {
      _ = outer.traitCollection.verticalSizeClass
      inner.track(.layout) { _ = outer.traitCollection.horizontalSizeClass }
    }

    outer.traitOverrides.horizontalSizeClass = .compact
    let invalidations = tree.invalidationsOfNextPass()
    #expect(outer.invalidated.isEmpty)
    #expect(inner.invalidated == [.layout])
    #expect(invalidations == 1)

  }

  // MARK: - Trees and graphs

  @Test(
    "a slot tracked while detached is invalidated after joining a graph where its traits differ"
  )
  func detachedSlotJoinsGraph() {
    let view = TTView()
    view.body = { view in _ = view.traitCollection.horizontalSizeClass }
    view.layout()

    let same = TraitGraph()
    same.root.addTraitChild(view)
    same.updateTraitsIfNeeded()
    #expect(same.statistics.lastPass.invalidationsDelivered == 0)

    let compact = TraitGraph(
      baseTraits: TraitCollection(TraitHorizontalSizeClass.self, value: .compact)
    )
    compact.root.addTraitChild(view)
    compact.updateTraitsIfNeeded()
    #expect(compact.statistics.lastPass.invalidationsDelivered == 1)
    #expect(view.needsLayout)
  }

  @Test("a slot invalidated in one graph is invalidated again after its node moves to another")
  func slotMovesBetweenGraphs() {
    let first = TTTree()
    let second = TTTree()
    let view = first.a
    view.body = { view in _ = view.traitCollection.horizontalSizeClass }
    view.layout()
    view.traitOverrides.horizontalSizeClass = .compact
    #expect(first.invalidationsOfNextPass() == 1)
    view.layoutIfNeeded()
    #expect(!view.needsLayout)

    second.graph.root.addTraitChild(view)
    view.traitOverrides.horizontalSizeClass = .regular
    let invalidations = second.invalidationsOfNextPass()
    #expect(invalidations == 1)
    #expect(view.needsLayout)

  }

  // MARK: - The seed's samples

  @Test("the seed's layoutSubviews sample is invalidated exactly when the size class changes")
  func seedSampleIsInvalidatedBySizeClass() {
    let graph = TraitGraph()
    let view = TTMyView()
    graph.root.addTraitChild(view)
    view.layout()
    #expect(view.layoutCount == 1)

    /// Makes `change`, runs a pass and a layout if needed; returns whether the pass invalidated.
    func invalidates(_ change: (inout TraitOverrides) -> Void) -> Bool {
      change(&view.traitOverrides)
      graph.updateTraitsIfNeeded()
      let invalidated = view.needsLayout
      #expect(graph.statistics.lastPass.invalidationsDelivered == (invalidated ? 1 : 0))
      view.layoutIfNeeded()
      return invalidated
    }
    #expect(!invalidates { $0.verticalSizeClass = .compact })
    #expect(!invalidates { $0.userInterfaceStyle = .dark })
    #expect(invalidates { $0.horizontalSizeClass = .compact })
    #expect(!invalidates { $0.horizontalSizeClass = .compact })
    #expect(invalidates { $0.horizontalSizeClass = .regular })
    #expect(!invalidates { $0[TTThemeTrait.self] = 3 })
    #expect(view.layoutCount == 3)
  }

  @Test("the seed's migrated layoutSubviews applies each new size class once")
  func seedMigrationSampleFollowsSizeClass() {
    let graph = TraitGraph()
    let view = TTMigratedView()
    graph.root.addTraitChild(view)
    view.layout()

    let steps: [(UserInterfaceSizeClass, UserInterfaceSizeClass)] = [
      (.compact, .compact), (.compact, .regular), (.regular, .regular), (.unspecified, .regular),
    ]
    for (horizontal, vertical) in steps {
      graph.root.traitOverrides.horizontalSizeClass = horizontal
      graph.root.traitOverrides.verticalSizeClass = vertical
      graph.updateTraitsIfNeeded()
      view.layoutIfNeeded()
    }
    #expect(view.appliedLayouts == [.unspecified, .compact, .regular, .unspecified])
  }

  // MARK: - Threads

  @Test("a collection from a tracked closure read on another task afterwards records nothing")
  func collectionReadOnAnotherTask() async {
    let tree = TTTree()
    let tc = tree.a.track(.layout) {
      tree.a.traitCollection
    }
    let sizeClass = await Task.detached { tc.verticalSizeClass }.value
    #expect(sizeClass == .unspecified)

    tree.a.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)
    #expect(tree.a.invalidated.isEmpty)
  }

  @Test("a read on another thread during a tracked closure is not recorded")
  func readOnAnotherThreadDuringRun() {
    let tree = TTTree()
    tree.a.traitOverrides.verticalSizeClass = .regular
    let readThere = tree.a.track(.layout) {
      let tc = tree.a.traitCollection
      _ = tc.horizontalSizeClass
      return ttRunOnNewThread { tc.verticalSizeClass }
    }
    #expect(readThere == .regular)

    tree.a.traitOverrides.verticalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 0)

    tree.a.traitOverrides.horizontalSizeClass = .compact
    #expect(tree.invalidationsOfNextPass() == 1)
    #expect(tree.a.invalidated == [.layout])
  }
}

// MARK: - Views of the seed

/// Seed 004, "Track trait changes automatically", with the `UI` prefix dropped.
private final class TTMyView: TTView {
  override func layoutSubviews() {
    super.layoutSubviews()

    if traitCollection.horizontalSizeClass == .compact {
      // Apply compact layout.
    } else {
      // Apply regular layout.
    }
  }
}

/// Seed 004, "Migrate from deprecated methods": the `layoutSubviews()` replacement.
private final class TTMigratedView: TTView {
  var appliedLayouts: [UserInterfaceSizeClass] = []

  override func layoutSubviews() {
    super.layoutSubviews()

    updateLayout(traitCollection.horizontalSizeClass)
  }

  func updateLayout(_ sizeClass: UserInterfaceSizeClass) {
    appliedLayouts.append(sizeClass)
  }
}
