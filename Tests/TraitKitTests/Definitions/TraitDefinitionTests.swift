import Testing
import TraitKit

/// Two trait types that claim one identifier; only ever used inside an exit test.
private struct VTDuplicateIdentifierTraitA: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.vt.duplicate"
}

/// The second trait type with the identifier of ``VTDuplicateIdentifierTraitA``.
private struct VTDuplicateIdentifierTraitB: TraitDefinition {
  static let defaultValue = ""
  static let identifier = "com.traitkit.tests.vt.duplicate"
}

/// A custom trait that claims a system trait's identifier; only ever used inside an exit test.
private struct VTImpostorStyleTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "UITraitUserInterfaceStyle"
}

/// A generic trait: whether its `Value` is `Equatable` depends on the specialization, which its
/// conformance cannot see.
private struct VTLabelGenericTrait<V: Sendable & ExpressibleByStringLiteral>: TraitDefinition {
  static var defaultValue: V { "" }
}

/// A value that is not `Equatable`, for ``VTLabelGenericTrait``.
private struct VTOpaqueLabel: Sendable, ExpressibleByStringLiteral {
  let text: String
  init(stringLiteral text: String) { self.text = text }
}

/// A trait per phantom type `Tag`, so that a test can make new trait types as it runs.
private struct VTPhantomTrait<Tag>: TraitDefinition {
  static var defaultValue: Int { -1 }
}

/// Sets `VTPhantomTrait<Tag>`, `VTPhantomTrait<[Tag]>`, … (`depth` new traits) to their depth.
private func vtSetPhantomTraits<Tag>(
  _: Tag.Type,
  depth: Int,
  in traits: TraitCollection
) -> TraitCollection {
  guard depth > 0 else { return traits }
  let next = traits.replacing(VTPhantomTrait<Tag>.self, value: depth)
  return vtSetPhantomTraits([Tag].self, depth: depth - 1, in: next)
}

/// Whether `traits` holds what ``vtSetPhantomTraits(_:depth:in:)`` set.
private func vtHasPhantomTraits<Tag>(_: Tag.Type, depth: Int, in traits: TraitCollection) -> Bool {
  guard depth > 0 else { return true }
  return traits[VTPhantomTrait<Tag>.self] == depth
    && vtHasPhantomTraits([Tag].self, depth: depth - 1, in: traits)
}

/// The kinds of values that are not `Equatable`, each with a trait that holds it.
enum VTNonEquatableKind: String, CaseIterable, Sendable {
  case closure
  case smallStruct
  case largeStruct

  /// The one value of this kind that the tests write, again and again.
  static let handler: @Sendable () -> Int = { 7 }
  static let token = VTToken(raw: 7)
  static let payload = VTPayload(id: 7, name: "seven")

  var trait: any TraitDefinition.Type {
    switch self {
    case .closure: VTHandlerTrait.self
    case .smallStruct: VTTokenTrait.self
    case .largeStruct: VTPayloadTrait.self
    }
  }

  /// A new collection holding a new write of this kind's one value.
  func writeValue() -> TraitCollection {
    switch self {
    case .closure: TraitCollection(VTHandlerTrait.self, value: Self.handler)
    case .smallStruct: TraitCollection(VTTokenTrait.self, value: Self.token)
    case .largeStruct: TraitCollection(VTPayloadTrait.self, value: Self.payload)
    }
  }

  /// Writes this kind's one value into `traits`.
  func write(into traits: inout any MutableTraits) {
    switch self {
    case .closure: traits[VTHandlerTrait.self] = Self.handler
    case .smallStruct: traits[VTTokenTrait.self] = Self.token
    case .largeStruct: traits[VTPayloadTrait.self] = Self.payload
    }
  }

  /// Whether `collection` reads back this kind's one value.
  func readsValue(_ collection: TraitCollection) -> Bool {
    switch self {
    case .closure: collection[VTHandlerTrait.self]() == 7
    case .smallStruct: collection[VTTokenTrait.self].raw == 7
    case .largeStruct:
      collection[VTPayloadTrait.self].id == 7 && collection[VTPayloadTrait.self].name == "seven"
    }
  }
}

@Suite("Trait definitions")
struct TraitDefinitionTests {
  // MARK: - R1: identity by metatype

  @Test("two trait types with the same value type and default are different traits")
  func identityIsTheType() {
    let counted = TraitCollection(VTCountTrait.self, value: 3)
    #expect(counted[VTCountTrait.self] == 3)
    #expect(counted[VTOtherCountTrait.self] == 0)
    let other = TraitCollection(VTOtherCountTrait.self, value: 3)
    #expect(counted != other)
    #expect(
      vtIdentifiers(counted.changedTraits(from: other))
        == vtIdentifiers([VTCountTrait.self, VTOtherCountTrait.self])
    )
  }

  @Test("each specialization of a generic trait type is a trait of its own")
  func genericSpecializationsAreDistinct() {
    let traits = TraitCollection(VTGenericTrait<Int>.self, value: 5)
    #expect(traits[VTGenericTrait<Int>.self] == 5)
    #expect(traits[VTGenericTrait<Int32>.self] == 0)
    #expect(VTGenericTrait<Int>.identifier != VTGenericTrait<Int32>.identifier)
    #expect(
      ObjectIdentifier(VTGenericTrait<Int>.self) != ObjectIdentifier(VTGenericTrait<Int32>.self)
    )
  }

  @Test("a trait passed as an existential metatype keeps its identity")
  func existentialMetatypeIdentity() {
    let traits: [any TraitDefinition.Type] = [VTCountTrait.self, VTOtherCountTrait.self]
    #expect(ObjectIdentifier(traits[0]) == ObjectIdentifier(VTCountTrait.self))
    #expect(ObjectIdentifier(traits[1]) != ObjectIdentifier(VTCountTrait.self))
    let counted = TraitCollection(VTCountTrait.self, value: 1)
    let changed = counted.changedTraits(from: TraitCollection())
    #expect(changed.count == 1)
    #expect(changed.first.map(ObjectIdentifier.init) == ObjectIdentifier(traits[0]))
  }

  @Test("trait types first used by many tasks at once each get a slot of their own")
  func concurrentFirstUse() async {
    let depth = 10
    let collections = await withTaskGroup(of: TraitCollection.self) { group in
      group.addTask { vtSetPhantomTraits(Int.self, depth: depth, in: TraitCollection()) }
      group.addTask { vtSetPhantomTraits(String.self, depth: depth, in: TraitCollection()) }
      group.addTask { vtSetPhantomTraits(Double.self, depth: depth, in: TraitCollection()) }
      group.addTask { vtSetPhantomTraits(Bool.self, depth: depth, in: TraitCollection()) }
      var collections: [TraitCollection] = []
      for await collection in group { collections.append(collection) }
      return collections
    }
    let merged = TraitCollection(traitsFrom: collections)
    #expect(vtHasPhantomTraits(Int.self, depth: depth, in: merged))
    #expect(vtHasPhantomTraits(String.self, depth: depth, in: merged))
    #expect(vtHasPhantomTraits(Double.self, depth: depth, in: merged))
    #expect(vtHasPhantomTraits(Bool.self, depth: depth, in: merged))
    #expect(merged.changedTraits(from: TraitCollection()).count == 4 * depth)
    #expect(VTPhantomTrait<[Int]>.identifier != VTPhantomTrait<[[Int]]>.identifier)
  }

  // MARK: - Default witnesses

  @Test("name defaults to the name of the definition type")
  func defaultName() {
    #expect(VTFlagTrait.name == "VTFlagTrait")
    #expect(VTCountTrait.name == "VTCountTrait")
    #expect(VTGenericTrait<Int>.name == "VTGenericTrait<Int>")
    #expect(VTPhantomTrait<[Int]>.name == "VTPhantomTrait<Array<Int>>")
  }

  @Test("identifier defaults to the module-qualified name of the definition type")
  func defaultIdentifier() {
    #expect(VTFlagTrait.identifier == "TraitKitTests.VTFlagTrait")
    #expect(VTCountTrait.identifier == "TraitKitTests.VTCountTrait")
    #expect(VTGenericTrait<Int>.identifier == "TraitKitTests.VTGenericTrait<Swift.Int>")
    #expect(
      VTPhantomTrait<[Int]>.identifier == "TraitKitTests.VTPhantomTrait<Swift.Array<Swift.Int>>"
    )
  }

  // NB: an identifier is written to archives, so it must be the same in every process and
  // build. The runtime names the context of a private or local type by its address, "(unknown
  // context at $55aa9e9daab4)", which changes from one launch to the next, or in some builds by
  // its file's discriminator, "(VTPhantomTrait in _AA30E541…)".
  @Test("a private or local type's default identifier names no address or file discriminator")
  func privateAndLocalIdentifiersAreStable() {
    struct VTLocalTrait: TraitDefinition {
      static let defaultValue = 0
    }
    // Declared in a method of this suite: named as if declared in the suite.
    #expect(VTLocalTrait.identifier == "TraitKitTests.TraitDefinitionTests.VTLocalTrait")
    #expect(VTLocalTrait.name == "VTLocalTrait")
    #expect(
      VTPhantomTrait<VTPhantomTrait<Int>>.identifier
        == "TraitKitTests.VTPhantomTrait<TraitKitTests.VTPhantomTrait<Swift.Int>>"
    )
    // A tuple's and a function type's parentheses stay.
    #expect(
      VTPhantomTrait<(Int, String)>.identifier
        == "TraitKitTests.VTPhantomTrait<(Swift.Int, Swift.String)>"
    )
    #expect(
      VTPhantomTrait<(Int) -> Void>.identifier == "TraitKitTests.VTPhantomTrait<(Swift.Int) -> ()>"
    )
    #expect(VTPhantomTrait<(Int) -> Void>.name == "VTPhantomTrait<(Int) -> ()>")
  }

  @Test("affectsColorAppearance defaults to false")
  func defaultAffectsColorAppearance() {
    #expect(VTFlagTrait.affectsColorAppearance == false)
    #expect(VTGridTrait.affectsColorAppearance == false)
    #expect(VTHandlerTrait.affectsColorAppearance == false)
  }

  @Test("the default name appears in a collection's description")
  func defaultNameInDescription() {
    let description = TraitCollection(VTFlagTrait.self, value: true).description
    #expect(description.contains("VTFlagTrait"))
    #expect(description.contains("true"))
  }

  // MARK: - valuesEqual

  @Test("valuesEqual defaults to == for Equatable values")
  func valuesEqualDefaultsToEquality() {
    #expect(VTCountTrait.valuesEqual(4, 4))
    #expect(!VTCountTrait.valuesEqual(4, 5))
    #expect(VTLabelTrait.valuesEqual("a", "a"))
    #expect(!VTLabelTrait.valuesEqual("a", "b"))
    let grid = VTGrid(columns: 2, rows: 3, spacing: 4)
    #expect(VTGridTrait.valuesEqual(grid, grid))
    #expect(!VTGridTrait.valuesEqual(grid, VTGrid(columns: 2, rows: 3, spacing: 5)))
  }

  @Test("valuesEqual uses the value's own == rather than its bytes")
  func valuesEqualUsesTheValuesEquality() {
    let first = VTTagged(id: 1, cache: 10)
    let second = VTTagged(id: 1, cache: 20)
    #expect(VTTaggedTrait.valuesEqual(first, second))
    #expect(!VTTaggedTrait.valuesEqual(first, VTTagged(id: 2, cache: 10)))
    let lhs = TraitCollection(VTTaggedTrait.self, value: first)
    let rhs = TraitCollection(VTTaggedTrait.self, value: second)
    #expect(lhs == rhs)
    #expect(lhs.hashValue == rhs.hashValue)
    #expect(lhs.changedTraits(from: rhs).isEmpty)
  }

  @Test("a custom valuesEqual replaces == in comparisons")
  func customValuesEqual() {
    #expect(VTCaseInsensitiveTrait.valuesEqual("Dark", "dark"))
    let upper = TraitCollection(VTCaseInsensitiveTrait.self, value: "Dark")
    let lower = TraitCollection(VTCaseInsensitiveTrait.self, value: "dark")
    #expect(upper == lower)
    #expect(upper.changedTraits(from: lower).isEmpty)
    #expect(upper != TraitCollection(VTCaseInsensitiveTrait.self, value: "light"))
  }

  @Test("a custom valuesEqual decides whether a value equals the default")
  func customValuesEqualAndTheDefault() {
    let shouted = TraitCollection(VTCaseInsensitiveTrait.self, value: "NONE")
    #expect(shouted == TraitCollection())
    #expect(shouted.changedTraits(from: TraitCollection()).isEmpty)
  }

  @Test("a generic trait compares with == the values that are Equatable in its specialization")
  func genericTraitComparesEquatableSpecializations() {
    // Through the protocol, as the engine calls it: the conformance cannot see `Equatable`.
    func viaProtocol<T: TraitDefinition>(_: T.Type, _ lhs: T.Value, _ rhs: T.Value) -> Bool {
      T.valuesEqual(lhs, rhs)
    }
    #expect(viaProtocol(VTLabelGenericTrait<String>.self, "a", "a"))
    #expect(!viaProtocol(VTLabelGenericTrait<String>.self, "a", "b"))
    #expect(viaProtocol(VTLabelGenericTrait<Substring>.self, "a", "a"))
    #expect(!viaProtocol(VTLabelGenericTrait<VTOpaqueLabel>.self, "a", "a"))

    let first = TraitCollection(VTLabelGenericTrait<String>.self, value: "a")
    let second = TraitCollection(VTLabelGenericTrait<String>.self, value: "a")
    #expect(first == second)
    #expect(first.changedTraits(from: second).isEmpty)
    // R2: the default written explicitly is no value at all.
    #expect(TraitCollection(VTLabelGenericTrait<String>.self, value: "") == TraitCollection())
  }

  @Test("writing a generic trait's Equatable value an override already has calls no one (R3)")
  func genericTraitEqualWriteIsNoChange() {
    let graph = TraitGraph()
    let node = TraitNode()
    graph.root.addTraitChild(node)
    node.traitOverrides[VTLabelGenericTrait<String>.self] = "a"
    graph.updateTraitsIfNeeded()
    var calls = 0
    node.registerForTraitChanges([VTLabelGenericTrait<String>.self]) {
      (_: TraitNode, _: TraitCollection) in calls += 1
    }
    node.traitOverrides[VTLabelGenericTrait<String>.self] = "a"
    graph.updateTraitsIfNeeded()
    #expect(calls == 0)
    #expect(graph.statistics.lastPass.rounds == 0)
    node.traitOverrides[VTLabelGenericTrait<String>.self] = "b"
    graph.updateTraitsIfNeeded()
    #expect(calls == 1)
  }

  @Test("valuesEqual is false for values that are not Equatable, even for the same value")
  func valuesEqualWithoutEquatable() {
    let handler = VTNonEquatableKind.handler
    #expect(!VTHandlerTrait.valuesEqual(handler, handler))
    #expect(!VTTokenTrait.valuesEqual(VTNonEquatableKind.token, VTNonEquatableKind.token))
    #expect(!VTPayloadTrait.valuesEqual(VTNonEquatableKind.payload, VTNonEquatableKind.payload))
  }

  @Test(
    "writing a value that is not Equatable twice gives unequal collections",
    arguments: VTNonEquatableKind.allCases
  )
  func eachWriteIsAChange(kind: VTNonEquatableKind) {
    let first = kind.writeValue()
    let second = kind.writeValue()
    #expect(kind.readsValue(first))
    #expect(kind.readsValue(second))
    #expect(first != second)
    #expect(vtIdentifiers(first.changedTraits(from: second)) == vtIdentifiers([kind.trait]))

  }

  @Test(
    "writing a value that is not Equatable over itself is a change",
    arguments: VTNonEquatableKind.allCases
  )
  func rewriteIsAChange(kind: VTNonEquatableKind) {
    let first = kind.writeValue()
    let rewritten = first.modifyingTraits { kind.write(into: &$0) }
    #expect(kind.readsValue(rewritten))
    #expect(rewritten != first)
    #expect(vtIdentifiers(rewritten.changedTraits(from: first)) == vtIdentifiers([kind.trait]))

  }

  @Test(
    "a collection holding a value that is not Equatable equals itself and its copies",
    arguments: VTNonEquatableKind.allCases
  )
  func sameWriteIsEqual(kind: VTNonEquatableKind) {
    let traits = kind.writeValue()
    let copy = traits
    #expect(traits == traits)
    #expect(copy == traits)
    #expect(copy.hashValue == traits.hashValue)
    #expect(Set([traits, copy]).count == 1)
    #expect(traits.changedTraits(from: copy).isEmpty)
  }

  @Test(
    "a value that is not Equatable and was not rewritten is never a change",
    arguments: VTNonEquatableKind.allCases
  )
  func untouchedValueIsNoChange(kind: VTNonEquatableKind) {
    let base = kind.writeValue()
    let replaced = base.replacing(VTCountTrait.self, value: 3)
    let modified = base.modifyingTraits { $0[VTCountTrait.self] = 3 }
    let merged = TraitCollection(traitsFrom: [base, TraitCollection(VTCountTrait.self, value: 3)])
    #expect(replaced == modified)
    #expect(merged == replaced)
    #expect(vtIdentifiers(replaced.changedTraits(from: base)) == vtIdentifiers([VTCountTrait.self]))
    #expect(base.modifyingTraits { _ in } == base)
    #expect(base.containsTraits(in: base))
  }

  @Test("a custom valuesEqual lets writes of a value that is not Equatable compare equal")
  func customValuesEqualForNonEquatable() {
    let first = TraitCollection(VTIdentifiedTrait.self, value: VTIdentified(id: 1) { 1 })
    let second = TraitCollection(VTIdentifiedTrait.self, value: VTIdentified(id: 1) { 2 })
    let third = TraitCollection(VTIdentifiedTrait.self, value: VTIdentified(id: 2) { 1 })
    #expect(first == second)
    #expect(first.changedTraits(from: second).isEmpty)
    #expect(first != third)
    #expect(first[VTIdentifiedTrait.self].action() == 1)
  }

  // MARK: - Witness forms

  @Test("witnesses may be static lets")
  func staticLetWitnesses() {
    #expect(VTThemeTrait.defaultValue == .standard)
    #expect(VTThemeTrait.name == "Theme")
    #expect(VTThemeTrait.identifier == "com.traitkit.tests.vt.theme")
    #expect(VTThemeTrait.affectsColorAppearance)
    let themed = TraitCollection(VTThemeTrait.self, value: .bold)
    #expect(themed[VTThemeTrait.self] == .bold)
    #expect(themed.description.contains("Theme"))
    #expect(themed.hasDifferentColorAppearance(comparedTo: TraitCollection()))
  }

  @Test("witnesses may be computed static vars")
  func computedWitnesses() {
    #expect(VTComputedTrait.defaultValue == 42)
    #expect(VTComputedTrait.name == "ComputedTrait")
    #expect(VTComputedTrait.identifier == "com.traitkit.tests.vt.computed")
    #expect(VTComputedTrait.affectsColorAppearance)
    #expect(TraitCollection()[VTComputedTrait.self] == 42)
    let set = TraitCollection(VTComputedTrait.self, value: 7)
    #expect(set[VTComputedTrait.self] == 7)
    #expect(set.description.contains("ComputedTrait"))
    #expect(set.hasDifferentColorAppearance(comparedTo: TraitCollection()))
    #expect(TraitCollection(VTComputedTrait.self, value: 42) == TraitCollection())
  }

  @Test("witnesses may be stored static vars")
  func storedVarWitnesses() {
    #expect(VTStoredVarTrait.defaultValue == "stored")
    #expect(VTStoredVarTrait.name == "StoredVar")
    #expect(VTStoredVarTrait.identifier == "com.traitkit.tests.vt.stored-var")
    #expect(VTStoredVarTrait.affectsColorAppearance)
    #expect(TraitCollection()[VTStoredVarTrait.self] == "stored")
    let set = TraitCollection(VTStoredVarTrait.self, value: "other")
    #expect(set[VTStoredVarTrait.self] == "other")
    #expect(set.description.contains("StoredVar"))
    #expect(set.hasDifferentColorAppearance(comparedTo: TraitCollection()))
    #expect(TraitCollection(VTStoredVarTrait.self, value: "stored") == TraitCollection())
  }

  // MARK: - Programmer errors

  @Test("using two trait types that share an identifier traps")
  func duplicateIdentifiersTrap() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = TraitCollection(VTDuplicateIdentifierTraitA.self, value: 1)
      _ = TraitCollection(VTDuplicateIdentifierTraitB.self, value: "two")
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("com.traitkit.tests.vt.duplicate"))
    #expect(message.contains("VTDuplicateIdentifierTraitA"))
    #expect(message.contains("VTDuplicateIdentifierTraitB"))
  }

  @Test("two local trait types of one name share a default identifier, so using both traps")
  func sameNamedLocalTypesTrap() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      func first() -> TraitCollection {
        struct VTSameNameTrait: TraitDefinition { static let defaultValue = 0 }
        return TraitCollection(VTSameNameTrait.self, value: 1)
      }
      func second() -> TraitCollection {
        struct VTSameNameTrait: TraitDefinition { static let defaultValue = 0 }
        return TraitCollection(VTSameNameTrait.self, value: 2)
      }
      _ = first()
      _ = second()
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains(".VTSameNameTrait'"))
    #expect(message.contains("give one of them an explicit `identifier`"))
  }

  @Test("a custom trait that claims a system trait's identifier traps")
  func systemIdentifierClaimTraps() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = TraitCollection(VTImpostorStyleTrait.self, value: 1)
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("UITraitUserInterfaceStyle"))
    #expect(message.contains("VTImpostorStyleTrait"))
  }
}
