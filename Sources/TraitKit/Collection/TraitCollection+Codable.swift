extension TraitCollection: Codable {
  /// Encodes the traits that hold a value other than their default, keyed by
  /// ``TraitDefinition/identifier``.
  ///
  /// The collection is written as a dictionary, so that an encoder's key strategy leaves the
  /// identifiers as they are.
  /// Traits whose values are not `Codable` are left out. Entries that were decoded with
  /// identifiers of no known trait are written back unchanged, unless a value has been set under
  /// that identifier since. Inside a tracked closure, encoding a collection counts as a read of
  /// every trait.
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: What the values' own encoding throws.
  public func encode(to encoder: any Encoder) throws {
    _recordComparison(.all)
    // NB: a dictionary keyed by identifier rather than a keyed container: an encoder's key
    // strategy (`JSONEncoder.KeyEncodingStrategy`) rewrites a container's keys, but leaves a
    // dictionary's, which are data, as they are.
    var entries: [String: _EntryEncoding] = [:]
    for index in _storage.presentIndices() {
      let info = _TraitRegistry.info(at: index)
      guard let coding = info.coding else { continue }
      let slot = _storage.slot(at: index, info: info)
      entries[info.identifier] = _EntryEncoding { try coding.encode(slot, $0) }
    }
    // An entry kept from decoding loses to a value set since under the same identifier.
    for (identifier, value) in _storage.unknown?.entries ?? [:] where entries[identifier] == nil {
      entries[identifier] = _EntryEncoding { try value.encode(to: $0) }
    }
    var container = encoder.singleValueContainer()
    try container.encode(entries)
  }

  /// Decodes a collection, keyed by trait identifiers.
  ///
  /// A trait is known once its type has been used or passed to ``registerForDecoding(_:)``.
  /// Entries whose identifiers name no known `Codable` trait are kept and encoded back unchanged
  /// **(beyond UIKit)**, when their values are made of what every decoder reads: nil, Booleans,
  /// integers, floating-point numbers, strings, and arrays and keyed containers of them. A
  /// decoder's value of another kind, such as a property list's date or data, can be read only
  /// as its own type, which the trait would name: decoding then throws. An integer keeps every
  /// digit, up to 128 bits; any other number comes back as the nearest `Double`. A property
  /// list's real with no fraction comes back as an integer.
  ///
  /// The collection is read as a dictionary, whose keys a decoder's key strategy leaves as they
  /// are; the last key of each entry's coding path names its trait.
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError` when the input is not a keyed container, when an entry of a
  ///   known trait does not decode, when an entry of an unknown one holds a value of a kind
  ///   listed above as not kept or a number beyond a `Double`'s range, or when the decoder gives
  ///   an entry no coding path; the error's description names the trait or the identifier.
  public init(from decoder: any Decoder) throws {
    // NB: a dictionary, not a keyed container, as in `encode(to:)`: a decoder's key strategy
    // leaves its keys as they are.
    let entries = try decoder.singleValueContainer().decode([String: _EntryDecoding].self)
    var storage = _Storage.empty
    var unknown: [String: _EncodedValue] = [:]
    for (identifier, entry) in entries {
      switch entry {
      case .known(let index, let slot):
        _Storage.makeUnique(&storage, count: index + 1)
        storage.store(slot, at: index)
      case .unknown(let value):
        unknown[identifier] = value
      }
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
  /// Encodes a slot's value as the single value of an encoder.
  let encode: @Sendable (_Slot, any Encoder) throws -> Void
  /// Decodes the single value of a decoder and returns its canonical slot.
  let decode: @Sendable (any Decoder) throws -> _Slot

  /// The coding of `T`'s values, if they are `Codable`: asked at run time.
  init?<T: TraitDefinition>(_: T.Type) {
    guard T.Value.self is any Decodable.Type, T.Value.self is any Encodable.Type else { return nil }
    typealias Coding = _SlotCoding<T.Value>
    encode = { slot, encoder in
      // NB: `T.Value` is `Encodable`, as checked above; the cast only tells the compiler.
      let value = Coding.value(slot, default: T.defaultValue) as! any Encodable
      var container = encoder.singleValueContainer()
      try _encode(value, into: &container)
    }
    decode = { decoder in
      let decodable = T.Value.self as! any Decodable.Type
      guard let value = try _decode(decodable, from: decoder.singleValueContainer()) as? T.Value
      else {
        preconditionFailure("A decoded value of \(T.self) has another type")
      }
      return Self.slot(of: value, for: T.self)
    }
  }

  /// The coding of `T`'s values, which are `Codable` and `Equatable`: known statically.
  init<T: TraitDefinition>(codable _: T.Type) where T.Value: Codable & Equatable {
    encode = { slot, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(_SlotCoding<T.Value>.value(slot, default: T.defaultValue))
    }
    decode = { decoder in
      Self.slot(of: try decoder.singleValueContainer().decode(T.Value.self), for: T.self)
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

// NB: through the container, not the value's own `encode(to:)` and `init(from:)`, so that the
// coder's strategies for dates, data and the like apply.
private func _encode<Value: Encodable>(
  _ value: Value,
  into container: inout any SingleValueEncodingContainer
) throws {
  try container.encode(value)
}

private func _decode<Value: Decodable>(
  _: Value.Type,
  from container: any SingleValueDecodingContainer
) throws -> Value {
  try container.decode(Value.self)
}

/// One entry of an encoded collection: the value of a trait, or one kept from decoding.
private struct _EntryEncoding: Encodable {
  let body: (any Encoder) throws -> Void

  func encode(to encoder: any Encoder) throws {
    try body(encoder)
  }
}

/// One entry of a collection being decoded, read under the identifier that the decoder's coding
/// path ends with: its key in the encoded dictionary.
private enum _EntryDecoding: Decodable {
  /// The value of the trait with dense index `index`, as its canonical slot.
  case known(index: Int, slot: _Slot)
  /// A value kept under an identifier of no known `Codable` trait.
  case unknown(_EncodedValue)

  init(from decoder: any Decoder) throws {
    guard let identifier = decoder.codingPath.last?.stringValue else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription:
            "Cannot tell which trait an entry is for: the decoder gives the entry no coding path"
        )
      )
    }
    guard let info = _TraitRegistry.info(forIdentifier: identifier), let coding = info.coding
    else {
      do {
        self = .unknown(try _EncodedValue(from: decoder))
      } catch {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: decoder.codingPath,
            debugDescription:
              "Cannot keep the entry under '\(identifier)', which names no known trait: its "
              + "value is of a kind that only its own type reads, or a number beyond a Double's "
              + "range; for the former, use the trait, or pass it to "
              + "TraitCollection.registerForDecoding(_:), before decoding: \(error)",
            underlyingError: error
          )
        )
      }
      return
    }
    do {
      self = .known(index: info.index, slot: try coding.decode(decoder))
    } catch {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription:
            "Cannot decode a value of trait \(info.name) (identifier '\(info.identifier)'): "
            + "\(error)",
          underlyingError: error
        )
      )
    }
  }
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
    // NB: an object read as a dictionary, whose keys a decoder's key strategy leaves alone.
    if (try? decoder.container(keyedBy: _TraitCodingKey.self)) != nil {
      self = .object(try decoder.singleValueContainer().decode([String: _EncodedValue].self))
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
      var container = encoder.singleValueContainer()
      try container.encode(values)
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
