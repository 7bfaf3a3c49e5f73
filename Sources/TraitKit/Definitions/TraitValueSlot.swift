/// One trait's value inside a collection's storage.
///
/// A value that is plain data of at most 8 bytes (`Bool`, `Int`, `Double`, payload-free enums,
/// small structs of those) lives in `bits`, unboxed. Any other value lives in `box`, one box per
/// write, so that "the same write" has an identity even for values that are not `Equatable`.
struct _Slot {
  var bits: UInt64
  var box: AnyObject?

  init(bits: UInt64) {
    self.bits = bits
    self.box = nil
  }

  init(box: AnyObject?) {
    self.bits = 0
    self.box = box
  }
}

/// The box that holds one write of a trait value that is not stored unboxed.
@usableFromInline
final class _Box<Value: Sendable>: Sendable {
  @usableFromInline let value: Value
  init(_ value: Value) { self.value = value }
}

/// How values of one type are put into and taken out of a slot.
///
/// A value is stored unboxed when it is plain data of at most 8 bytes *and* `Equatable`: then
/// equal bits are the same value. A plain-data value that is not `Equatable` is boxed, so that
/// each write keeps its own identity (rule R1). Reading needs no such decision — a slot without
/// a box holds bits — so the read path folds to a load and a bit-cast once `Value` is known: no
/// dynamic cast, no existential.
@usableFromInline
enum _SlotCoding<Value: Sendable> {
  /// Whether values fit in `_Slot.bits`: plain data of at most 8 bytes.
  @inlinable @inline(__always)
  static var fitsInBits: Bool {
    _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
  }

  /// Whether values are stored unboxed.
  ///
  /// Decided once per trait (see `_TraitInfo.isInline`): the negative `Equatable` check is a
  /// run-time conformance lookup.
  static var storesInline: Bool { fitsInBits && Value.self is any Equatable.Type }

  /// The bits of `value`; requires `fitsInBits`.
  @inlinable @inline(__always)
  static func bits(_ value: Value) -> UInt64 {
    var bits: UInt64 = 0
    withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: value, as: Value.self) }
    return bits
  }

  /// Whether `lhs` and `rhs` are `Equatable` values with identical bytes: then they are one
  /// value, whatever `==` says of it (a NaN equals itself, as its write does).
  ///
  /// `Equatable` is asked only of identical values, and is folded away for a known type.
  // NB: plain data of a machine word's size or less compared as an integer, with no local whose
  // address is taken: that would cost the override setter, which asks first, a stack check
  // (traitkit-bench S1, S4 mode=1).
  @inlinable @inline(__always)
  static func areIdenticalEquatableValues(_ lhs: Value, _ rhs: Value) -> Bool {
    let identical: Bool
    switch _isPOD(Value.self) ? MemoryLayout<Value>.size : 0 {
    case 8: identical = unsafeBitCast(lhs, to: UInt64.self) == unsafeBitCast(rhs, to: UInt64.self)
    case 4: identical = unsafeBitCast(lhs, to: UInt32.self) == unsafeBitCast(rhs, to: UInt32.self)
    case 2: identical = unsafeBitCast(lhs, to: UInt16.self) == unsafeBitCast(rhs, to: UInt16.self)
    case 1: identical = unsafeBitCast(lhs, to: UInt8.self) == unsafeBitCast(rhs, to: UInt8.self)
    default: identical = haveIdenticalBytes(lhs, rhs)
    }
    return identical && Value.self is any Equatable.Type
  }

  /// Whether `lhs` and `rhs` have identical bytes (padding included, so equal values may not).
  @usableFromInline
  static func haveIdenticalBytes(_ lhs: Value, _ rhs: Value) -> Bool {
    withUnsafeBytes(of: lhs) { lhs in withUnsafeBytes(of: rhs) { lhs.elementsEqual($0) } }
  }

  /// A slot holding `value`, unboxed when `inline`.
  @inline(__always) static func slot(_ value: Value, inline: Bool) -> _Slot {
    inline ? _Slot(bits: bits(value)) : _Slot(box: _Box(value))
  }

  /// The value stored as `bits` or in `box`; without a box, the bits, or, for a value that does
  /// not fit in bits, the default.
  @inlinable @inline(__always)
  static func value(bits: UInt64, box: AnyObject?, default defaultValue: Value) -> Value {
    if let box { return unsafeDowncast(box, to: _Box<Value>.self).value }
    if fitsInBits { return withUnsafeBytes(of: bits) { $0.load(as: Value.self) } }
    return defaultValue
  }

  /// The value in `slot`; a slot without a box holds bits, or, for a value that does not fit in
  /// bits, the default.
  @inline(__always) static func value(
    _ slot: _Slot,
    default defaultValue: @autoclosure () -> Value
  )
    -> Value
  {
    if let box = slot.box { return unsafeDowncast(box, to: _Box<Value>.self).value }
    if fitsInBits { return withUnsafeBytes(of: slot.bits) { $0.load(as: Value.self) } }
    return defaultValue()
  }
}
