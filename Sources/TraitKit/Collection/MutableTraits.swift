/// A mutable container of trait values, handed to the closures that build trait collections.
///
/// The counterpart of UIKit's `UIMutableTraits`. Give each custom trait a get/set property in an
/// extension of this protocol, beside a read-only property on ``TraitCollection``:
///
/// ```swift
/// extension MutableTraits {
///   var isContainedInSettings: Bool {
///     get { self[ContainedInSettingsTrait.self] }
///     set { self[ContainedInSettingsTrait.self] = newValue }
///   }
/// }
/// ```
public protocol MutableTraits {
  /// The value of `trait`.
  subscript<T: TraitDefinition>(_ trait: T.Type) -> T.Value { get set }
}

/// The ``MutableTraits`` that ``TraitCollection/init(mutations:)`` and
/// ``TraitCollection/modifyingTraits(_:)`` hand to their closure.
///
/// It writes straight into a collection's storage: the first write that changes a value copies
/// the storage (once), later writes go in place, and writes of equal values do nothing.
struct _TraitMutations: MutableTraits {
  var storage: _Storage

  subscript<T: TraitDefinition>(_ trait: T.Type) -> T.Value {
    get { storage.value(T.self, entry: _TraitRegistry.entry(of: T.self)) }
    set { Self.write(newValue, for: T.self, into: &storage) }
  }

  /// Writes `value` for `trait`, keeping the storage canonical; does nothing for an equal value.
  static func write<T: TraitDefinition>(
    _ value: T.Value,
    for trait: T.Type,
    into storage: inout _Storage
  ) {
    let entry = _TraitRegistry.entry(of: T.self)
    let index = entry & ~_TraitRegistry.boxedFlag
    if storage.hasUnknown { forgetUnknown(at: index, in: &storage) }
    if T._isSameValue(storage.value(T.self, entry: entry), value) { return }
    let info = _TraitRegistry.info(at: index)
    let slot =
      T._isSameValue(value, T.defaultValue)
      ? info.defaultSlot : _SlotCoding<T.Value>.slot(value, inline: info.isInline)
    _Storage.makeUnique(&storage, count: index + 1)
    storage.store(slot, at: index)
  }

  /// Writes the unboxed value whose bits are `bits` for the trait with dense index `index`, as
  /// ``write(_:for:into:)`` does: the caller, specialized for the trait, tells whether the value
  /// is the trait's default and whether the storage holds it already.
  ///
  /// - Precondition: the trait's values are stored unboxed.
  static func writeUnboxed(
    bits: UInt64,
    isDefault: Bool,
    isStored: Bool,
    at index: Int,
    into storage: inout _Storage
  ) {
    if storage.hasUnknown { forgetUnknown(at: index, in: &storage) }
    if isStored { return }
    // NB: the word stored as it is, without a slot to release or a look at how the trait is
    // stored (traitkit-bench S1).
    let word = isDefault ? _TraitRegistry.defaultWords(index..<index + 1)[0] : bits
    _Storage.makeUnique(&storage, count: index + 1)
    storage.storeUnboxed(word, at: index)
  }

  /// Drops the entry that decoding kept as unknown under the identifier of the trait with dense
  /// index `index`, if any: any write under that identifier replaces it, even a write of the
  /// value the collection already reads (the default).
  static func forgetUnknown(at index: Int, in storage: inout _Storage) {
    let identifier = _TraitRegistry.info(at: index).identifier
    guard storage.unknown?.entries[identifier] != nil else { return }
    _Storage.makeUnique(&storage, count: 0)
    storage.unknown?.entries[identifier] = nil
    if storage.unknown?.entries.isEmpty == true { storage.unknown = nil }
  }
}
