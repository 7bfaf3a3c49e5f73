import Foundation
import Testing
import TraitKit

// Fixtures of the reliability suites (Reliability/): the traits the differential test drives,
// the traits the decoding fuzz encodes, a seeded generator and the run sizes read from the
// environment. Every type here starts with `RM` so that it cannot clash with other suites'.

// MARK: - Graph traits

/// The first of four small `Int` traits of the differential test; values are 0, 1 and 2.
struct RMAlphaTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.rm.alpha"
}

/// The second small `Int` trait of the differential test.
struct RMBetaTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.rm.beta"
}

/// The third small `Int` trait of the differential test.
struct RMGammaTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.rm.gamma"
}

/// The fourth small `Int` trait of the differential test.
struct RMDeltaTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.rm.delta"
}

/// A value without `Equatable`: each write of it is a change (DESIGN R1).
struct RMStamp: Sendable {
  /// Tells writes apart in the model; the engine never sees it.
  let serial: Int
}

/// A trait whose values are not `Equatable`.
struct RMStampTrait: TraitDefinition {
  static let defaultValue = RMStamp(serial: 0)
  static let identifier = "com.traitkit.tests.rm.stamp"
}

/// The traits the differential test drives, as plain numbers the model can compare.
///
/// Each value is a small `Int`: the index of a case in a fixed list for the system traits, the
/// value itself for the custom ones, and the serial of the write for ``RMStampTrait``, whose
/// default reads as 0.
enum RMTraitID: Int, CaseIterable, Sendable, Hashable, CustomStringConvertible {
  case alpha
  case beta
  case gamma
  case delta
  case style
  case contrast
  case sizeClass
  case stamp

  /// The number of traits, the length of the model's value arrays.
  static let count = allCases.count

  /// The values every trait has where nothing sets it.
  static let defaults = [Int](repeating: 0, count: count)

  /// The styles a style value indexes.
  static let styles: [UserInterfaceStyle] = [.unspecified, .light, .dark]
  /// The contrasts a contrast value indexes.
  static let contrasts: [AccessibilityContrast] = [.unspecified, .normal, .high]
  /// The size classes a size class value indexes.
  static let sizeClasses: [UserInterfaceSizeClass] = [.unspecified, .compact, .regular]

  var description: String {
    switch self {
    case .alpha: "alpha"
    case .beta: "beta"
    case .gamma: "gamma"
    case .delta: "delta"
    case .style: "style"
    case .contrast: "contrast"
    case .sizeClass: "sizeClass"
    case .stamp: "stamp"
    }
  }

  /// The trait's definition type.
  var definition: any TraitDefinition.Type {
    switch self {
    case .alpha: RMAlphaTrait.self
    case .beta: RMBetaTrait.self
    case .gamma: RMGammaTrait.self
    case .delta: RMDeltaTrait.self
    case .style: TraitUserInterfaceStyle.self
    case .contrast: TraitAccessibilityContrast.self
    case .sizeClass: TraitHorizontalSizeClass.self
    case .stamp: RMStampTrait.self
    }
  }

  /// The trait's value in `collection`, as a number.
  func value(in collection: TraitCollection) -> Int {
    switch self {
    case .alpha: collection[RMAlphaTrait.self]
    case .beta: collection[RMBetaTrait.self]
    case .gamma: collection[RMGammaTrait.self]
    case .delta: collection[RMDeltaTrait.self]
    case .style: Self.styles.firstIndex(of: collection.userInterfaceStyle) ?? -1
    case .contrast: Self.contrasts.firstIndex(of: collection.accessibilityContrast) ?? -1
    case .sizeClass: Self.sizeClasses.firstIndex(of: collection.horizontalSizeClass) ?? -1
    case .stamp: collection[RMStampTrait.self].serial
    }
  }

  /// Writes the value numbered `value` into `traits`.
  func write(_ value: Int, into traits: inout some MutableTraits) {
    switch self {
    case .alpha: traits[RMAlphaTrait.self] = value
    case .beta: traits[RMBetaTrait.self] = value
    case .gamma: traits[RMGammaTrait.self] = value
    case .delta: traits[RMDeltaTrait.self] = value
    case .style: traits.userInterfaceStyle = Self.styles[value]
    case .contrast: traits.accessibilityContrast = Self.contrasts[value]
    case .sizeClass: traits.horizontalSizeClass = Self.sizeClasses[value]
    case .stamp: traits[RMStampTrait.self] = RMStamp(serial: value)
    }
  }

  /// The values of every trait in `collection`, indexed by raw value.
  static func values(in collection: TraitCollection) -> [Int] {
    allCases.map { $0.value(in: collection) }
  }
}

/// A semantic set of system traits that a registration can name as a whole.
enum RMSemanticSet: Int, CaseIterable, Sendable, Hashable, CustomStringConvertible {
  case colorAppearance
  case imageLookup

  var description: String {
    switch self {
    case .colorAppearance: "colorAppearance"
    case .imageLookup: "imageLookup"
    }
  }

  /// The set's traits, as TraitKit lists them.
  var traits: [any TraitDefinition.Type] {
    switch self {
    case .colorAppearance: TraitCollection.systemTraitsAffectingColorAppearance
    case .imageLookup: TraitCollection.systemTraitsAffectingImageLookup
    }
  }

  /// The members of the set among the traits the differential test changes; the others keep
  /// their defaults throughout.
  var modelTraits: [RMTraitID] {
    switch self {
    case .colorAppearance: [.style, .contrast]
    case .imageLookup: [.style, .contrast, .sizeClass]
    }
  }
}

// MARK: - Objects

/// A node of the differential test: a plain node with the number the model knows it by.
final class RMNode: TraitNode {
  let id: Int

  init(id: Int) {
    self.id = id
    super.init()
  }
}

/// A target of target-action registrations, held weakly by the engine.
final class RMTarget {
  let id: Int

  init(id: Int) {
    self.id = id
  }
}

/// A weak reference, to watch an object's lifetime.
struct RMWeak<Object: AnyObject> {
  weak var object: Object?
}

// MARK: - Randomness

/// A seeded generator (SplitMix64): the same seed gives the same sequence on every platform.
struct RMRandom: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in `0..<bound`.
  mutating func below(_ bound: Int) -> Int {
    Int(next(upperBound: UInt64(bound)))
  }

  /// `true` with probability `percent`/100.
  mutating func chance(_ percent: Int) -> Bool {
    below(100) < percent
  }

  /// A random element of a non-empty array.
  mutating func pick<Element>(_ elements: [Element]) -> Element {
    elements[below(elements.count)]
  }

  /// The seed of the `index`th case derived from `base`: seeds of neighbouring cases share no
  /// structure.
  static func seed(base: UInt64, index: Int) -> UInt64 {
    var random = RMRandom(seed: base ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
    return random.next()
  }
}

// MARK: - Known engine bugs

/// Engine bugs that the differential test found and that named regression tests document (the
/// suite "Engine bugs found by the differential test", in `Reliability/DifferentialTests.swift`).
///
/// While a bug is open (in ``open``), the default run steers around it — the generator stops
/// making the steps that trigger it, or the model and the engine driver both skip them — so
/// that the test keeps finding new bugs instead of the same one, and its regression tests wrap
/// their expectations in `withKnownIssue`. Once the engine is fixed, take the bug out of
/// ``open`` and unwrap its tests; the case stays, marked fixed, so that `TRAITKIT_KNOWN_BUGS`
/// can still steer around it when testing an engine from before the fix.
struct RMKnownBugs: OptionSet, Sendable, CustomStringConvertible {
  let rawValue: Int

  /// Fixed: a registration that a handler makes on a node the round already reached was dropped
  /// from the observed summaries when the walk left that node's ancestors.
  ///
  /// Later changes above it are then dropped. Avoided by skipping, on both sides, the handler
  /// registrations anywhere but at the handler's own node or below it.
  static let registrationsBehindTheWalk = RMKnownBugs(rawValue: 1 << 0)

  /// Fixed: a change that a handler made at its own node or above reached some later nodes only
  /// in the next round: the later children of an ancestor it changed, and the descendants
  /// (below the children) of the node whose handler runs.
  ///
  /// Avoided by skipping, on both sides, the handler changes at or above the node of a running
  /// handler.
  static let handlerChangesAboveTheirNode = RMKnownBugs(rawValue: 1 << 1)

  /// Fixed: a change that a handler made to the graph's base traits during a subtree pass
  /// reached the node's later registrations only in the next round (a full pass was right).
  ///
  /// Avoided by skipping, on both sides, the base-trait changes of handlers.
  static let baseChangesInSubtreePasses = RMKnownBugs(rawValue: 1 << 2)

  /// Fixed: a node that a handler detached while the walk was in it (the node being visited, an
  /// ancestor of it, or a subtree pass's start) still heard of changes in that pass: the walk
  /// went on through the detached subtree and called its registrations (R10).
  ///
  /// Avoided by skipping, on both sides, the handler detachments of a node that a running walk
  /// is in.
  static let detachedNodesHearDuringThePass = RMKnownBugs(rawValue: 1 << 3)

  /// Fixed: a node that the round passed without entering it was called in the same round when
  /// the walk came back to it.
  ///
  /// The round passes a node without entering it when nothing it observes was pending. The walk
  /// came back to it after a handler changed the children of a node on the walk's path (the
  /// walk starts that node's children over), or moved it ahead of the walk. A node the round
  /// entered waited for the next round in both cases, as R5 says for changes behind the walk; so
  /// the round of a callback depended on whether a value changed and changed back before the
  /// pass.
  ///
  /// Avoided by skipping, on both sides, the handler tree changes that change the children of
  /// a node on a running walk's path, and the moves ahead of the walk of a subtree that holds
  /// a node the round passed without calling anything there or below.
  static let passedNodesCalledInTheSameRound = RMKnownBugs(rawValue: 1 << 4)

  /// Fixed: a pass invalidated a slot a second time after a pass nested in it had invalidated it.
  ///
  /// The nested pass is another graph's, which an invalidation or a handler runs. The outer pass
  /// invalidated the slot again when it visited another node whose change the slot read: the
  /// slot's record keeps only the last pass that invalidated it (R11: at most once per pass).
  /// Found by the tracking test with changes in runs; repro in `NestedPassInvalidationTests`.
  /// The record now keeps the passes around that invalidated it, while they run.
  ///
  /// Avoided by that test's oracle, which then allows one more invalidation of the slot in the
  /// outer pass (still checked against the values the slot read).
  static let nestedPassesForgetOuterInvalidations = RMKnownBugs(rawValue: 1 << 5)

  /// Fixed: a round marked every node on its walk's path as having a pending change below it when
  /// it left a change pending at a node it went past, a node that a handler moved off that path
  /// since included.
  ///
  /// Such a node, moved into another graph (or elsewhere), then claimed a pending change below it
  /// that its new ancestors did not: the marks of later changes below it stopped there, the
  /// graph's root never heard of them, and its passes found nothing to do — registrations and
  /// slots there missed those changes, and the graph asked for no pass that would deliver them
  /// (R5, R10, R11). Found by the tracking test with changes in runs once invalidations took
  /// nodes to the other graph and back; repro in `MovedWalkPathTests`. The round now marks the
  /// node's ancestors as they are.
  ///
  /// Avoided by that test's generator, which, while a pass runs, then moves and detaches no node
  /// that has had children since the passes began (any of them may be on a walk's path).
  static let walkPathMarksMovedNodes = RMKnownBugs(rawValue: 1 << 6)

  /// Every known bug, with its name.
  static let named: [(bug: RMKnownBugs, name: String)] = [
    (.registrationsBehindTheWalk, "registrationsBehindTheWalk"),
    (.handlerChangesAboveTheirNode, "handlerChangesAboveTheirNode"),
    (.baseChangesInSubtreePasses, "baseChangesInSubtreePasses"),
    (.detachedNodesHearDuringThePass, "detachedNodesHearDuringThePass"),
    (.passedNodesCalledInTheSameRound, "passedNodesCalledInTheSameRound"),
    (.nestedPassesForgetOuterInvalidations, "nestedPassesForgetOuterInvalidations"),
    (.walkPathMarksMovedNodes, "walkPathMarksMovedNodes"),
  ]

  /// The bugs still open, which the default run steers around.
  static let open: RMKnownBugs = []

  static let all = RMKnownBugs(named.map(\.bug))

  var description: String {
    let avoided = Self.named.filter { contains($0.bug) }.map(\.name)
    return avoided.isEmpty ? "no known bugs" : avoided.joined(separator: ", ")
  }
}

// MARK: - Sliced runs

/// Checks the sequences numbered `first + slice`, then every `slices`th one below `count`, with
/// `check`, which returns a report of a sequence that failed, or nil; records each report as an
/// issue of the caller's, and stops after `limit` of them.
func rmCheckSequences(
  slice: Int,
  of slices: Int,
  from first: Int = 0,
  below count: Int,
  stoppingAfter limit: Int = 3,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ check: (_ sequence: Int) -> String?
) {
  var failures = 0
  for sequence in stride(from: first + slice, to: count, by: slices) {
    guard let report = check(sequence) else { continue }
    Issue.record(Comment(rawValue: report), sourceLocation: sourceLocation)
    failures += 1
    if failures == limit { break }
  }
}

// MARK: - Run sizes

/// Run sizes and seeds, overridable from the environment by `Scripts/soak.sh` and
/// `Scripts/sanitize.sh`.
enum RMEnvironment {
  /// The base seed of the differential test (`TRAITKIT_SEED`, decimal or 0x-hex).
  static var seed: UInt64 { number("TRAITKIT_SEED") ?? defaultSeed }
  /// The base seed of `swift test`, for self-tests whose sequences must not change with
  /// `TRAITKIT_SEED`.
  static let defaultSeed: UInt64 = 0x7EA1_7C17

  /// The engine bugs the differential test steers around: the open ones
  /// (``RMKnownBugs/open``), unless `TRAITKIT_STRICT=1` asks for the contract as written, or
  /// `TRAITKIT_KNOWN_BUGS` lists the ones to steer around by name (comma-separated; empty for
  /// none), to compare with an engine from before their fixes.
  static var avoidedBugs: RMKnownBugs {
    let environment = ProcessInfo.processInfo.environment
    if environment["TRAITKIT_STRICT"] == "1" { return [] }
    guard let names = environment["TRAITKIT_KNOWN_BUGS"] else { return .open }
    let listed = Set(names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    return RMKnownBugs(RMKnownBugs.named.filter { listed.contains($0.name) }.map(\.bug))
  }

  /// The first differential sequence to run (`TRAITKIT_FIRST_SEQUENCE`), to replay one.
  static var firstSequence: Int { number("TRAITKIT_FIRST_SEQUENCE").map { Int($0) } ?? 0 }

  /// The number of differential sequences (`TRAITKIT_SOAK_SEQUENCES`).
  static var sequences: Int { number("TRAITKIT_SOAK_SEQUENCES").map { Int($0) } ?? 2_000 }

  /// The operations per differential sequence (`TRAITKIT_SOAK_OPERATIONS`).
  static var operations: Int { number("TRAITKIT_SOAK_OPERATIONS").map { Int($0) } ?? 200 }

  /// The number of documents the decoding fuzz tries (`TRAITKIT_FUZZ_DOCUMENTS`).
  static var documents: Int { number("TRAITKIT_FUZZ_DOCUMENTS").map { Int($0) } ?? 12_000 }

  /// The number of registrations of the leak churn (`TRAITKIT_CHURN_REGISTRATIONS`).
  static var churnRegistrations: Int {
    number("TRAITKIT_CHURN_REGISTRATIONS").map { Int($0) } ?? 100_000
  }

  /// A non-negative number read from the environment variable `name`, if set.
  private static func number(_ name: String) -> UInt64? {
    guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else { return nil }
    if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
    return UInt64(text)
  }
}

// MARK: - Encoded traits

/// An `Int` trait of the decoding fuzz.
struct RMCodableCountTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.rm.codable.count"
}

/// A `Bool` trait of the decoding fuzz.
struct RMCodableFlagTrait: TraitDefinition {
  static let defaultValue = false
  static let identifier = "com.traitkit.tests.rm.codable.flag"
}

/// A `Double` trait whose default is not zero.
struct RMCodableRatioTrait: TraitDefinition {
  static let defaultValue = 1.0
  static let identifier = "com.traitkit.tests.rm.codable.ratio"
}

/// A `String` trait.
struct RMCodableLabelTrait: TraitDefinition {
  static let defaultValue = ""
  static let identifier = "com.traitkit.tests.rm.codable.label"
}

/// An optional `Int` trait, whose default is nil.
struct RMCodableMaybeTrait: TraitDefinition {
  static let defaultValue: Int? = nil
  static let identifier = "com.traitkit.tests.rm.codable.maybe"
}

/// Raw values with gaps, so that some numbers name no case.
enum RMCodableMode: Int, Codable, Hashable, Sendable, CaseIterable {
  case off = 0
  case low = 2
  case high = 5
}

/// An enum trait with a custom name, which a decoding error must mention.
struct RMCodableModeTrait: TraitDefinition {
  static let defaultValue = RMCodableMode.off
  static let name = "Mode"
  static let identifier = "com.traitkit.tests.rm.codable.mode"
}

/// A small struct value.
struct RMCodablePoint: Codable, Hashable, Sendable {
  var x: Int16
  var y: Int16
}

/// A struct trait.
struct RMCodablePointTrait: TraitDefinition {
  static let defaultValue = RMCodablePoint(x: 0, y: 0)
  static let identifier = "com.traitkit.tests.rm.codable.point"
}

/// An array trait.
struct RMCodableListTrait: TraitDefinition {
  static let defaultValue: [Int] = []
  static let identifier = "com.traitkit.tests.rm.codable.list"
}

/// A trait whose values are not `Codable`: its identifier in a document is an unknown entry.
struct RMUncodableTrait: TraitDefinition {
  static let defaultValue = RMStamp(serial: 0)
  static let identifier = "com.traitkit.tests.rm.codable.uncodable"
}

/// A coding key made of any string.
struct RMCodingKey: CodingKey, Hashable {
  var stringValue: String
  var intValue: Int? { nil }

  init(_ string: String) {
    stringValue = string
  }

  init?(stringValue: String) {
    self.stringValue = stringValue
  }

  init?(intValue: Int) {
    nil
  }
}

/// One `Codable` trait as the decoding fuzz sees it: how to decode a value of it independently
/// of TraitKit, how to read it from a collection, and some valid values.
struct RMCodableTrait: Sendable {
  let type: any TraitDefinition.Type
  let identifier: String
  let name: String
  /// Decodes a value of the trait with the decoder's own rules, as TraitKit must.
  let decode: @Sendable (KeyedDecodingContainer<RMCodingKey>, RMCodingKey) throws -> AnyHashable
  /// The trait's value in a collection.
  let read: @Sendable (TraitCollection) -> AnyHashable
  /// The number of sample values.
  let sampleCount: Int
  /// Sets the `index`th sample value.
  let write: @Sendable (Int, inout any MutableTraits) -> Void

  init<T: TraitDefinition>(_ trait: T.Type, samples: [T.Value])
  where T.Value: Codable & Hashable {
    type = T.self
    identifier = T.identifier
    name = T.name
    decode = { container, key in AnyHashable(try container.decode(T.Value.self, forKey: key)) }
    read = { AnyHashable($0[T.self]) }
    sampleCount = samples.count
    write = { index, traits in traits[T.self] = samples[index] }
  }

  init<T: TraitDefinition>(_ trait: T.Type) where T.Value: Codable & Hashable & CaseIterable {
    self.init(trait, samples: Array(T.Value.allCases))
  }

  /// Every `Codable` trait the fuzz encodes: the system traits and the `RMCodable` ones.
  static let all: [RMCodableTrait] = [
    RMCodableTrait(TraitUserInterfaceIdiom.self),
    RMCodableTrait(TraitUserInterfaceStyle.self),
    RMCodableTrait(TraitLayoutDirection.self),
    RMCodableTrait(TraitDisplayScale.self, samples: [0, 1, 2, 3, 1.5, -0.0]),
    RMCodableTrait(TraitHorizontalSizeClass.self),
    RMCodableTrait(TraitVerticalSizeClass.self),
    RMCodableTrait(TraitForceTouchCapability.self),
    RMCodableTrait(TraitPreferredContentSizeCategory.self),
    RMCodableTrait(TraitDisplayGamut.self),
    RMCodableTrait(TraitAccessibilityContrast.self),
    RMCodableTrait(TraitUserInterfaceLevel.self),
    RMCodableTrait(TraitLegibilityWeight.self),
    RMCodableTrait(TraitActiveAppearance.self),
    RMCodableTrait(TraitToolbarItemPresentationSize.self),
    RMCodableTrait(TraitImageDynamicRange.self),
    RMCodableTrait(TraitTypesettingLanguage.self, samples: [nil, "ar", "en-US", "", "zh-Hant"]),
    RMCodableTrait(TraitSceneCaptureState.self),
    RMCodableTrait(TraitListEnvironment.self),
    RMCodableTrait(RMCodableCountTrait.self, samples: [0, 1, -1, 7, .max, .min]),
    RMCodableTrait(RMCodableFlagTrait.self, samples: [false, true]),
    RMCodableTrait(RMCodableRatioTrait.self, samples: [1, 0, -0.0, 0.1, 1e300, -2.5]),
    RMCodableTrait(RMCodableLabelTrait.self, samples: ["", "a", "é\"\\\n", "🙂", "\u{0}"]),
    RMCodableTrait(RMCodableMaybeTrait.self, samples: [nil, 0, 3]),
    RMCodableTrait(RMCodableModeTrait.self),
    RMCodableTrait(
      RMCodablePointTrait.self,
      samples: [
        RMCodablePoint(x: 0, y: 0), RMCodablePoint(x: 1, y: -2), RMCodablePoint(x: .max, y: 0),
      ]
    ),
    RMCodableTrait(RMCodableListTrait.self, samples: [[], [1], [1, 2, 3]]),
  ]

  /// The traits by identifier.
  static let byIdentifier = Dictionary(uniqueKeysWithValues: all.map { ($0.identifier, $0) })
}

/// Any JSON value, parsed and written independently of TraitKit.
indirect enum RMJSON: Hashable, Sendable, Decodable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([RMJSON])
  case object([String: RMJSON])
  /// A number written verbatim (only for writing documents).
  case number(String)

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .int(value)
    } else if let value = try? container.decode(Double.self) {
      self = .double(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([RMJSON].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: RMJSON].self))
    }
  }

  /// The value as JSON text, keys sorted, numbers as given.
  var text: String {
    switch self {
    case .null: "null"
    case .bool(let value): value ? "true" : "false"
    case .int(let value): "\(value)"
    case .double(let value): "\(value)"
    case .string(let value): Self.quoted(value)
    case .number(let text): text
    case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
    case .object(let members):
      "{"
        + members.keys.sorted().map { "\(Self.quoted($0)):\(members[$0]?.text ?? "null")" }
        .joined(separator: ",") + "}"
    }
  }

  private static func quoted(_ string: String) -> String {
    var text = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "\n": text += "\\n"
      case _ where scalar.value < 0x20:
        text += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
      default: text.unicodeScalars.append(scalar)
      }
    }
    return text + "\""
  }
}
