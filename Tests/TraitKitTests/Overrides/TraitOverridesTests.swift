import Testing
import TraitKit

/// The ways to write an override: through the node's property in place, by assigning a whole
/// `TraitOverrides` value back, or by assigning one to the property passed `inout`.
enum GTOverrideWrite: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case inPlace = "in place"
  case wholeValue = "as a whole value"
  case wholeValueInout = "as a whole value, to the property passed inout"

  var testDescription: String { rawValue }

  func setHorizontalSizeClass(_ value: UserInterfaceSizeClass, on node: TraitNode) {
    switch self {
    case .inPlace:
      node.traitOverrides.horizontalSizeClass = value
    case .wholeValue:
      var overrides = node.traitOverrides
      overrides.horizontalSizeClass = value
      node.traitOverrides = overrides
    case .wholeValueInout:
      var overrides = node.traitOverrides
      overrides.horizontalSizeClass = value
      gtAssign(&node.traitOverrides, overrides)
    }
  }
}

/// Assigns `value` to `target`, as a function that takes a node's overrides `inout` may.
private func gtAssign<Value>(_ target: inout Value, _ value: Value) {
  target = value
}

@Suite("Trait overrides")
struct TraitOverridesTests {
  // MARK: - Resolution (R3)

  @Test("a node's collection is its parent's collection with the node's overrides applied")
  func collectionIsParentWithOverrides() {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let child = GTNode("child")
    let grandchild = GTNode("grandchild")
    graph.root.addTraitChild(parent)
    parent.addTraitChild(child)
    child.addTraitChild(grandchild)

    parent.traitOverrides.horizontalSizeClass = .compact
    parent.traitOverrides.userInterfaceStyle = .dark
    child.traitOverrides.userInterfaceStyle = .light
    child.traitOverrides[GTThemeTrait.self] = 3

    let expectedChild = parent.traitCollection.modifyingTraits { traits in
      traits.userInterfaceStyle = .light
      traits[GTThemeTrait.self] = 3
    }
    #expect(child.traitCollection == expectedChild)
    #expect(child.traitCollection.horizontalSizeClass == .compact)
    #expect(child.traitCollection.userInterfaceStyle == .light)
    #expect(child.traitCollection[GTThemeTrait.self] == 3)
    #expect(grandchild.traitCollection == child.traitCollection)
    #expect(parent.traitCollection.userInterfaceStyle == .dark)
    #expect(parent.traitCollection[GTThemeTrait.self] == 0)
  }

  @Test("an override affects its node's subtree and not the node's siblings or parent")
  func overrideScope() {
    let graph = TraitGraph()
    let left = GTNode("left")
    let right = GTNode("right")
    let leftChild = GTNode("left child")
    graph.root.gtAdd(left, right)
    left.addTraitChild(leftChild)

    left.traitOverrides.verticalSizeClass = .regular

    #expect(left.traitCollection.verticalSizeClass == .regular)
    #expect(leftChild.traitCollection.verticalSizeClass == .regular)
    #expect(right.traitCollection.verticalSizeClass == .unspecified)
    #expect(graph.root.traitCollection.verticalSizeClass == .unspecified)
  }

  @Test("the root starts from the graph's base traits and applies its own overrides on top")
  func rootStartsFromBaseTraits() {
    let base = TraitCollection { traits in
      traits.horizontalSizeClass = .regular
      traits.userInterfaceIdiom = .pad
    }
    let graph = TraitGraph(baseTraits: base)
    let child = GTNode("child")
    graph.root.addTraitChild(child)

    #expect(graph.root.traitCollection == base)
    graph.root.traitOverrides.horizontalSizeClass = .compact

    #expect(graph.root.traitCollection.horizontalSizeClass == .compact)
    #expect(graph.root.traitCollection.userInterfaceIdiom == .pad)
    #expect(child.traitCollection.horizontalSizeClass == .compact)
    #expect(child.traitCollection.userInterfaceIdiom == .pad)
  }

  // MARK: - Overrides to the default value

  @Test("an override set to the default value is contained and masks the inherited value")
  func defaultValueOverrideMasks() {
    let graph = TraitGraph()
    let child = GTNode("child")
    let grandchild = GTNode("grandchild")
    graph.root.addTraitChild(child)
    child.addTraitChild(grandchild)
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.root.traitOverrides[GTThemeTrait.self] = 7

    child.traitOverrides.horizontalSizeClass = .unspecified
    child.traitOverrides[GTThemeTrait.self] = GTThemeTrait.defaultValue

    #expect(child.traitOverrides.contains(TraitHorizontalSizeClass.self))
    #expect(child.traitOverrides.contains(GTThemeTrait.self))
    #expect(child.traitOverrides.value(for: TraitHorizontalSizeClass.self) == .unspecified)
    #expect(child.traitOverrides.value(for: GTThemeTrait.self) == 0)
    #expect(child.traitOverrides.horizontalSizeClass == .unspecified)
    #expect(child.traitCollection.horizontalSizeClass == .unspecified)
    #expect(child.traitCollection[GTThemeTrait.self] == 0)
    #expect(grandchild.traitCollection.horizontalSizeClass == .unspecified)
    #expect(grandchild.traitCollection[GTThemeTrait.self] == 0)
  }

  @Test("an override to the default value keeps masking when the inherited value changes later")
  func defaultValueOverrideMasksLaterChanges() async {
    let graph = TraitGraph()
    let child = GTNode("child")
    graph.root.addTraitChild(child)
    child.traitOverrides.horizontalSizeClass = .unspecified
    graph.updateTraitsIfNeeded()

    await confirmation("the shielded registration is never called", expectedCount: 0) { called in
      child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        called()
      }
      graph.root.traitOverrides.horizontalSizeClass = .regular
      graph.updateTraitsIfNeeded()
      graph.root.traitOverrides.horizontalSizeClass = .compact
      graph.updateTraitsIfNeeded()
    }
    #expect(child.traitCollection.horizontalSizeClass == .unspecified)
  }

  @Test("a registration is called when an override to the default value masks an inherited value")
  func defaultValueOverrideIsAChange() {
    let graph = TraitGraph()
    let child = GTNode("child")
    graph.root.addTraitChild(child)
    graph.root.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    var previous: [UserInterfaceSizeClass] = []
    child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, previousTraitCollection: TraitCollection) in
      previous.append(previousTraitCollection.horizontalSizeClass)
    }

    child.traitOverrides.horizontalSizeClass = .unspecified
    graph.updateTraitsIfNeeded()

    #expect(previous == [.compact])
    #expect(child.traitCollection.horizontalSizeClass == .unspecified)
  }

  // MARK: - Equal writes

  @Test(
    "writing the value an override already has invalidates nothing and calls nobody",
    arguments: GTOverrideWrite.allCases
  )
  func equalWriteIsNoOp(write: GTOverrideWrite) {
    let graph = TraitGraph()
    let child = GTNode("child")
    let grandchild = GTNode("grandchild")
    graph.root.addTraitChild(child)
    child.addTraitChild(grandchild)
    child.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    var needsUpdate = 0
    graph.onNeedsUpdate = { needsUpdate += 1 }
    var calls = 0
    for node in [child, grandchild] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (_: GTNode, _: TraitCollection) in
        calls += 1
      }
    }

    write.setHorizontalSizeClass(.compact, on: child)

    #expect(needsUpdate == 0)
    graph.updateTraitsIfNeeded()
    #expect(calls == 0)
    #expect(graph.statistics.lastPass.nodesVisited == 0)
    #expect(graph.statistics.lastPass.rounds == 0)
    #expect(graph.statistics.lastPass.callbacksDelivered == 0)
    #expect(child.traitOverrides.value(for: TraitHorizontalSizeClass.self) == .compact)
  }

  @Test(
    "a different write after an equal one still invalidates and is delivered",
    arguments: GTOverrideWrite.allCases
  )
  func changedWriteAfterEqualWrite(write: GTOverrideWrite) {
    let graph = TraitGraph()
    let child = GTNode("child")
    graph.root.addTraitChild(child)
    child.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    var needsUpdate = 0
    graph.onNeedsUpdate = { needsUpdate += 1 }
    var previous: [UserInterfaceSizeClass] = []
    child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, previousTraitCollection: TraitCollection) in
      previous.append(previousTraitCollection.horizontalSizeClass)
    }

    write.setHorizontalSizeClass(.compact, on: child)
    write.setHorizontalSizeClass(.regular, on: child)
    #expect(needsUpdate == 1)
    graph.updateTraitsIfNeeded()

    #expect(previous == [.compact])
    #expect(child.traitCollection.horizontalSizeClass == .regular)
  }

  @Test("adding an override equal to the inherited value is contained but calls nobody")
  func overrideEqualToInheritedValue() {
    let graph = TraitGraph()
    let child = GTNode("child")
    graph.root.addTraitChild(child)
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    var calls = 0
    child.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: GTNode, _: TraitCollection) in
      calls += 1
    }

    child.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()

    #expect(child.traitOverrides.contains(TraitUserInterfaceStyle.self))
    #expect(calls == 0)
    graph.root.traitOverrides.userInterfaceStyle = .light
    graph.updateTraitsIfNeeded()
    #expect(calls == 0)
    #expect(child.traitCollection.userInterfaceStyle == .dark)
  }

  @Test("an override compares and stores its value under the trait's own equality")
  func overrideUnderTheTraitsEquality() {
    // Values equal to the default under the trait's equality are stored as the default; a write
    // equal to the override's value changes nothing, not even the bits.
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    var previousValues: [Int] = []
    node.registerForTraitChanges([OTLastDigitTrait.self]) {
      (_: GTNode, previous: TraitCollection) in
      previousValues.append(previous[OTLastDigitTrait.self])
    }

    node.traitOverrides[OTLastDigitTrait.self] = 20
    graph.updateTraitsIfNeeded()
    #expect(node.traitOverrides.contains(OTLastDigitTrait.self))
    #expect(node.traitOverrides[OTLastDigitTrait.self] == 0)
    node.traitOverrides[OTLastDigitTrait.self] = 13
    graph.updateTraitsIfNeeded()
    node.traitOverrides[OTLastDigitTrait.self] = 23
    graph.updateTraitsIfNeeded()
    #expect(node.traitCollection[OTLastDigitTrait.self] == 13)
    node.traitOverrides[OTLastDigitTrait.self] = 30
    graph.updateTraitsIfNeeded()

    #expect(node.traitOverrides[OTLastDigitTrait.self] == 0)
    #expect(previousValues == [0, 13])
  }

  @Test("an override of a trait's default beyond the collection's slots applies with the others")
  func defaultOverrideBeyondTheSlots() {
    // The far trait registers after the near one, so its slot comes after the near one's; an
    // override of its default is not stored, so no collection has its slot. Each refresh then
    // copies the near override into a collection with fewer slots than the far trait's index
    // (internal checks: "a slot is copied within the collection's slots").
    #expect(TraitCollection()[OTNearTrait.self] == 0)
    #expect(TraitCollection()[OTFarTrait.self] == 0)
    let graph = TraitGraph()
    let node = GTNode("node")
    graph.root.addTraitChild(node)
    node.traitOverrides[OTFarTrait.self] = 0
    var seen: [Int] = []
    node.registerForTraitChanges([OTNearTrait.self]) { (node: GTNode, _: TraitCollection) in
      seen.append(node.traitCollection[OTNearTrait.self])
    }
    // NB: more refreshes than the graph keeps spare collections, so that they are reused.
    for value in 1...64 {
      node.traitOverrides[OTNearTrait.self] = value
      graph.updateTraitsIfNeeded()
    }
    #expect(seen == Array(1...64))
    #expect(node.traitOverrides.contains(OTFarTrait.self))
    #expect(node.traitCollection[OTFarTrait.self] == 0)
  }

  @Test("an override of a value that is not Equatable is a change at every write, never untouched")
  func nonEquatableOverrides() {
    let graph = TraitGraph()
    let node = GTNode("node")
    let child = GTNode("child")
    graph.root.addTraitChild(node)
    node.addTraitChild(child)
    graph.updateTraitsIfNeeded()
    var labels: [String] = []
    child.registerForTraitChanges([GTOpaqueTrait.self]) {
      (child: GTNode, previous: TraitCollection) in
      labels.append(
        "\(previous[GTOpaqueTrait.self].label) → "
          + child.traitCollection[GTOpaqueTrait.self].label
      )
    }

    node.traitOverrides[GTOpaqueTrait.self] = GTOpaqueValue(label: "a")
    graph.updateTraitsIfNeeded()
    node.traitOverrides[GTOpaqueTrait.self] = GTOpaqueValue(label: "a")
    graph.updateTraitsIfNeeded()
    node.traitOverrides.horizontalSizeClass = .compact
    child.traitOverrides[GTThemeTrait.self] = 1
    graph.updateTraitsIfNeeded()

    #expect(labels == ["default → a", "a → a"])
  }

  @Test("assigning one node's overrides to another applies all of them at once")
  func assigningOverridesBetweenNodes() {
    let graph = TraitGraph()
    let source = GTNode("source")
    let destination = GTNode("destination")
    graph.root.gtAdd(source, destination)
    source.traitOverrides.horizontalSizeClass = .compact
    source.traitOverrides.userInterfaceStyle = .unspecified
    source.traitOverrides[GTThemeTrait.self] = 6
    graph.root.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    var calls = 0
    destination.registerForTraitChanges([
      TraitHorizontalSizeClass.self, TraitUserInterfaceStyle.self, GTThemeTrait.self,
    ]) { (_: GTNode, _: TraitCollection) in
      calls += 1
    }

    destination.traitOverrides = source.traitOverrides
    graph.updateTraitsIfNeeded()

    #expect(destination.traitCollection == source.traitCollection)
    #expect(destination.traitOverrides.contains(TraitUserInterfaceStyle.self))
    #expect(destination.traitCollection.userInterfaceStyle == .unspecified)
    #expect(calls == 1)
  }

  @Test("swapping two nodes' overrides applies each node's new overrides at once and tells both")
  func swappingOverridesBetweenNodes() {
    let graph = TraitGraph()
    let a = GTNode("a")
    let b = GTNode("b")
    graph.root.gtAdd(a, b)
    a.traitOverrides.userInterfaceStyle = .dark
    b.traitOverrides.userInterfaceStyle = .light
    b.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    var seen: [String] = []
    for node in [a, b] {
      node.registerForTraitChanges([TraitUserInterfaceStyle.self, TraitHorizontalSizeClass.self]) {
        (node: GTNode, previous: TraitCollection) in
        seen.append(
          "\(node.name) \(previous.userInterfaceStyle)→\(node.traitCollection.userInterfaceStyle)"
        )
      }
    }

    swap(&a.traitOverrides, &b.traitOverrides)

    #expect(a.traitCollection.userInterfaceStyle == .light)
    #expect(a.traitCollection.horizontalSizeClass == .compact)
    #expect(b.traitCollection.userInterfaceStyle == .dark)
    #expect(b.traitCollection.horizontalSizeClass == .unspecified)
    graph.updateTraitsIfNeeded()
    #expect(seen == ["a dark→light", "b light→dark"])
    // The nodes follow their new overrides from now on, written in place.
    a.traitOverrides.userInterfaceStyle = .dark
    #expect(a.traitCollection.userInterfaceStyle == .dark)
  }

  @Test("overrides replaced whole through inout while the node is stale tell each registration")
  func wholeReplacementOfStaleNode() {
    let graph = TraitGraph()
    let parent = GTNode("parent")
    let node = GTNode("node")
    graph.root.addTraitChild(parent)
    parent.addTraitChild(node)
    node.traitOverrides.userInterfaceStyle = .dark
    graph.updateTraitsIfNeeded()
    var calls: [String] = []
    node.registerForTraitChanges([TraitUserInterfaceStyle.self]) {
      (_: GTNode, _: TraitCollection) in
      calls.append("style")
    }
    node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      calls.append("size class")
    }

    // The parent's change leaves the node's collection stale when its overrides are replaced.
    parent.traitOverrides.horizontalSizeClass = .compact
    let donor = TraitNode()
    donor.traitOverrides.horizontalSizeClass = .regular
    gtAssign(&node.traitOverrides, donor.traitOverrides)

    #expect(node.traitCollection.userInterfaceStyle == .unspecified)
    #expect(node.traitCollection.horizontalSizeClass == .regular)
    graph.updateTraitsIfNeeded()
    #expect(calls == ["style", "size class"])
  }

  @Test("the description lists each override by its trait's name, an override to the default too")
  func overridesDescription() {
    let node = TraitNode()
    node.traitOverrides.userInterfaceStyle = .dark
    node.traitOverrides.horizontalSizeClass = .unspecified
    let description = node.traitOverrides.description
    #expect(description.hasPrefix("TraitOverrides("))
    #expect(description.contains("UserInterfaceStyle = dark"))
    #expect(description.contains("HorizontalSizeClass = unspecified"))
    #expect(TraitNode().traitOverrides.description == "TraitOverrides()")
  }

  // MARK: - Removal

  @Test("removing an override restores the inherited value and tells registrations")
  func removeRestoresInheritedValue() {
    let graph = TraitGraph()
    let child = GTNode("child")
    let grandchild = GTNode("grandchild")
    graph.root.addTraitChild(child)
    child.addTraitChild(grandchild)
    graph.root.traitOverrides.horizontalSizeClass = .regular
    child.traitOverrides.horizontalSizeClass = .compact
    graph.updateTraitsIfNeeded()
    var previous: [String] = []
    for node in [child, grandchild] {
      node.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
        (node: GTNode, previousTraitCollection: TraitCollection) in
        previous.append("\(node.name): \(previousTraitCollection.horizontalSizeClass)")
      }
    }

    child.traitOverrides.remove(TraitHorizontalSizeClass.self)

    #expect(!child.traitOverrides.contains(TraitHorizontalSizeClass.self))
    #expect(child.traitOverrides.value(for: TraitHorizontalSizeClass.self) == nil)
    #expect(child.traitCollection.horizontalSizeClass == .regular)
    #expect(grandchild.traitCollection.horizontalSizeClass == .regular)
    graph.updateTraitsIfNeeded()
    #expect(previous == ["child: compact", "grandchild: compact"])
  }

  @Test("removing an override that is not set invalidates nothing")
  func removeUnsetOverrideIsNoOp() {
    let graph = TraitGraph()
    let child = GTNode("child")
    graph.root.addTraitChild(child)
    graph.root.traitOverrides.horizontalSizeClass = .regular
    graph.updateTraitsIfNeeded()
    var needsUpdate = 0
    graph.onNeedsUpdate = { needsUpdate += 1 }
    var calls = 0
    child.registerForTraitChanges([TraitHorizontalSizeClass.self]) {
      (_: GTNode, _: TraitCollection) in
      calls += 1
    }

    child.traitOverrides.remove(TraitHorizontalSizeClass.self)
    child.traitOverrides.remove(GTFlagTrait.self)

    #expect(needsUpdate == 0)
    graph.updateTraitsIfNeeded()
    #expect(calls == 0)
    #expect(graph.statistics.lastPass.nodesVisited == 0)
    #expect(child.traitCollection.horizontalSizeClass == .regular)
  }

  @Test("an override removed and set again between passes to its old value fires nothing")
  func removeAndRestoreBetweenPasses() {
    let graph = TraitGraph()
    let child = GTNode("child")
    graph.root.addTraitChild(child)
    child.traitOverrides[GTThemeTrait.self] = 4
    graph.updateTraitsIfNeeded()
    var calls = 0
    child.registerForTraitChanges([GTThemeTrait.self]) { (_: GTNode, _: TraitCollection) in
      calls += 1
    }

    child.traitOverrides.remove(GTThemeTrait.self)
    #expect(child.traitCollection[GTThemeTrait.self] == 0)
    child.traitOverrides[GTThemeTrait.self] = 4
    graph.updateTraitsIfNeeded()

    #expect(calls == 0)
    #expect(child.traitCollection[GTThemeTrait.self] == 4)
  }

  // MARK: - Reading overrides

  @Test("value(for:) returns nil, without trapping, for a trait that has no override")
  func valueForUnsetTraitIsNil() {
    let node = TraitNode()
    #expect(node.traitOverrides.value(for: TraitHorizontalSizeClass.self) == nil)
    #expect(node.traitOverrides.value(for: GTFlagTrait.self) == nil)
    #expect(!node.traitOverrides.contains(GTFlagTrait.self))

    node.traitOverrides[GTFlagTrait.self] = true
    #expect(node.traitOverrides.value(for: GTFlagTrait.self) == true)
    #expect(node.traitOverrides[GTFlagTrait.self] == true)

    node.traitOverrides.remove(GTFlagTrait.self)
    #expect(node.traitOverrides.value(for: GTFlagTrait.self) == nil)
  }

  @Test("reading an unset override through the subscript traps and names the trait")
  func subscriptReadOfUnsetOverrideTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      node.traitOverrides.verticalSizeClass = .compact
      _ = node.traitOverrides[TraitHorizontalSizeClass.self]
    }
    let standardError = gtStandardError(result)
    #expect(
      standardError.contains(
        "Can't return value for trait HorizontalSizeClass that has no override"
      )
    )
  }

  @Test("reading an unset override through a named property traps too, with the same message")
  func propertyReadOfUnsetOverrideTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      _ = node.traitOverrides.userInterfaceStyle
    }
    #expect(
      gtStandardError(result).contains(
        "Can't return value for trait UserInterfaceStyle that has no override"
      )
    )
  }

  @Test("a key-path write of an unset override traps with a message that says to assign instead")
  func keyPathWriteOfUnsetOverrideTraps() async {
    let result = await #expect(
      processExitsWith: .failure,
      observing: [\.standardErrorContent]
    ) {
      let node = TraitNode()
      node[keyPath: \TraitNode.traitOverrides.userInterfaceStyle] = .dark
    }
    #expect(
      gtStandardError(result).contains(
        "(a key-path write or an in-place change reads it first: assign the value instead)"
      )
    )
  }
}

/// An `Int` trait whose values are equal when their last digits are.
struct OTLastDigitTrait: TraitDefinition {
  static let defaultValue = 0

  static func valuesEqual(_ lhs: Int, _ rhs: Int) -> Bool { lhs % 10 == rhs % 10 }
}

/// A trait that `defaultOverrideBeyondTheSlots` registers before `OTFarTrait`.
struct OTNearTrait: TraitDefinition {
  static let defaultValue = 0
}

/// A trait that `defaultOverrideBeyondTheSlots` registers after `OTNearTrait`.
struct OTFarTrait: TraitDefinition {
  static let defaultValue = 0
}
