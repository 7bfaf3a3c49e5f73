/// The trait values a node sets for itself and its subtree.
///
/// The counterpart of UIKit's `UITraitOverrides`. Write overrides through a node's
/// ``TraitNode/traitOverrides``; read effective values from ``TraitNode/traitCollection``:
///
/// ```swift
/// let view = TraitNode()
/// if view.traitOverrides.contains(TraitUserInterfaceStyle.self) {
///   view.traitOverrides.remove(TraitUserInterfaceStyle.self)
/// } else {
///   view.traitOverrides.userInterfaceStyle = .dark
/// }
/// ```
///
/// An override set to a trait's default value is still an override: ``contains(_:)`` is `true`
/// and it masks an inherited value. Writing the value an override already has changes nothing.
public struct TraitOverrides: MutableTraits {
  /// The overridden values, canonical like a collection's (an override to the default holds the
  /// default slot).
  @usableFromInline var _storage = _Storage.empty
  /// The traits that have an override.
  @usableFromInline var _specified = _TraitIndexSet()
  /// The traits whose override changed since the owning node last looked.
  @usableFromInline var _changed = _TraitFilter.none
  /// The stamp of the in-place access of a node's overrides that yielded this value (see
  /// `_nextOverridesAccessStamp()`), or 0.
  ///
  /// Stamps are unique in the process: a node that finds another stamp after the access knows
  /// that the access replaced its overrides whole — with `swap`, or with a value copied out of
  /// this or any earlier access — rather than trait by trait, so that `_changed` says nothing.
  @usableFromInline var _accessStamp: UInt64 = 0

  @inlinable
  init() {}

  /// Returns whether `trait` has an override.
  ///
  /// - Parameter trait: The trait to look for.
  /// - Returns: `true` when an override is set, even one set to the default value.
  public func contains(_ trait: Trait) -> Bool {
    _specified.contains(_TraitRegistry.index(of: trait))
  }

  /// Removes the override of `trait`, so that the node inherits its value again.
  ///
  /// Removing an override that is not set does nothing.
  ///
  /// - Parameter trait: The trait whose override to remove.
  public mutating func remove(_ trait: Trait) {
    let index = _TraitRegistry.index(of: trait)
    guard _specified.contains(index) else { return }
    _specified.remove(index)
    _Storage.makeUnique(&_storage, count: index + 1)
    _storage.store(_TraitRegistry.info(at: index).defaultSlot, at: index)
    _changed |= _TraitFilter(index: index)
  }

  /// The value of the override of `trait`, or `nil` when none is set **(beyond UIKit)**.
  ///
  /// - Parameter trait: The trait to look up.
  /// - Returns: The overriding value, or `nil`.
  public func value<T: TraitDefinition>(for trait: T.Type) -> T.Value? {
    let entry = _TraitRegistry.entry(of: T.self)
    return _specified.contains(entry & ~_TraitRegistry.boxedFlag)
      ? _storage.value(T.self, entry: entry) : nil
  }

  /// The override of `trait`.
  ///
  /// Setting adds or replaces the override; setting the value it already has does nothing.
  ///
  /// - Precondition: Reading requires an override of `trait` (UIKit raises here too); use
  ///   ``value(for:)`` or ``contains(_:)`` to ask first. A write through a key path and an
  ///   in-place change (`toggle()`, `+=`, an `inout` argument) read first, so they need an
  ///   override too: assign the value instead.
  public subscript<T: TraitDefinition>(_ trait: T.Type) -> T.Value {
    get {
      guard let value = value(for: T.self) else {
        _apiMisuse(
          "Can't return value for trait \(T.name) that has no override (a key-path write or "
            + "an in-place change reads it first: assign the value instead)"
        )
      }
      return value
    }
    // NB: inlinable so that a write of the value an override already has is a specialized
    // comparison in the client (traitkit-bench S4 mode=1), and so that a write of an unboxed
    // value compares and encodes it there too, and leaves the engine no generic code to run
    // (traitkit-bench S1).
    @inlinable
    set {
      let entry = _TraitRegistry.entry(of: T.self)
      let index = entry & ~_TraitRegistry.boxedFlag
      if _specified.contains(index), T._isSameValue(_storage.value(T.self, entry: entry), newValue)
      {
        return
      }
      guard entry == index else {
        _set(newValue, for: T.self, at: index)
        return
      }
      _setUnboxed(newValue, for: T.self, at: index)
    }
  }

  /// Sets the override of `trait`, whose dense index is `index`, to `value`.
  @usableFromInline
  mutating func _set<T: TraitDefinition>(_ value: T.Value, for trait: T.Type, at index: Int) {
    _specified.insert(index)
    _TraitMutations.write(value, for: T.self, into: &_storage)
    _changed |= _TraitFilter(index: index)
  }

  /// Sets the override of `trait`, whose dense index is `index` and whose values are stored
  /// unboxed, to `value`.
  ///
  /// - Precondition: the override, if set, is not equal to `value`.
  // NB: inlinable so that the client compares and encodes the value specialized, and out of
  // line so that the setter's no-op path keeps a lean frame: encoding takes a local's address,
  // which costs the frame a stack check (traitkit-bench S4 mode=1: +8% instructions inline).
  @inlinable @inline(never)
  mutating func _setUnboxed<T: TraitDefinition>(
    _ value: T.Value,
    for trait: T.Type,
    at index: Int
  ) {
    _setUnboxed(
      bits: _SlotCoding<T.Value>.bits(value),
      isDefault: T._isSameValue(value, T.defaultValue),
      isStored: !_specified.contains(index)
        && T._isSameValue(_storage.value(T.self, entry: index), value),
      at: index
    )
  }

  /// Sets the override of the trait with dense index `index`, whose values are stored unboxed,
  /// to the value whose bits are `bits`: its default when `isDefault`, and the value the storage
  /// holds already when `isStored`.
  @usableFromInline
  mutating func _setUnboxed(bits: UInt64, isDefault: Bool, isStored: Bool, at index: Int) {
    _specified.insert(index)
    _TraitMutations.writeUnboxed(
      bits: bits,
      isDefault: isDefault,
      isStored: isStored,
      at: index,
      into: &_storage
    )
    _changed |= _TraitFilter(index: index)
  }

  /// Returns `inherited` with these overrides applied, retained, or nil when they change
  /// nothing (the node shares `inherited` then); the copy goes into a spare collection of
  /// `graph`'s with room for `capacity` slots, when it keeps one.
  // NB: mutating, though it changes nothing, so that a node applies the overrides it keeps
  // behind a pointer in place, rather than through a copy that retains and releases each of
  // their fields, and without a closure that retains the node (traitkit-bench S1: four
  // retains and releases per refresh). The collections go in and out unmanaged: the spare
  // comes out of the graph's list with the list's reference and goes to the node with it, and
  // `inherited`, which the caller keeps alive, is never retained (S1: three retains and
  // releases per refresh).
  mutating func applied(
    to inherited: Unmanaged<_Storage>,
    reusingSpareOf graph: Unmanaged<TraitGraph>?,
    capacity: Int
  ) -> Unmanaged<_Storage>? {
    // NB: the overrides' own collection unretained too: read from `self`, which is inout, it
    // was retained around each call that took it.
    let source = Unmanaged.passUnretained(_storage)
    var result: Unmanaged<_Storage>?
    _specified.forEachIndex { index in
      source._withUnsafeGuaranteedRef { source in
        // NB: an override that holds what the collection does already is not copied: beyond
        // both collections' counts, such a slot is not even stored.
        guard
          !(result ?? inherited)._withUnsafeGuaranteedRef({
            $0.hasIdenticalSlot(at: index, as: source)
          })
        else { return }
        if let result {
          result._withUnsafeGuaranteedRef { $0.copySlot(at: index, from: source) }
          return
        }
        // One copy, large enough for every override; into a recycled buffer when one is given.
        let copy: Unmanaged<_Storage>
        if let spare = graph?._withUnsafeGuaranteedRef({ $0._takeSpareStorage(capacity: capacity) })
        {
          inherited._withUnsafeGuaranteedRef { inherited in
            spare._withUnsafeGuaranteedRef {
              $0.reinitialize(from: inherited, count: source.count)
            }
          }
          copy = spare
        } else {
          copy = inherited._withUnsafeGuaranteedRef {
            Unmanaged.passRetained($0.copy(count: source.count))
          }
        }
        copy._withUnsafeGuaranteedRef { $0.copySlot(at: index, from: source) }
        result = copy
      }
    }
    if inherited._withUnsafeGuaranteedRef({ $0.hasUnknown }) {
      return _forgettingUnknownEntries(of: inherited, in: result)
    }
    return result
  }

  /// Returns `result` (or, when it is nil, a copy of `inherited`) without the entries that
  /// decoding kept as unknown under the identifier of a trait these overrides set, or `result`
  /// itself when `inherited` has none of those: an override replaces the kept entry, as any
  /// write under its identifier does, even one of the value the collection already reads.
  // NB: out of line: a collection decoded with unknown entries is the rare case.
  @inline(never)
  private func _forgettingUnknownEntries(
    of inherited: Unmanaged<_Storage>,
    in result: Unmanaged<_Storage>?
  ) -> Unmanaged<_Storage>? {
    var overridden: [Int] = []
    inherited._withUnsafeGuaranteedRef { inherited in
      for index in _specified
      where inherited.unknown?.entries[_TraitRegistry.info(at: index).identifier] != nil {
        overridden.append(index)
      }
    }
    guard !overridden.isEmpty else { return result }
    var storage =
      result?.takeRetainedValue()
      ?? inherited._withUnsafeGuaranteedRef { $0.copy(count: $0.count) }
    for index in overridden { _TraitMutations.forgetUnknown(at: index, in: &storage) }
    return Unmanaged.passRetained(storage)
  }

  /// The traits that have an override, as a summary whose bits each stand for one trait: what
  /// an override shields from changes above it.
  // NB: the summary of the overridden traits without its overflow bit, which stands for every
  // trait beyond the exact ones: no walk over the set for the first 64 traits, and a node
  // recomputes it at each write (traitkit-bench S1).
  var _shield: _TraitFilter {
    var shield = _specified.filter
    shield.high &= ~(1 << 63)
    return shield
  }

  /// The traits whose overrides differ between `self` and `other`, and those that both override
  /// with equal values stored differently (such as `-0.0` and `0.0`, or values that a custom
  /// `valuesEqual` calls equal), which a node taking `other` must store anew.
  func differences(
    from other: TraitOverrides
  ) -> (changed: _TraitFilter, restored: _TraitFilter) {
    var changed = _TraitFilter.none
    var restored = _TraitFilter.none
    for index in _specified where !other._specified.contains(index) {
      changed |= _TraitFilter(index: index)
    }
    for index in other._specified {
      if !_specified.contains(index) || !_storage.slotEqual(at: index, to: other._storage) {
        changed |= _TraitFilter(index: index)
      } else if !_storage.hasIdenticalSlot(at: index, as: other._storage) {
        restored |= _TraitFilter(index: index)
      }
    }
    return (changed, restored)
  }
}
