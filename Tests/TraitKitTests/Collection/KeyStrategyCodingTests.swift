import Foundation
import Testing
import TraitKit

private struct KSDarkModeTrait: TraitDefinition {
  static let defaultValue = false
  static let identifier = "com.traitkit.tests.ks.dark_mode"
}

private struct KSCamelTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.ks.fooBar"
}

private struct KSSnakeTrait: TraitDefinition {
  static let defaultValue = 0
  static let identifier = "com.traitkit.tests.ks.foo_bar"
}

/// A document that holds a collection under a property, as an app's own types do.
private struct KSDocument: Codable, Equatable {
  var screenTraits: TraitCollection
}

private func snakeCaseEncoder() -> JSONEncoder {
  let encoder = JSONEncoder()
  encoder.keyEncodingStrategy = .convertToSnakeCase
  encoder.outputFormatting = .sortedKeys
  return encoder
}

private func snakeCaseDecoder() -> JSONDecoder {
  let decoder = JSONDecoder()
  decoder.keyDecodingStrategy = .convertFromSnakeCase
  return decoder
}

@Suite("Coding under key strategies: identifiers are data, not keys (R13)")
struct KeyStrategyCodingTests {
  @Test("snake-case coders write a system trait's identifier as it is, and read it back")
  func systemTraitThroughSnakeCase() throws {
    let traits = TraitCollection { $0.userInterfaceStyle = .dark }
    let data = try snakeCaseEncoder().encode(traits)
    #expect(String(decoding: data, as: UTF8.self) == #"{"UITraitUserInterfaceStyle":2}"#)
    #expect(try snakeCaseDecoder().decode(TraitCollection.self, from: data) == traits)
  }

  @Test("a collection under a property: the property's key converts, the identifiers do not")
  func collectionInsideADocument() throws {
    let document = KSDocument(
      screenTraits: TraitCollection {
        $0.horizontalSizeClass = .compact
        $0[KSDarkModeTrait.self] = true
      }
    )
    let data = try snakeCaseEncoder().encode(document)
    #expect(
      String(decoding: data, as: UTF8.self)
        == #"{"screen_traits":{"UITraitHorizontalSizeClass":1,"#
        + #""com.traitkit.tests.ks.dark_mode":true}}"#
    )
    #expect(try snakeCaseDecoder().decode(KSDocument.self, from: data) == document)
  }

  @Test("decoding from snake case keeps an identifier that has an underscore")
  func identifierWithAnUnderscore() throws {
    TraitCollection.registerForDecoding([KSDarkModeTrait.self])
    let decoded = try snakeCaseDecoder().decode(
      TraitCollection.self,
      from: Data(#"{"com.traitkit.tests.ks.dark_mode":true}"#.utf8)
    )
    #expect(decoded[KSDarkModeTrait.self] == true)
  }

  @Test("two identifiers that snake case would map to one key are both written")
  func identifiersSnakeCaseWouldMerge() throws {
    let traits = TraitCollection {
      $0[KSCamelTrait.self] = 1
      $0[KSSnakeTrait.self] = 2
    }
    let back = try JSONDecoder().decode(
      TraitCollection.self,
      from: snakeCaseEncoder().encode(traits)
    )
    #expect(back == traits)
  }

  @Test("a kept entry's own keys come back unchanged through snake-case coders")
  func keptEntryThroughSnakeCase() throws {
    let json = #"{"UITraitNewerThing":{"innerKey":[{"deeperKey":1}]}}"#
    let decoded = try snakeCaseDecoder().decode(TraitCollection.self, from: Data(json.utf8))
    #expect(String(decoding: try snakeCaseEncoder().encode(decoded), as: UTF8.self) == json)
  }
}

private struct KSNestedOptionalTrait: TraitDefinition {
  static let defaultValue: Int?? = nil
  static let identifier = "com.traitkit.tests.ks.nested-optional"
}

@Suite("What coding documents it cannot keep (R13)")
struct CodingLimitsTests {
  @Test("a number beyond a Double's range under an unknown identifier throws, naming both")
  func numberBeyondDoubleRange() throws {
    let json = Data(#"{"com.traitkit.tests.ks.never-known":1e400}"#.utf8)
    do {
      _ = try JSONDecoder().decode(TraitCollection.self, from: json)
      Issue.record("decoding 1e400 under an unknown identifier did not throw")
    } catch DecodingError.dataCorrupted(let context) {
      #expect(context.debugDescription.contains("'com.traitkit.tests.ks.never-known'"))
      #expect(context.debugDescription.contains("a number beyond a Double's range"))
      #expect(context.codingPath.last?.stringValue == "com.traitkit.tests.ks.never-known")
    }
  }

  @Test("a kept number with more digits than a Double holds comes back as the nearest Double")
  func keptNumberAsNearestDouble() throws {
    let json = #"{"com.traitkit.tests.ks.never-known-pi":3.14159265358979323846264338327950288}"#
    let decoded = try JSONDecoder().decode(TraitCollection.self, from: Data(json.utf8))
    let back = String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self)
    #expect(back == #"{"com.traitkit.tests.ks.never-known-pi":3.141592653589793}"#)
  }

  @Test("a nested optional's .some(nil) encodes as null and decodes as nil, as Swift's coding does")
  func nestedOptionalInnerNil() throws {
    let traits = TraitCollection(KSNestedOptionalTrait.self, value: .some(nil))
    let data = try JSONEncoder().encode(traits)
    #expect(
      String(decoding: data, as: UTF8.self) == #"{"com.traitkit.tests.ks.nested-optional":null}"#
    )
    let decoded = try JSONDecoder().decode(TraitCollection.self, from: data)
    #expect(decoded[KSNestedOptionalTrait.self] == nil)
    #expect(decoded == TraitCollection())
  }
}
