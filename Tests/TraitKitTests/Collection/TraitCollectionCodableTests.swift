import Foundation
import Testing
import TraitKit

/// A trait made known to decoding by `registerForDecoding` alone; used in one test only.
private struct VTRegisteredForDecodingTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.vt.registered-for-decoding"
}

/// A trait whose identifier is decoded before the type is ever used; used in one test only.
private struct VTUsedAfterDecodingTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.vt.used-after-decoding"
}

/// A trait used by one test only, so that it is unknown until that test uses it.
private struct VTDefaultAfterDecodingTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.vt.default-after-decoding"
}

/// A value that is `Equatable` but not `Codable`.
private struct VTPlainValue: Equatable, Sendable {
  let number: Int
}

/// A trait whose values are not `Codable`: decoding keeps an entry under its identifier.
private struct VTPlainValueTrait: TraitDefinition {
  static let defaultValue = VTPlainValue(number: 0)
  static let identifier = "com.traitkit.tests.vt.plain-value"
}

/// Any JSON value, parsed independently of TraitKit, for comparing documents.
private indirect enum VTJSON: Equatable, Decodable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([VTJSON])
  case object([String: VTJSON])

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
    } else if let value = try? container.decode([VTJSON].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: VTJSON].self))
    }
  }

  /// The keys of an object; empty for any other value.
  var keys: Set<String> {
    guard case .object(let members) = self else { return [] }
    return Set(members.keys)
  }

  subscript(key: String) -> VTJSON? {
    guard case .object(let members) = self else { return nil }
    return members[key]
  }
}

/// A malformed entry for a known trait, and the name and identifier an error should mention.
struct VTMalformedCase: Sendable, CustomTestStringConvertible {
  let json: String
  let name: String
  let identifier: String

  var testDescription: String { json }
}

/// A value that holds a collection, as an app's saved state would.
private struct VTSnapshot: Codable, Equatable {
  var title: String
  var traits: TraitCollection
}

@Suite("Trait collection encoding")
struct TraitCollectionCodableTests {
  static let sampleInsets = VTInsets(top: 1, leading: 2, bottom: 3, trailing: 4, label: "edge")

  static let sample = TraitCollection {
    $0.userInterfaceStyle = .dark
    $0.displayScale = 3
    $0.preferredContentSizeCategory = .accessibilityLarge
    $0.typesettingLanguage = "ar"
    $0[VTCountTrait.self] = 7
    $0[VTLabelTrait.self] = "label"
    $0[VTGridTrait.self] = VTGrid(columns: 4, rows: 2, spacing: 1.5)
    $0[VTInsetsTrait.self] = sampleInsets
    $0[VTThemeTrait.self] = .bold
    $0[VTMaybeCountTrait.self] = 0
  }

  static let malformedCases: [VTMalformedCase] = [
    VTMalformedCase(
      json: #"{"UITraitUserInterfaceStyle":"dark"}"#,
      name: "UserInterfaceStyle",
      identifier: "UITraitUserInterfaceStyle"
    ),
    VTMalformedCase(
      json: #"{"UITraitUserInterfaceStyle":7}"#,
      name: "UserInterfaceStyle",
      identifier: "UITraitUserInterfaceStyle"
    ),
    VTMalformedCase(
      json: #"{"UITraitUserInterfaceIdiom":4}"#,
      name: "UserInterfaceIdiom",
      identifier: "UITraitUserInterfaceIdiom"
    ),
    VTMalformedCase(
      json: #"{"UITraitDisplayScale":"big"}"#,
      name: "DisplayScale",
      identifier: "UITraitDisplayScale"
    ),
    VTMalformedCase(
      json: #"{"UITraitTypesettingLanguage":5}"#,
      name: "TypesettingLanguage",
      identifier: "UITraitTypesettingLanguage"
    ),
    VTMalformedCase(
      json: #"{"UITraitPreferredContentSizeCategory":"huge"}"#,
      name: "PreferredContentSizeCategory",
      identifier: "UITraitPreferredContentSizeCategory"
    ),
    VTMalformedCase(
      json: #"{"com.traitkit.tests.vt.theme":9}"#,
      name: "Theme",
      identifier: "com.traitkit.tests.vt.theme"
    ),
    VTMalformedCase(
      json: #"{"com.traitkit.tests.vt.grid":{"columns":"four","rows":2,"spacing":0}}"#,
      name: "VTGridTrait",
      identifier: "com.traitkit.tests.vt.grid"
    ),
    VTMalformedCase(
      json: #"{"UITraitUserInterfaceStyle":2,"com.traitkit.tests.vt.label":[1]}"#,
      name: "VTLabelTrait",
      identifier: "com.traitkit.tests.vt.label"
    ),
  ]

  private static func encode(_ traits: TraitCollection) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(traits)
  }

  private static func decode(_ json: String) throws -> TraitCollection {
    try JSONDecoder().decode(TraitCollection.self, from: Data(json.utf8))
  }

  private static func parse(_ data: Data) throws -> VTJSON {
    try JSONDecoder().decode(VTJSON.self, from: data)
  }

  // MARK: - Round trips

  @Test("a collection of system and custom traits round-trips through JSON")
  func roundTrip() throws {
    // NB: the custom traits must be known before decoding; `sample` uses each of them.
    let original = Self.sample
    let decoded = try JSONDecoder().decode(TraitCollection.self, from: Self.encode(original))
    #expect(decoded == original)
    #expect(decoded.hashValue == original.hashValue)
    #expect(decoded.changedTraits(from: original).isEmpty)
    #expect(decoded.userInterfaceStyle == .dark)
    #expect(decoded.displayScale == 3)
    #expect(decoded.preferredContentSizeCategory == .accessibilityLarge)
    #expect(decoded.typesettingLanguage == "ar")
    #expect(decoded[VTCountTrait.self] == 7)
    #expect(decoded[VTLabelTrait.self] == "label")
    #expect(decoded[VTGridTrait.self] == VTGrid(columns: 4, rows: 2, spacing: 1.5))
    #expect(decoded[VTInsetsTrait.self] == Self.sampleInsets)
    #expect(decoded[VTThemeTrait.self] == .bold)
    #expect(decoded[VTMaybeCountTrait.self] == 0)
    #expect(try Self.encode(decoded) == Self.encode(original))
  }

  @Test("the JSON keys are the traits' identifiers")
  func keysAreIdentifiers() throws {
    let json = try Self.parse(Self.encode(Self.sample))
    #expect(
      json.keys == [
        "UITraitUserInterfaceStyle",
        "UITraitDisplayScale",
        "UITraitPreferredContentSizeCategory",
        "UITraitTypesettingLanguage",
        "TraitKitTests.VTCountTrait",
        "com.traitkit.tests.vt.label",
        "com.traitkit.tests.vt.grid",
        "com.traitkit.tests.vt.insets",
        "com.traitkit.tests.vt.theme",
        "com.traitkit.tests.vt.maybe-count",
      ]
    )
    #expect(json["UITraitUserInterfaceStyle"] == .int(2))
    #expect(
      json["UITraitPreferredContentSizeCategory"]
        == .string("UICTContentSizeCategoryAccessibilityL")
    )
    #expect(json["com.traitkit.tests.vt.theme"] == .int(2))
  }

  @Test("a small collection encodes to exactly its identifiers and raw values")
  func exactEncoding() throws {
    let traits = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0.horizontalSizeClass = .compact
      $0[VTLabelTrait.self] = "x"
    }
    let text = String(decoding: try Self.encode(traits), as: UTF8.self)
    let expected =
      #"{"UITraitHorizontalSizeClass":1,"UITraitUserInterfaceStyle":2,"#
      + #""com.traitkit.tests.vt.label":"x"}"#
    #expect(text == expected)
  }

  @Test("traits at their default values are not encoded")
  func defaultsAreNotEncoded() throws {
    #expect(String(decoding: try Self.encode(TraitCollection()), as: UTF8.self) == "{}")
    let explicitDefaults = TraitCollection {
      $0.userInterfaceStyle = .unspecified
      $0.typesettingLanguage = nil
      $0[VTCountTrait.self] = 0
    }
    #expect(String(decoding: try Self.encode(explicitDefaults), as: UTF8.self) == "{}")
  }

  @Test("traits whose values are not Codable are left out of the encoding")
  func nonCodableTraitsAreLeftOut() throws {
    let traits = TraitCollection {
      $0.userInterfaceStyle = .dark
      $0[VTHandlerTrait.self] = { 1 }
      $0[VTTokenTrait.self] = VTToken(raw: 1)
      $0[VTPayloadTrait.self] = VTPayload(id: 1, name: "one")
      $0[VTTaggedTrait.self] = VTTagged(id: 1, cache: 1)
      $0[UIDensityTrait.self] = .compact
    }
    let data = try Self.encode(traits)
    #expect(try Self.parse(data).keys == ["UITraitUserInterfaceStyle"])
    let decoded = try JSONDecoder().decode(TraitCollection.self, from: data)
    #expect(decoded == TraitCollection(TraitUserInterfaceStyle.self, value: .dark))
  }

  @Test("a collection nested in another Codable value round-trips")
  func nestedRoundTrip() throws {
    let snapshot = VTSnapshot(title: "settings", traits: Self.sample)
    let data = try JSONEncoder().encode(snapshot)
    #expect(try JSONDecoder().decode(VTSnapshot.self, from: data) == snapshot)
  }

  // MARK: - Unknown identifiers

  static let unknownEntries = """
    {
      "UITraitUserInterfaceStyle": 1,
      "com.traitkit.tests.vt.label": "known",
      "com.example.unknown.object": {
        "nested": {"deeper": [1, 2.5, "three", null, true, {"k": false}]},
        "empty": {},
        "list": []
      },
      "com.example.unknown.array": [null, -1, 9007199254740993, 0.1, "x", [], {"a": [true]}],
      "com.example.unknown.null": null,
      "com.example.unknown.true": true,
      "com.example.unknown.false": false,
      "com.example.unknown.int": -42,
      "com.example.unknown.double": 3.25,
      "com.example.unknown.string": "caf\\u00e9 \\"quoted\\""
    }
    """

  @Test("entries with unknown identifiers survive decoding and encoding unchanged")
  func unknownEntriesSurvive() throws {
    _ = TraitCollection(VTLabelTrait.self, value: "registered")
    let decoded = try Self.decode(Self.unknownEntries)
    #expect(decoded.userInterfaceStyle == .light)
    #expect(decoded[VTLabelTrait.self] == "known")
    let original = try Self.parse(Data(Self.unknownEntries.utf8))
    let reencoded = try Self.parse(Self.encode(decoded))
    #expect(reencoded == original)
  }

  @Test(
    "an unknown property-list date or data throws an error that names the entry and the way out",
    arguments: ["<date>1970-01-01T00:16:40Z</date>", "<data>AQID</data>"]
  )
  func unknownPropertyListValueOfItsOwnKind(value: String) throws {
    let plist = Data(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" \
      "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0"><dict><key>com.example.newer-app.stamp</key>\(value)</dict></plist>
      """.utf8
    )
    let error = #expect(throws: DecodingError.self) {
      try PropertyListDecoder().decode(TraitCollection.self, from: plist)
    }
    guard case .dataCorrupted(let context) = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["com.example.newer-app.stamp"])
    #expect(
      context.debugDescription.hasPrefix(
        "Cannot keep the entry under 'com.example.newer-app.stamp', which names no known trait"
      )
    )
    #expect(context.debugDescription.contains("registerForDecoding"))
  }

  @Test("an unknown integer above Int64.max comes back with every digit")
  func unknownLargeUnsignedInteger() throws {
    let decoded = try Self.decode(#"{"com.example.unknown.big": 18446744073709551615}"#)
    let text = String(decoding: try Self.encode(decoded), as: UTF8.self)
    #expect(text.contains("18446744073709551615"))
  }

  @Test("an unknown integer below Int64.min comes back with every digit")
  func unknownBelowInt64Min() throws {
    let json = #"{"com.example.review.unknown":-9223372036854775809}"#
    let decoded = try JSONDecoder().decode(TraitCollection.self, from: Data(json.utf8))
    #expect(String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self) == json)
  }

  @Test(
    "an unknown integer beyond 64 bits comes back with every digit, nested or not",
    arguments: [
      "-9223372036854775809", "18446744073709551617", "-170141183460469231731687303715884105728",
      "170141183460469231731687303715884105727", "170141183460469231731687303715884105728",
      "340282366920938463463374607431768211455",
    ]
  )
  func unknownWideInteger(_ digits: String) throws {
    let json = #"{"com.example.unknown.wide":[\#(digits),{"n":\#(digits)}]}"#
    #expect(String(decoding: try Self.encode(Self.decode(json)), as: UTF8.self) == json)
  }

  @Test("an unknown negative zero comes back negative", arguments: ["-0.0", "-0", "-0e5"])
  func unknownNegativeZero(_ zero: String) throws {
    let json = #"{"com.example.review.unknown":\#(zero)}"#
    let written = try JSONEncoder().encode(Self.decode(json))
    // NB: JSONEncoder writes every integral `Double` without a fraction, so `-0.0` as `-0`: the
    // same JSON number, which JSONDecoder reads as `-0.0` (JSONSerialization, as the integer 0).
    let values = try JSONDecoder().decode([String: Double].self, from: written)
    #expect(try #require(values["com.example.review.unknown"]).sign == .minus)
    #expect(try Self.decode(String(decoding: written, as: UTF8.self)) == Self.decode(json))
  }

  @Test(
    "an unknown float, however large or close to an integer boundary, keeps its exact value",
    arguments: [
      "1e300", "-1e300", "1.7976931348623157e308", "5e-324", "0.1", "1e20", "2.5e19",
      "1.8446744073709552e19", "9.223372036854775808e18", "-9.223372036854775809e18",
      "9223372036854775808", "-9223372036854775808", "1.7014118346046923e38",
    ]
  )
  func unknownFloatKeepsItsValue(_ number: String) throws {
    let json = #"{"com.example.unknown.float":\#(number)}"#
    let written = try Self.encode(Self.decode(json))
    func read<Value: Decodable>(_: Value.Type, _ data: Data) -> Value? {
      try? JSONDecoder().decode([String: Value].self, from: data)["com.example.unknown.float"]
    }
    let value = try #require(read(Double.self, Data(json.utf8)))
    #expect(read(Double.self, written)?.bitPattern == value.bitPattern)
    // NB: a `Decimal` holds up to 38 digits exactly, where a `Double` holds about 17.
    #expect(read(Decimal.self, written) == read(Decimal.self, Data(json.utf8)))
  }

  @Test("unknown entries are kept through modifyingTraits, replacing and merging")
  func unknownEntriesSurviveChanges() throws {
    let decoded = try Self.decode(Self.unknownEntries)
    let original = try Self.parse(Data(Self.unknownEntries.utf8))
    let unknownKeys = original.keys.filter { $0.hasPrefix("com.example.") }
    let changed = [
      decoded.modifyingTraits { $0.horizontalSizeClass = .compact },
      decoded.replacing(TraitHorizontalSizeClass.self, value: .compact),
      TraitCollection(traitsFrom: [decoded, TraitCollection { $0.horizontalSizeClass = .compact }]),
      TraitCollection(traitsFrom: [TraitCollection { $0.horizontalSizeClass = .compact }, decoded]),
    ]
    for collection in changed {
      let json = try Self.parse(Self.encode(collection))
      #expect(json["UITraitHorizontalSizeClass"] == .int(1))
      for key in unknownKeys {
        #expect(json[key] == original[key], "\(key)")
      }
    }
  }

  @Test("a value set after decoding wins over an unknown entry of the same identifier")
  func knownValueWinsOverUnknownEntry() throws {
    let json = #"{"com.traitkit.tests.vt.used-after-decoding":5}"#
    let early = try Self.decode(json)
    // The type was unknown when `early` was decoded: its entry was kept as an unknown one.
    #expect(early[VTUsedAfterDecodingTrait.self] == 0)
    #expect(try Self.parse(Self.encode(early)) == Self.parse(Data(json.utf8)))
    // Now that the type is known, the same input decodes to its value.
    #expect(try Self.decode(json)[VTUsedAfterDecodingTrait.self] == 5)
    let updated = early.replacing(VTUsedAfterDecodingTrait.self, value: 9)
    #expect(updated[VTUsedAfterDecodingTrait.self] == 9)
    let encoded = try Self.parse(Self.encode(updated))
    #expect(encoded["com.traitkit.tests.vt.used-after-decoding"] == .int(9))
  }

  @Test("setting the default value after decoding drops the kept entry of that identifier")
  func defaultValueReplacesUnknownEntry() throws {
    let json = #"{"com.traitkit.tests.vt.default-after-decoding":5}"#
    // The type is used for the first time below, so this entry is kept as an unknown one.
    let early = try Self.decode(json)
    let updated = early.replacing(VTDefaultAfterDecodingTrait.self, value: 0)
    #expect(updated[VTDefaultAfterDecodingTrait.self] == 0)
    let encoded = try Self.parse(Self.encode(updated))
    #expect(encoded["com.traitkit.tests.vt.default-after-decoding"] == nil)
    let reencoded = String(decoding: try Self.encode(updated), as: UTF8.self)
    #expect(try Self.decode(reencoded) == updated)
  }

  @Test("an entry for a trait whose values are not Codable is kept like an unknown one")
  func nonCodableEntryIsKept() throws {
    _ = TraitCollection(VTHandlerTrait.self, value: { 1 })
    let json = #"{"TraitKitTests.VTHandlerTrait":{"id":5}}"#
    let decoded = try Self.decode(json)
    #expect(decoded[VTHandlerTrait.self]() == 0)
    #expect(try Self.parse(Self.encode(decoded)) == Self.parse(Data(json.utf8)))
  }

  @Test("a value merged in wins over the entry decoding kept under its identifier, as a write does")
  func mergedValueReplacesKeptEntry() throws {
    let value = VTPlainValue(number: 2)
    let setting = TraitCollection(VTPlainValueTrait.self, value: value)
    let json = #"{"com.traitkit.tests.vt.plain-value":{"number":5}}"#
    let decoded = try Self.decode(json)
    #expect(try Self.parse(Self.encode(decoded)) == Self.parse(Data(json.utf8)))

    let merged = TraitCollection(traitsFrom: [decoded, setting])
    let written = decoded.replacing(VTPlainValueTrait.self, value: value)

    #expect(merged[VTPlainValueTrait.self] == value)
    #expect(merged == written)
    #expect(try Self.parse(Self.encode(merged)) == Self.parse(Data("{}".utf8)))
  }

  // MARK: - Malformed input

  @Test(
    "a malformed value of a known trait throws a DecodingError that names the trait",
    arguments: malformedCases
  )
  func malformedValueThrows(_ malformed: VTMalformedCase) throws {
    _ = Self.sample
    let error = #expect(throws: DecodingError.self) {
      try Self.decode(malformed.json)
    }
    let description = String(describing: try #require(error))
    #expect(
      description.contains(malformed.name) || description.contains(malformed.identifier),
      "\(description)"
    )
  }

  @Test("a top-level value that is not an object throws a DecodingError")
  func nonObjectThrows() {
    for json in ["[1, 2]", "[]", #""UITraitUserInterfaceStyle""#, "2", "null"] {
      #expect(throws: DecodingError.self, "\(json)") {
        try Self.decode(json)
      }
    }
  }

  @Test("a decoded default value or null gives a collection equal to the empty one")
  func decodedDefaultsAreAbsent() throws {
    let decoded = try Self.decode(
      #"{"UITraitUserInterfaceStyle":0,"UITraitTypesettingLanguage":null,"#
        + #""UITraitDisplayScale":-0.0}"#
    )
    #expect(decoded == TraitCollection())
    #expect(decoded.hashValue == TraitCollection().hashValue)
    #expect(String(decoding: try Self.encode(decoded), as: UTF8.self) == "{}")
  }

  // MARK: - Registration

  @Test("registerForDecoding makes a trait decodable before it was ever used")
  func registerForDecodingMakesTraitKnown() throws {
    TraitCollection.registerForDecoding([VTRegisteredForDecodingTrait.self])
    let json = #"{"com.traitkit.tests.vt.registered-for-decoding":12}"#
    let decoded = try Self.decode(json)
    #expect(decoded[VTRegisteredForDecodingTrait.self] == 12)
    #expect(decoded == TraitCollection(VTRegisteredForDecodingTrait.self, value: 12))
    #expect(try Self.parse(Self.encode(decoded)) == Self.parse(Data(json.utf8)))
    #expect(throws: DecodingError.self) {
      try Self.decode(#"{"com.traitkit.tests.vt.registered-for-decoding":"twelve"}"#)
    }
  }
}
