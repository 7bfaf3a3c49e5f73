/// Everything the engine knows about one trait type, erased so that storage can compare, hash,
/// print and encode a slot without knowing the trait's static type.
///
/// Built once per trait type, the first time the type is used, and never changed afterwards.
final class _TraitInfo: Sendable {
  /// The trait's dense index: its slot in every collection's storage.
  let index: Int
  let type: any TraitDefinition.Type
  let name: String
  let identifier: String
  let affectsColorAppearance: Bool
  /// Whether values are stored unboxed: plain data of at most 8 bytes that is `Equatable`.
  let isInline: Bool
  /// The slot that holds the default value.
  let defaultBits: UInt64
  /// Whether two slots hold equal values (an empty boxed slot holds the default).
  let slotsEqual: @Sendable (_Slot, _Slot) -> Bool
  /// Whether two different bit patterns of a trait stored inline hold equal values.
  // NB: the values' bits alone, without slots whose box fields are released after each call
  // (traitkit-bench S1: a change check of an inline trait).
  let inlineBitsEqual: @Sendable (UInt64, UInt64) -> Bool
  /// Hashes a slot's value, for system traits; for other traits presence alone is hashed.
  let hashSlot: (@Sendable (_Slot, inout Hasher) -> Void)?
  let describeSlot: @Sendable (_Slot) -> String
  /// Present when `Value` is `Codable`.
  let coding: _TraitCoding?

  /// The information on the custom trait `trait`: a custom trait hashes its presence alone, and
  /// whether its values are `Equatable` and `Codable` is asked at run time.
  convenience init<T: TraitDefinition>(_ trait: T.Type, index: Int) {
    self.init(
      trait,
      index: index,
      isInline: _SlotCoding<T.Value>.storesInline,
      hashSlot: nil,
      coding: _TraitCoding(trait)
    )
  }

  // NB: a custom trait may define `valuesEqual` more loosely than its value's `==`, and a hash
  // must agree with `valuesEqual` (R2); so only system traits, whose `valuesEqual` is `==`, hash
  // their values. What a system trait's values conform to is known statically: each question
  // asked at run time instead is a conformance lookup, which the first time for a type scans the
  // process's conformance records (callgrind, traitkit-bench S6: the 18 system traits cost 24.8
  // million instructions to register with every question asked at run time, 0.59 million
  // without).
  /// The information on the system trait `trait`, whose values hash, and are `Equatable` and
  /// `Codable`.
  convenience init<T: _SystemTraitDefinition>(systemTrait trait: T.Type, index: Int) {
    self.init(
      trait,
      index: index,
      isInline: _SlotCoding<T.Value>.fitsInBits,
      hashSlot: { slot, hasher in
        hasher.combine(_SlotCoding<T.Value>.value(slot, default: T.defaultValue))
      },
      coding: _TraitCoding(codable: trait)
    )
  }

  private init<T: TraitDefinition>(
    _ trait: T.Type,
    index: Int,
    isInline inline: Bool,
    hashSlot: (@Sendable (_Slot, inout Hasher) -> Void)?,
    coding: _TraitCoding?
  ) {
    typealias Coding = _SlotCoding<T.Value>
    self.index = index
    self.type = trait
    self.name = T.name
    self.identifier = T.identifier
    self.affectsColorAppearance = T.affectsColorAppearance
    self.isInline = inline
    self.defaultBits = Coding.fitsInBits ? Coding.bits(T.defaultValue) : 0
    self.slotsEqual = { a, b in
      if inline {
        if a.bits == b.bits { return true }
      } else if a.box === b.box {
        return true
      }
      return T._storedValuesEqual(a.bits, a.box, b.bits, b.box)
    }
    self.inlineBitsEqual = { a, b in
      // NB: checked only internally: its one caller asks `isInline` first, on the path of every
      // change check (traitkit-bench S1).
      #if TRAITKIT_INTERNAL_CHECKS
      precondition(inline, "Invariant: only a trait stored inline compares bits alone")
      #endif
      return T._storedValuesEqual(a, nil, b, nil)
    }
    self.hashSlot = hashSlot
    self.describeSlot = { slot in _describe(Coding.value(slot, default: T.defaultValue)) }
    self.coding = coding
  }

  /// A copy of `other` that takes the dense index `index`.
  init(copying other: _TraitInfo, index: Int) {
    self.index = index
    self.type = other.type
    self.name = other.name
    self.identifier = other.identifier
    self.affectsColorAppearance = other.affectsColorAppearance
    self.isInline = other.isInline
    self.defaultBits = other.defaultBits
    self.slotsEqual = other.slotsEqual
    self.inlineBitsEqual = other.inlineBitsEqual
    self.hashSlot = other.hashSlot
    self.describeSlot = other.describeSlot
    self.coding = other.coding
  }

  /// The slot that holds the default value.
  var defaultSlot: _Slot { _Slot(bits: defaultBits) }

  /// The default slot as a storage holds it (see `_RawSlot`): its bits, or 0 (no box) for a
  /// trait whose values are boxed.
  var defaultWord: UInt64 { isInline ? defaultBits : 0 }
}

/// Describes a trait value for debug output, without `Optional(…)` around optional values.
private func _describe<Value>(_ value: Value) -> String {
  (value as? any _OptionalDescribing)?._unwrappedDescription ?? String(describing: value)
}

private protocol _OptionalDescribing {
  var _unwrappedDescription: String { get }
}

extension Optional: _OptionalDescribing {
  fileprivate var _unwrappedDescription: String {
    switch self {
    case .some(let wrapped): String(describing: wrapped)
    case .none: "nil"
    }
  }
}
