/// A type that defines a trait: a piece of data that flows down the trait tree.
///
/// The counterpart of UIKit's `UITraitDefinition`. A trait is identified by its definition
/// *type* — never by an instance or a string — and the only requirement is ``defaultValue``,
/// the value every collection reports until something sets the trait:
///
/// ```swift
/// struct ContainedInSettingsTrait: TraitDefinition {
///   static let defaultValue = false
/// }
/// ```
///
/// Values need not be `Equatable`. Change detection uses ``valuesEqual(_:_:)``, which is `==`
/// for `Equatable` values — a generic trait's too, whose `Value` is `Equatable` only in some
/// specializations; for any other value every write is a change, and a value that was not
/// rewritten never is. `Equatable` values with identical bytes are always one value, so a NaN
/// rewritten is no change. Definitions are `SendableMetatype`s, so that a ``Trait`` can be passed
/// between isolation domains.
///
/// `Equatable` values of plain data of at most 8 bytes — `Bool`, `Int`, `Double`, payload-free
/// enums — are stored unboxed and are the cheapest values to use. Any other value is boxed once
/// per write; a small value that is not `Equatable` is boxed too, so that each write keeps its
/// identity.
public protocol TraitDefinition: SendableMetatype {
  /// The type of the trait's value.
  associatedtype Value: Sendable

  /// The value a trait collection reports when the trait has not been set.
  static var defaultValue: Value { get }

  /// A name for debug output; by default, the name of the definition type.
  static var name: String { get }

  /// A unique string that identifies the trait when a collection is encoded; by default, the
  /// module-qualified name of the definition type. Reverse-DNS strings are recommended.
  ///
  /// Two trait types with one identifier trap, naming both, when the second is first used:
  /// read, written, registered for, or registered for decoding.
  static var identifier: String { get }

  /// Whether a change to this trait can change how dynamic colors resolve; `false` by default.
  static var affectsColorAppearance: Bool { get }

  /// Returns whether two values of this trait are the same value.
  ///
  /// The default is `==` when `Value` is `Equatable`, where the trait conforms or, for a generic
  /// trait, at run time, and `false` otherwise: then a stored value equals only itself, so each
  /// write is a change. If `Value` is `Hashable` and you customize
  /// this method, values it calls equal must have equal hashes.
  ///
  /// The engine asks only of `Equatable` values whose bytes differ: identical ones are one value
  /// whatever this returns, so that a value equals itself stored unboxed or boxed (a NaN
  /// rewritten is no change).
  static func valuesEqual(_ lhs: Value, _ rhs: Value) -> Bool

  // NB: an engine hook, not for conformers to implement. Its default implementation is emitted
  // where a trait conforms, with the concrete `Value`: the engine, which stores values erased,
  // compares two of them without generic code at run time (traitkit-bench S2).
  /// Whether two stored values of this trait are equal: the engine's use of
  /// ``valuesEqual(_:_:)``.
  static func _storedValuesEqual(
    _ lhsBits: UInt64,
    _ lhsBox: AnyObject?,
    _ rhsBits: UInt64,
    _ rhsBox: AnyObject?
  ) -> Bool
}

extension TraitDefinition {
  /// The name of the definition type.
  public static var name: String { _stableTypeName(Self.self, qualified: false) }

  /// The module-qualified name of the definition type, the same in every process.
  ///
  /// A private or local type is named as if it were declared in its module or type directly:
  /// give two such types of one name in one module identifiers of their own.
  public static var identifier: String { _stableTypeName(Self.self, qualified: true) }

  /// `false`: most traits do not affect color appearance.
  public static var affectsColorAppearance: Bool { false }

  /// Returns `lhs == rhs` when `Value` is `Equatable` at run time, and `false` otherwise:
  /// without `Equatable`, a stored value equals only itself.
  ///
  /// A trait gets this default where the conformance cannot see that `Value` is `Equatable`: a
  /// generic trait such as `struct Tagged<V: Sendable>: TraitDefinition`, used with `V == String`.
  public static func valuesEqual(_ lhs: Value, _ rhs: Value) -> Bool {
    // NB: a conformance lookup, which the runtime caches; only values that are not statically
    // `Equatable` come here.
    guard let equatable = Value.self as? any Equatable.Type else { return false }
    return _valuesEqual(lhs, rhs, as: equatable)
  }

  /// Compares two stored values as ``_isSameValue(_:_:)`` does.
  @inlinable
  public static func _storedValuesEqual(
    _ lhsBits: UInt64,
    _ lhsBox: AnyObject?,
    _ rhsBits: UInt64,
    _ rhsBox: AnyObject?
  ) -> Bool {
    _isSameValue(
      _SlotCoding<Value>.value(bits: lhsBits, box: lhsBox, default: defaultValue),
      _SlotCoding<Value>.value(bits: rhsBits, box: rhsBox, default: defaultValue)
    )
  }

  /// Whether `lhs` and `rhs` are the same value of this trait, as the engine decides it: they
  /// are `Equatable` values with identical bytes, or ``valuesEqual(_:_:)`` calls them equal.
  ///
  /// Identical bytes first, so that a value equals itself however it is stored: a NaN written
  /// twice is one value whether it is stored unboxed (a `Double`) or boxed (a `Double?`), as a
  /// collection is equal to its copies.
  @inlinable @inline(__always)
  static func _isSameValue(_ lhs: Value, _ rhs: Value) -> Bool {
    _SlotCoding<Value>.areIdenticalEquatableValues(lhs, rhs) || valuesEqual(lhs, rhs)
  }
}

/// Whether `lhs` and `rhs`, both of type `E`, are equal.
private func _valuesEqual<Value, E: Equatable>(_ lhs: Value, _ rhs: Value, as _: E.Type) -> Bool {
  lhs as! E == rhs as! E
}

extension TraitDefinition where Value: Equatable {
  /// Returns `lhs == rhs`.
  public static func valuesEqual(_ lhs: Value, _ rhs: Value) -> Bool { lhs == rhs }
}

/// A trait, named by its definition type; the counterpart of UIKit's `UITrait`.
///
/// In a file that also imports Swift Testing, which declares its own `Trait`, write
/// `any TraitDefinition.Type` or `TraitKit.Trait`.
public typealias Trait = any TraitDefinition.Type
