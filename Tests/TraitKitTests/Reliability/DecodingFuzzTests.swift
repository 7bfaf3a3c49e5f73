import Foundation
import Testing
import TraitKit

// The decoding fuzz: random and corrupted encoded trait collections never crash the decoder;
// each either decodes to a collection that re-encodes to a fixed point and holds exactly what
// the document says, or throws a `DecodingError` that names a malformed trait (R13).
//
// The oracle decodes the same document with the same decoder, without TraitKit: each entry
// whose identifier names a known `Codable` trait as a value of that trait, any other entry as
// JSON. TraitKit must decode exactly when every known entry decodes, agree with every value,
// keep every unknown entry, and otherwise name one of the entries that did not decode.

/// What a document holds, decoded without TraitKit.
private struct RMDecodingOracle: Decodable {
  /// Each known trait's entry: its value, or why it does not decode.
  var known: [String: Result<AnyHashable, any Error>] = [:]
  /// The other entries.
  var unknown: [String: RMJSON] = [:]

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: RMCodingKey.self)
    for key in container.allKeys {
      if let trait = RMCodableTrait.byIdentifier[key.stringValue] {
        known[key.stringValue] = Result { try trait.decode(container, key) }
      } else {
        unknown[key.stringValue] = try container.decode(RMJSON.self, forKey: key)
      }
    }
  }
}

/// Makes valid, corrupted and random documents from a seed.
private struct RMDocumentMaker {
  var random: RMRandom

  /// Identifiers that name no trait, and one that names a trait without `Codable` values.
  static let unknownIdentifiers = [
    "com.traitkit.tests.rm.unknown.a", "com.traitkit.tests.rm.unknown.b", "", "UITrait",
    RMUncodableTrait.identifier,
  ]

  static let strings = [
    "", "dark", "UICTContentSizeCategoryL", "_UICTContentSizeCategoryUnspecified", "ar", "x\u{0}y",
    "é", "🙂", "\"", "\\", "\n", String(repeating: "long", count: 50),
  ]

  static let numbers = [
    "-1", "0", "1", "2", "3", "4", "5", "6", "7", "100", "-129", "32767", "32768", "1.0", "2.5",
    "-0", "-0.0", "1e2", "1E-2", "9223372036854775807", "9223372036854775808",
    "-9223372036854775809", "123456789012345678901234567890", "1e300", "1e400", "0.1e-400",
  ]

  /// A collection of random sample values of random `Codable` traits.
  mutating func collection() -> TraitCollection {
    var chosen: [(RMCodableTrait, Int)] = []
    for trait in RMCodableTrait.all where random.chance(25) {
      chosen.append((trait, random.below(trait.sampleCount)))
    }
    return TraitCollection { traits in
      for (trait, sample) in chosen { trait.write(sample, &traits) }
    }
  }

  /// A random JSON value, nested at most `depth` deep.
  mutating func value(depth: Int = 2) -> RMJSON {
    switch random.below(depth > 0 ? 9 : 7) {
    case 0: return .null
    case 1: return .bool(random.chance(50))
    case 2: return .number(random.pick(Self.numbers))
    case 3: return .int(Int64(bitPattern: random.next()) >> random.below(64))
    case 4: return .double(Double(random.below(2_000)) / 8 - 100)
    case 5, 6: return .string(random.pick(Self.strings))
    case 7: return .array((0..<random.below(4)).map { _ in value(depth: depth - 1) })
    default:
      var members: [String: RMJSON] = [:]
      for name in ["x", "y", "z"] where random.chance(60) {
        members[name] = value(depth: depth - 1)
      }
      return .object(members)
    }
  }

  /// An identifier: mostly of a known `Codable` trait.
  mutating func identifier() -> String {
    random.chance(80)
      ? random.pick(RMCodableTrait.all).identifier : random.pick(Self.unknownIdentifiers)
  }

  /// `members` with a few entries replaced, removed, added or moved to another trait's key.
  mutating func corrupt(_ members: [String: RMJSON]) -> RMJSON {
    var members = members
    for _ in 0..<(1 + random.below(3)) {
      let keys = members.keys.sorted()
      switch random.below(5) {
      case 0 where !keys.isEmpty:
        members[random.pick(keys)] = value()
      case 1 where !keys.isEmpty:
        members[random.pick(keys)] = nil
      case 2 where !keys.isEmpty:
        let key = random.pick(keys)
        members[identifier()] = members[key]
      default:
        members[identifier()] = value()
      }
    }
    return .object(members)
  }

  /// `bytes` with a few bytes flipped, replaced, removed or duplicated, or cut short.
  mutating func mangle(_ bytes: [UInt8]) -> [UInt8] {
    var bytes = bytes
    let alphabet = Array(#"{}[]",:0123456789-.eEtrufanl \u"#.utf8)
    for _ in 0..<(1 + random.below(3)) where !bytes.isEmpty {
      let index = random.below(bytes.count)
      switch random.below(6) {
      case 0: bytes[index] ^= UInt8(1) << random.below(8)
      case 1: bytes[index] = random.pick(alphabet)
      case 2: bytes.remove(at: index)
      case 3: bytes.insert(random.pick(alphabet), at: index)
      case 4: bytes.insert(contentsOf: bytes[index..<min(bytes.count, index + 8)], at: index)
      default: bytes.removeSubrange(index...)
      }
    }
    return bytes
  }
}

/// How a document that passed its check ended.
private enum RMDecodingOutcome: Hashable {
  /// Decoded, with every known entry well-formed.
  case decoded
  /// Rejected with an error naming a malformed entry.
  case rejectedEntry
  /// Rejected as a whole: not JSON, or not an object.
  case rejectedDocument
}

/// What went wrong with a document.
private struct RMDecodingProblem: Error {
  let text: String
}

/// Checks one document.
private enum RMDecodingCheck {
  static func encoded(_ traits: TraitCollection) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(traits)
  }

  static func decoded(_ data: Data) throws -> TraitCollection {
    try JSONDecoder().decode(TraitCollection.self, from: data)
  }

  /// How `data` decoded, or what went wrong.
  static func check(_ data: Data) -> Result<RMDecodingOutcome, RMDecodingProblem> {
    let oracle = try? JSONDecoder().decode(RMDecodingOracle.self, from: data)
    if let problem = problem(decoding: data, oracle: oracle) { return .failure(problem) }
    let decodes = (try? decoded(data)) != nil
    return .success(decodes ? .decoded : oracle == nil ? .rejectedDocument : .rejectedEntry)
  }

  private static func problem(decoding data: Data, oracle: RMDecodingOracle?) -> RMDecodingProblem?
  {
    problemText(decoding: data, oracle: oracle).map(RMDecodingProblem.init)
  }

  private static func problemText(decoding data: Data, oracle: RMDecodingOracle?) -> String? {
    let malformed = (oracle?.known ?? [:]).filter {
      if case .failure = $0.value { true } else { false }
    }
    let traits: TraitCollection
    do {
      traits = try decoded(data)
    } catch let error as DecodingError {
      guard let oracle else { return nil }
      guard !malformed.isEmpty else {
        return "threw although every entry decodes (\(oracle.known.count) known): \(error)"
      }
      let description = "\(error)"
      let named = malformed.keys.contains { identifier in
        let trait = RMCodableTrait.byIdentifier[identifier]
        return description.contains(identifier)
          || trait.map { description.contains($0.name) } ?? false
      }
      return named ? nil : "the error names none of \(malformed.keys.sorted()): \(error)"
    } catch {
      return "threw a \(type(of: error)), not a DecodingError: \(error)"
    }
    if let oracle {
      guard malformed.isEmpty else { return "decoded although \(malformed.keys.sorted()) do not" }
      if let problem = compare(traits, with: oracle) { return problem }
    }
    return checkFixedPoint(traits)
  }

  /// The decoded values are the document's, and re-encoding keeps every unknown entry.
  private static func compare(_ traits: TraitCollection, with oracle: RMDecodingOracle) -> String? {
    let defaults = TraitCollection()
    var expectedKeys = Set(oracle.unknown.keys)
    for trait in RMCodableTrait.all {
      let expected: AnyHashable
      if let entry = oracle.known[trait.identifier], case .success(let value) = entry {
        expected = value
      } else {
        expected = trait.read(defaults)
      }
      let actual = trait.read(traits)
      guard actual == expected else {
        return "\(trait.identifier): decoded \(actual), the document says \(expected)"
      }
      if actual != trait.read(defaults) { expectedKeys.insert(trait.identifier) }
    }
    guard let data = try? encoded(traits),
      let written = try? JSONDecoder().decode([String: RMJSON].self, from: data)
    else { return "the decoded collection does not re-encode" }
    guard Set(written.keys) == expectedKeys else {
      return "re-encoded keys \(written.keys.sorted()), expected \(expectedKeys.sorted())"
    }
    for (key, value) in oracle.unknown where written[key] != value {
      let rewritten = written[key].map { "\($0)" } ?? "nothing"
      return "unknown entry \(key) was \(value), re-encoded as \(rewritten)"
    }
    return nil
  }

  /// Re-encoding, decoding and re-encoding again changes nothing.
  private static func checkFixedPoint(_ traits: TraitCollection) -> String? {
    do {
      let first = try encoded(traits)
      let again = try decoded(first)
      guard again == traits else { return "re-decoding changed the collection" }
      let second = try encoded(again)
      guard first == second else {
        return "re-encoding is not a fixed point: \(String(decoding: first, as: UTF8.self)) "
          + "then \(String(decoding: second, as: UTF8.self))"
      }
      return nil
    } catch {
      return "the decoded collection does not round-trip: \(error)"
    }
  }
}

@Suite("Decoding fuzz")
struct DecodingFuzzTests {
  /// The parallel slices of the run; document `i` runs in slice `i % slices`.
  static let slices = 4

  init() {
    TraitCollection.registerForDecoding(RMCodableTrait.all.map(\.type) + [RMUncodableTrait.self])
  }

  @Test(
    "random and corrupted documents decode to what they hold or throw an error naming the trait",
    arguments: 0..<slices
  )
  func corruptedDocuments(slice: Int) throws {
    var failures = 0
    var outcomes: [RMDecodingOutcome: Int] = [:]
    for document in stride(from: slice, to: RMEnvironment.documents, by: Self.slices) {
      let seed = RMRandom.seed(base: RMEnvironment.seed ^ 0xDEC0_DE, index: document)
      var maker = RMDocumentMaker(random: RMRandom(seed: seed))
      let original = maker.collection()
      let valid = try RMDecodingCheck.encoded(original)
      let data: Data
      switch maker.random.below(4) {
      case 0:
        // A valid document decodes to the collection and re-encodes byte for byte.
        let decoded = try RMDecodingCheck.decoded(valid)
        #expect(decoded == original, "document \(document), seed 0x\(String(seed, radix: 16))")
        #expect(
          try RMDecodingCheck.encoded(decoded) == valid,
          "document \(document), seed 0x\(String(seed, radix: 16))"
        )
        data = valid
      case 1:
        let members = try JSONDecoder().decode([String: RMJSON].self, from: valid)
        data = Data(maker.corrupt(members).text.utf8)
      case 2:
        data = Data(maker.mangle(Array(valid)))
      default:
        data = Data((maker.random.chance(85) ? maker.corrupt([:]) : maker.value()).text.utf8)
      }
      let problem: RMDecodingProblem
      switch RMDecodingCheck.check(data) {
      case .success(let outcome):
        outcomes[outcome, default: 0] += 1
        continue
      case .failure(let failure):
        problem = failure
      }
      Issue.record(
        """
        document \(document), seed 0x\(String(seed, radix: 16)) \
        (TRAITKIT_SEED=0x\(String(RMEnvironment.seed, radix: 16))): \(problem.text)
        \(String(decoding: data, as: UTF8.self))
        """
      )
      failures += 1
      if failures == 5 { break }
    }
    // The fuzz must reach every outcome, or it tests less than it claims.
    if failures == 0 && RMEnvironment.documents >= 100 * Self.slices {
      #expect(outcomes[.decoded, default: 0] > 0, "slice \(slice): \(outcomes)")
      #expect(outcomes[.rejectedEntry, default: 0] > 0, "slice \(slice): \(outcomes)")
      #expect(outcomes[.rejectedDocument, default: 0] > 0, "slice \(slice): \(outcomes)")
    }
  }
}
