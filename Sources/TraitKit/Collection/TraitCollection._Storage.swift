/// The storage behind a ``TraitCollection``: one slot per trait, indexed by the trait's dense
/// index, in a single tail-allocated buffer.
///
/// Layout:
///
///     header: count (slots in use), unknown (entries decoded with unknown identifiers, usually nil)
///     slots:  [_Slot] × count — slot i holds the trait with dense index i
///
/// A slot is 16 bytes: `bits` holds a value of at most 8 bytes of plain data unboxed, `box` holds
/// any other value. A trait beyond `count`, or whose slot holds the default slot (the default's
/// bits, or no box), is *absent* and reads as its default. Collections are canonical: a write of
/// a value equal to the default stores the default slot, so "set to the default" and "not set"
/// are the same collection. Reading a trait is one bounds check and one load.
///
/// Storage is immutable once it is wrapped in a collection; the mutation entry points below are
/// only called while the buffer is uniquely referenced (copy-on-write).
final class _Storage: ManagedBuffer<_StorageHeader, _Slot> {

  /// The empty collection's storage, shared by every empty collection.
  // NB: `ManagedBuffer` is not `Sendable`; a storage is immutable once shared (see above).
  nonisolated(unsafe) static let empty = _Storage.make(count: 0, minimumCapacity: 0)

  /// A buffer with `count` slots, each holding its trait's default slot.
  static func make(count: Int, minimumCapacity: Int) -> _Storage {
    let buffer = _Storage.create(minimumCapacity: Swift.max(count, minimumCapacity)) { _ in
      _StorageHeader(count: count, unknown: nil)
    }
    let storage = unsafeDowncast(buffer, to: _Storage.self)
    storage.withUnsafeMutablePointerToElements { slots in
      for index in 0..<count {
        (slots + index).initialize(to: _TraitRegistry.info(at: index).defaultSlot)
      }
    }
    return storage
  }

  deinit {
    withUnsafeMutablePointers { header, slots in
      _ = slots.deinitialize(count: header.pointee.count)
    }
  }

  @inline(__always) var count: Int { header.count }

  /// The value of trait `T`, whose dense index is `index`.
  @inline(__always) func value<T: TraitDefinition>(_: T.Type, at index: Int) -> T.Value {
    withUnsafeMutablePointers { header, slots in
      guard index < header.pointee.count else { return T.defaultValue }
      if _SlotCoding<T.Value>.isInline {
        return withUnsafeBytes(of: slots[index].bits) { $0.load(as: T.Value.self) }
      }
      guard let box = slots[index].box else { return T.defaultValue }
      return unsafeDowncast(box, to: _Box<T.Value>.self).value
    }
  }

  /// The slot at `index`, or the trait's default slot beyond `count`.
  @inline(__always) func slot(at index: Int) -> _Slot {
    withUnsafeMutablePointers { header, slots in
      index < header.pointee.count ? slots[index] : _TraitRegistry.info(at: index).defaultSlot
    }
  }

  /// Whether the slots at `index` of `self` and `other` hold the same write (same bits, same
  /// box): a cheap test that implies equal values.
  @inline(__always) func hasIdenticalSlot(at index: Int, as other: _Storage) -> Bool {
    if self === other { return true }
    let count = header.count
    let otherCount = other.header.count
    if index < count && index < otherCount {
      return withUnsafeMutablePointerToElements { slots in
        other.withUnsafeMutablePointerToElements { otherSlots in
          slots[index].bits == otherSlots[index].bits && slots[index].box === otherSlots[index].box
        }
      }
    }
    return index >= count && index >= otherCount
  }

  /// Whether the trait at `index` holds equal values in `self` and `other`.
  func slotEqual(at index: Int, to other: _Storage) -> Bool {
    if hasIdenticalSlot(at: index, as: other) { return true }
    return _TraitRegistry.info(at: index).slotsEqual(slot(at: index), other.slot(at: index))
  }

  /// Whether the trait at `index` holds a value other than its default.
  func isPresent(at index: Int, info: _TraitInfo) -> Bool {
    guard index < count else { return false }
    return withUnsafeMutablePointerToElements { slots in
      info.isInline ? slots[index].bits != info.defaultBits : slots[index].box != nil
    }
  }

  /// The dense indices of the traits that hold a value other than their default.
  func presentIndices() -> [Int] {
    (0..<count).filter { isPresent(at: $0, info: _TraitRegistry.info(at: $0)) }
  }

  // MARK: - Copy-on-write mutation

  /// A copy with at least `count` slots.
  func copy(count newCount: Int) -> _Storage {
    let oldCount = count
    let resultCount = Swift.max(oldCount, newCount)
    let buffer = _Storage.create(minimumCapacity: resultCount) { _ in
      _StorageHeader(count: resultCount, unknown: nil)
    }
    let copy = unsafeDowncast(buffer, to: _Storage.self)
    copy.header.unknown = header.unknown
    withUnsafeMutablePointerToElements { source in
      copy.withUnsafeMutablePointerToElements { target in
        target.initialize(from: source, count: oldCount)
        for index in oldCount..<resultCount {
          (target + index).initialize(to: _TraitRegistry.info(at: index).defaultSlot)
        }
      }
    }
    return copy
  }

  /// Stores `slot` at `index`.
  ///
  /// - Precondition: the buffer is uniquely referenced and `index < count`.
  @inline(__always) func store(_ slot: _Slot, at index: Int) {
    withUnsafeMutablePointerToElements { slots in slots[index] = slot }
  }
}

/// The header of a ``_Storage`` buffer.
struct _StorageHeader {
  /// The number of initialized slots.
  var count: Int
  /// Encoded entries whose identifiers named no known trait, kept so that they are written back.
  var unknown: _UnknownTraitEntries?
}

extension _Storage {
  /// Makes `storage` uniquely referenced with at least `count` slots, copying at most once.
  @inline(__always) static func makeUnique(_ storage: inout _Storage, count: Int) {
    if !isKnownUniquelyReferenced(&storage) || storage.count < count || storage === _Storage.empty {
      storage = storage.copy(count: count)
    }
  }
}
