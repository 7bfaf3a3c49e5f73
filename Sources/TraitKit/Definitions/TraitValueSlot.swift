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
final class _Box<Value: Sendable>: Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// How values of one type are put into and taken out of a slot.
///
/// Every member folds to a constant once `Value` is known, so that the generic accessors compile
/// to a load and a bit-cast for unboxed values: no dynamic cast, no existential.
enum _SlotCoding<Value: Sendable> {
  /// Whether values are stored unboxed, in `_Slot.bits`.
  @inline(__always) static var isInline: Bool {
    _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
  }

  @inline(__always) static func slot(_ value: Value) -> _Slot {
    if isInline {
      var bits: UInt64 = 0
      withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: value, as: Value.self) }
      return _Slot(bits: bits)
    }
    return _Slot(box: _Box(value))
  }

  /// The value in `slot`, or `defaultValue` when a boxed slot is empty.
  @inline(__always) static func value(
    _ slot: _Slot,
    default defaultValue: @autoclosure () -> Value
  )
    -> Value
  {
    if isInline {
      return withUnsafeBytes(of: slot.bits) { $0.load(as: Value.self) }
    }
    guard let box = slot.box else { return defaultValue() }
    return unsafeDowncast(box, to: _Box<Value>.self).value
  }
}
