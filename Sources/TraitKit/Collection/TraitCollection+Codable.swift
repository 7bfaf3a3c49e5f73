extension TraitCollection: Codable {
  /// Encodes the traits that hold a value other than their default, keyed by
  /// ``TraitDefinition/identifier``.
  ///
  /// Traits whose values are not `Codable` are left out. Entries that were decoded with
  /// identifiers of no known trait are written back unchanged, unless a value has been set under
  /// that identifier since. Inside a tracked closure, encoding a collection counts as a read of
  /// every trait.
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: What the values' own encoding throws.
  public func encode(to encoder: any Encoder) throws {
    _recordComparison(.all)
    var container = encoder.container(keyedBy: _TraitCodingKey.self)
    var written: Set<String> = []
    for index in _storage.presentIndices() {
      let info = _TraitRegistry.info(at: index)
      guard let coding = info.coding else { continue }
      try coding.encode(
        _storage.slot(at: index, info: info),
        &container,
        _TraitCodingKey(stringValue: info.identifier)
      )
      written.insert(info.identifier)
    }
    // An entry kept from decoding loses to a value set since under the same identifier.
    for (identifier, value) in _storage.unknown?.entries ?? [:]
    where !written.contains(identifier) {
      try container.encode(value, forKey: _TraitCodingKey(stringValue: identifier))
    }
  }

  /// Decodes a collection, keyed by trait identifiers.
  ///
  /// A trait is known once its type has been used or passed to ``registerForDecoding(_:)``.
  /// Entries whose identifiers name no known `Codable` trait are kept and encoded back unchanged
  /// **(beyond UIKit)**, when their values are made of what every decoder reads: nil, Booleans,
  /// integers, floating-point numbers, strings, and arrays and keyed containers of them. A
  /// decoder's value of another kind, such as a property list's date or data, can be read only
  /// as its own type, which the trait would name: decoding then throws. A property list's real
  /// with no fraction comes back as an integer.
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError` when the input is not a keyed container, when an entry of a
  ///   known trait does not decode, or when an entry of an unknown one holds a value of a kind
  ///   listed above as not kept; the error's description names the trait or the identifier.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: _TraitCodingKey.self)
    var storage = _Storage.empty
    var unknown: [String: _EncodedValue] = [:]
    for key in container.allKeys {
      guard let info = _TraitRegistry.info(forIdentifier: key.stringValue),
        let coding = info.coding
      else {
        do {
          unknown[key.stringValue] = try container.decode(_EncodedValue.self, forKey: key)
        } catch {
          throw DecodingError.dataCorrupted(
            DecodingError.Context(
              codingPath: container.codingPath + [key],
              debugDescription:
                "Cannot keep the entry under '\(key.stringValue)', which names no known trait: "
                + "its value is of a kind that only its own type reads; use the trait, or pass it "
                + "to TraitCollection.registerForDecoding(_:), before decoding: \(error)",
              underlyingError: error
            )
          )
        }
        continue
      }
      let slot: _Slot
      do {
        slot = try coding.decode(container, key)
      } catch {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: container.codingPath + [key],
            debugDescription:
              "Cannot decode a value of trait \(info.name) (identifier '\(info.identifier)'): \(error)",
            underlyingError: error
          )
        )
      }
      _Storage.makeUnique(&storage, count: info.index + 1)
      storage.store(slot, at: info.index)
    }
    if !unknown.isEmpty {
      _Storage.makeUnique(&storage, count: 0)
      storage.unknown = _UnknownTraitEntries(entries: unknown)
    }
    self.init(_storage: storage)
  }

  /// Makes `traits` known to decoding, so that their identifiers decode to their values.
  ///
  /// System traits are always known; a custom trait is known once it has been used in any way.
  ///
  /// - Parameter traits: The traits to register.
  /// - Precondition: No two traits share an identifier.
  public static func registerForDecoding(_ traits: [Trait]) {
    for trait in traits { _ = _TraitRegistry.index(of: trait) }
  }
}

/// How one trait's values are encoded and decoded; present when the values are `Codable`.
struct _TraitCoding: Sendable {
  let encode:
    @Sendable (_Slot, inout KeyedEncodingContainer<_TraitCodingKey>, _TraitCodingKey) throws ->
      Void
  /// Decodes a value and returns its canonical slot.
  let decode: @Sendable (KeyedDecodingContainer<_TraitCodingKey>, _TraitCodingKey) throws -> _Slot

  /// The coding of `T`'s values, if they are `Codable`: asked at run time.
  init?<T: TraitDefinition>(_: T.Type) {
    guard T.Value.self is any Decodable.Type, T.Value.self is any Encodable.Type else { return nil }
    typealias Coding = _SlotCoding<T.Value>
    encode = { slot, container, key in
      // NB: `T.Value` is `Encodable`, as checked above; the cast only tells the compiler.
      let value = Coding.value(slot, default: T.defaultValue) as! any Encodable
      try _encode(value, into: &container, forKey: key)
    }
    decode = { container, key in
      let decodable = T.Value.self as! any Decodable.Type
      guard let value = try container.decode(decodable, forKey: key) as? T.Value else {
        preconditionFailure("A decoded value of \(T.self) has another type")
      }
      return Self.slot(of: value, for: T.self)
    }
  }

  /// The coding of `T`'s values, which are `Codable` and `Equatable`: known statically.
  init<T: TraitDefinition>(codable _: T.Type) where T.Value: Codable & Equatable {
    encode = { slot, container, key in
      try container.encode(_SlotCoding<T.Value>.value(slot, default: T.defaultValue), forKey: key)
    }
    decode = { container, key in
      Self.slot(of: try container.decode(T.Value.self, forKey: key), for: T.self)
    }
  }

  /// The canonical slot of a decoded value of `T`: the default slot for a value equal to the
  /// default.
  private static func slot<T: TraitDefinition>(of value: T.Value, for _: T.Type) -> _Slot {
    typealias Coding = _SlotCoding<T.Value>
    if T._isSameValue(value, T.defaultValue) {
      return _Slot(bits: Coding.fitsInBits ? Coding.bits(T.defaultValue) : 0)
    }
    return Coding.slot(value, inline: Coding.storesInline)
  }
}

private func _encode<Value: Encodable>(
  _ value: Value,
  into container: inout KeyedEncodingContainer<_TraitCodingKey>,
  forKey key: _TraitCodingKey
) throws {
  try container.encode(value, forKey: key)
}

/// A coding key made of a trait identifier.
struct _TraitCodingKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

/// Encoded entries whose identifiers named no known trait, kept verbatim.
struct _UnknownTraitEntries: Hashable, Sendable {
  var entries: [String: _EncodedValue]

  /// These entries, overwritten by `other`'s.
  func merging(_ other: _UnknownTraitEntries) -> _UnknownTraitEntries {
    _UnknownTraitEntries(entries: entries.merging(other.entries) { $1 })
  }
}

/// Any value an encoder can hold, decoded without knowing its type.
///
/// A number is kept as the narrowest of these that holds it exactly, so that it is written back
/// with the same value: an integer of up to 128 bits keeps every digit, and negative zero keeps
/// its sign. Any other number comes back as the nearest `Double`, as does an integer that the
/// decoder reads only as a `Double` (`JSONDecoder` reads some written with an exponent so, such
/// as `3.4028236692093846e38`).
enum _EncodedValue: Hashable, Sendable, Codable {
  case null
  case bool(Bool)
  case int(Int64)
  /// An integer above `Int64.max`, which a `Double` would round.
  case uint(UInt64)
  /// An integer outside the 64-bit types, which a `Double` would round; only some decoders, such
  /// as `JSONDecoder`, read these.
  case int128(Int128)
  /// An integer above `Int128.max`.
  case uint128(UInt128)
  /// A number no integer case holds, compared by its bits: an entry read from the same bytes is
  /// the same entry, NaN included.
  case double(_ExactDouble)
  case string(String)
  case array([_EncodedValue])
  case object([String: _EncodedValue])

  init(from decoder: any Decoder) throws {
    if let container = try? decoder.container(keyedBy: _TraitCodingKey.self) {
      var object: [String: _EncodedValue] = [:]
      for key in container.allKeys {
        object[key.stringValue] = try container.decode(_EncodedValue.self, forKey: key)
      }
      self = .object(object)
    } else if var container = try? decoder.unkeyedContainer() {
      var array: [_EncodedValue] = []
      while !container.isAtEnd { array.append(try container.decode(_EncodedValue.self)) }
      self = .array(array)
    } else {
      let container = try decoder.singleValueContainer()
      if container.decodeNil() {
        self = .null
      } else if let value = try? container.decode(Bool.self) {
        self = .bool(value)
      } else if let value = try? container.decode(Int64.self) {
        // NB: decoders read an integral float as an integer, and `-0.0` is integral; only a
        // `Double` keeps its sign.
        if value == 0, let zero = try? container.decode(Double.self), zero.sign == .minus {
          self = .double(_ExactDouble(zero))
        } else {
          self = .int(value)
        }
      } else if let value = try? container.decode(UInt64.self) {
        self = .uint(value)
      } else if let value = try? container.decode(Int128.self) {
        self = .int128(value)
      } else if let value = try? container.decode(UInt128.self) {
        self = .uint128(value)
      } else if let value = try? container.decode(Double.self) {
        self = .double(_ExactDouble(value))
      } else {
        self = .string(try container.decode(String.self))
      }
    }
  }

  func encode(to encoder: any Encoder) throws {
    switch self {
    case .null:
      var container = encoder.singleValueContainer()
      try container.encodeNil()
    case .bool(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .int(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .uint(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .int128(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .uint128(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .double(let number):
      var container = encoder.singleValueContainer()
      try container.encode(number.value)
    case .string(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .array(let values):
      var container = encoder.unkeyedContainer()
      for value in values { try container.encode(value) }
    case .object(let values):
      var container = encoder.container(keyedBy: _TraitCodingKey.self)
      for (key, value) in values {
        try container.encode(value, forKey: _TraitCodingKey(stringValue: key))
      }
    }
  }
}

/// A `Double` equal only to the same bits, hashed by them: unlike `==`, a NaN equals itself, and
/// negative zero differs from zero, as their encodings do.
struct _ExactDouble: Hashable, Sendable {
  let value: Double

  init(_ value: Double) {
    self.value = value
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.value.bitPattern == rhs.value.bitPattern
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(value.bitPattern)
  }
}
