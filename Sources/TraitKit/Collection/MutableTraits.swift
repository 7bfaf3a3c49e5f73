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
    if storage.hasUnknown {
      // Any write under an identifier that decoding kept as unknown replaces the kept entry,
      // even a write of the value the collection already reads (the default).
      let identifier = _TraitRegistry.info(at: index).identifier
      if storage.unknown?.entries[identifier] != nil {
        _Storage.makeUnique(&storage, count: 0)
        storage.unknown?.entries[identifier] = nil
        if storage.unknown?.entries.isEmpty == true { storage.unknown = nil }
      }
    }
    if T.valuesEqual(storage.value(T.self, entry: entry), value) { return }
    let info = _TraitRegistry.info(at: index)
    let slot =
      T.valuesEqual(value, T.defaultValue)
      ? info.defaultSlot : _SlotCoding<T.Value>.slot(value, inline: info.isInline)
    _Storage.makeUnique(&storage, count: index + 1)
    storage.store(slot, at: index)
  }
}
