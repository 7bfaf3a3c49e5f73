import Synchronization

/// The storage behind a ``TraitCollection``: one slot per trait, indexed by the trait's dense
/// index, in a single tail-allocated buffer.
///
/// Layout:
///
///     header: collection (this storage's own collection, see `_collection`),
///             count (slots in use), boxes (slots holding a box),
///             unknown (entries decoded with unknown identifiers, usually nil)
///     slots:  [_RawSlot] × count — slot i holds the trait with dense index i
///
/// A slot is 16 bytes of plain data: `bits` holds a value of at most 8 bytes unboxed, `box` an
/// owned (+1) reference to the box of any other value. Slots are trivially copyable, so copying
/// a collection is one `memcpy` — plus one retain per box, a loop skipped when `boxes` is 0.
///
/// A trait beyond `count`, or whose slot is its default slot (the default's bits, or no box), is
/// *absent* and reads as its default. Collections are canonical: a write of a value equal to the
/// default stores the default slot, so "set to the default" and "not set" are the same
/// collection. Reading a trait is one bounds check and one load.
///
/// Storage is immutable once it is wrapped in a collection; the mutation entry points below are
/// only called while the buffer is uniquely referenced (copy-on-write).
@usableFromInline
final class _Storage: ManagedBuffer<_StorageHeader, _RawSlot> {
  /// The empty collection's storage, shared by every empty collection.
  // NB: `ManagedBuffer` is not `Sendable`; a storage is immutable once shared (see above).
  nonisolated(unsafe) static let empty = _Storage.make(count: 0, minimumCapacity: 0)

  /// Advances whenever a storage is allocated, so that a table keyed by storage addresses can
  /// tell a reused address from the storage it saw (see `_ChangeCache`).
  static let allocations = Atomic<UInt64>(0)

  /// A buffer with `count` slots, each holding its trait's default slot.
  static func make(count: Int, minimumCapacity: Int) -> _Storage {
    allocations.wrappingAdd(1, ordering: .relaxed)
    let buffer = _Storage.create(minimumCapacity: Swift.max(count, minimumCapacity)) {
      _StorageHeader(of: $0, count: count, boxes: 0, unknown: nil)
    }
    let storage = unsafeDowncast(buffer, to: _Storage.self)
    storage.withUnsafeMutablePointerToElements { slots in
      _RawSlot.initializeDefaults(slots, indices: 0..<count)
    }
    return storage
  }

  deinit {
    withUnsafeMutablePointers { header, slots in
      guard header.pointee.boxes > 0 else { return }
      for index in 0..<header.pointee.count {
        if let box = slots[index].box { Unmanaged<AnyObject>.fromOpaque(box).release() }
      }
    }
  }

  // NB: the header through its pointer: `ManagedBuffer.header` is a stored property of a class
  // of another module, so every access through it costs a dynamic exclusivity check, about 85
  // instructions and a thread-local lookup (traitkit-bench S4, S5, S9).
  @inline(__always) var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

  /// A collection of this storage, in the storage itself: the address
  /// ``TraitNode/traitCollection`` yields, so that a client reads a trait from it in place,
  /// without retaining the storage.
  ///
  /// Valid while the storage lives.
  @inlinable @inline(__always)
  var _collection: UnsafePointer<TraitCollection> {
    withUnsafeMutablePointerToHeader {
      UnsafeRawPointer($0).assumingMemoryBound(to: TraitCollection.self)
    }
  }

  /// The number of slots that hold a box.
  @inline(__always) var boxCount: Int { withUnsafeMutablePointerToHeader { $0.pointee.boxes } }

  /// Whether decoding kept entries with unknown identifiers.
  @inline(__always) var hasUnknown: Bool {
    withUnsafeMutablePointerToHeader { $0.pointee.unknown != nil }
  }

  /// The entries that decoding kept because their identifiers named no known trait.
  ///
  /// Set it only while the buffer is uniquely referenced.
  var unknown: _UnknownTraitEntries? {
    get { withUnsafeMutablePointerToHeader { $0.pointee.unknown } }
    set { withUnsafeMutablePointerToHeader { $0.pointee.unknown = newValue } }
  }

  /// The value of trait `T`, whose dense index is `index`.
  @inlinable @inline(__always)
  func value<T: TraitDefinition>(_: T.Type, at index: Int) -> T.Value {
    withUnsafeMutablePointers { header, slots in
      guard index < header.pointee.count else { return T.defaultValue }
      guard let box = slots[index].box else {
        guard _SlotCoding<T.Value>.fitsInBits else { return T.defaultValue }
        return withUnsafeBytes(of: slots[index].bits) { $0.load(as: T.Value.self) }
      }
      // NB: the box unretained (the storage holds it): a read then releases nothing, and a
      // client may borrow the collection it reads in place (traitkit-bench S8).
      return Unmanaged<AnyObject>.fromOpaque(box)._withUnsafeGuaranteedRef {
        unsafeDowncast($0, to: _Box<T.Value>.self).value
      }
    }
  }

  /// The slot at `index`, or the trait's default slot beyond `count`.
  func slot(at index: Int) -> _Slot {
    withUnsafeMutablePointers { header, slots in
      guard index < header.pointee.count else { return _TraitRegistry.info(at: index).defaultSlot }
      let raw = slots[index]
      guard let box = raw.box else { return _Slot(bits: raw.bits) }
      return _Slot(box: Unmanaged<AnyObject>.fromOpaque(box).takeUnretainedValue())
    }
  }

  /// Whether the slots at `index` of `self` and `other` hold the same write (same bits, same
  /// box): a cheap test that implies equal values.
  @inline(__always) func hasIdenticalSlot(at index: Int, as other: _Storage) -> Bool {
    if self === other { return true }
    let lhs = rawSlot(at: index)
    let rhs = other.rawSlot(at: index)
    return lhs.bits == rhs.bits && lhs.box == rhs.box
  }

  /// The raw slot at `index`, or the trait's default slot beyond `count`.
  @inline(__always) func rawSlot(at index: Int) -> _RawSlot {
    withUnsafeMutablePointers { header, slots in
      index < header.pointee.count
        ? slots[index] : _RawSlot(bits: _TraitRegistry.defaultBits(index..<index + 1)[0], box: nil)
    }
  }

  /// Whether the trait at `index` holds equal values in `self` and `other`.
  func slotEqual(at index: Int, to other: _Storage) -> Bool {
    if hasIdenticalSlot(at: index, as: other) { return true }
    // NB: the info unretained (the registry never frees one): a pass compares slots per
    // observing node (traitkit-bench S2).
    return _TraitRegistry.infoReference(at: index)._withUnsafeGuaranteedRef {
      $0.slotsEqual(slot(at: index), other.slot(at: index))
    }
  }

  /// Whether the trait at `index` holds a value other than its default.
  func isPresent(at index: Int, info: _TraitInfo) -> Bool {
    guard index < count else { return false }
    let raw = rawSlot(at: index)
    return info.isInline ? raw.bits != info.defaultBits : raw.box != nil
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
    _Storage.allocations.wrappingAdd(1, ordering: .relaxed)
    let buffer = _Storage.create(minimumCapacity: resultCount) {
      _StorageHeader(of: $0, count: resultCount, boxes: boxCount, unknown: unknown)
    }
    let copy = unsafeDowncast(buffer, to: _Storage.self)
    withUnsafeMutablePointerToElements { source in
      copy.withUnsafeMutablePointerToElements { target in
        target.initialize(from: source, count: oldCount)
        _RawSlot.initializeDefaults(target, indices: oldCount..<resultCount)
        guard boxCount > 0 else { return }
        for index in 0..<oldCount {
          if let box = target[index].box { _ = Unmanaged<AnyObject>.fromOpaque(box).retain() }
        }
      }
    }
    return copy
  }

  /// Makes this buffer a copy of `source` with at least `count` slots, reusing its memory.
  ///
  /// - Precondition: the buffer is uniquely referenced and its capacity holds the result.
  func reinitialize(from source: _Storage, count newCount: Int) {
    let sourceCount = source.count
    let resultCount = Swift.max(sourceCount, newCount)
    withUnsafeMutablePointers { header, slots in
      if header.pointee.boxes > 0 {
        for index in 0..<header.pointee.count {
          if let box = slots[index].box { Unmanaged<AnyObject>.fromOpaque(box).release() }
        }
      }
      header.pointee = _StorageHeader(
        of: self,
        count: resultCount,
        boxes: source.boxCount,
        unknown: source.unknown
      )
      source.withUnsafeMutablePointerToElements { sourceSlots in
        slots.update(from: sourceSlots, count: sourceCount)
      }
      _RawSlot.initializeDefaults(slots, indices: sourceCount..<resultCount)
      guard header.pointee.boxes > 0 else { return }
      for index in 0..<sourceCount {
        if let box = slots[index].box { _ = Unmanaged<AnyObject>.fromOpaque(box).retain() }
      }
    }
  }

  /// Stores `slot` at `index`, retaining its box and releasing the one it replaces.
  ///
  /// - Precondition: the buffer is uniquely referenced and `index < count`.
  @inline(__always) func store(_ slot: _Slot, at index: Int) {
    withUnsafeMutablePointers { header, slots in
      let old = slots[index].box
      var new: UnsafeMutableRawPointer?
      if let box = slot.box {
        new = Unmanaged.passRetained(box).toOpaque()
        header.pointee.boxes += 1
      }
      slots[index] = _RawSlot(bits: slot.bits, box: new)
      if let old {
        Unmanaged<AnyObject>.fromOpaque(old).release()
        header.pointee.boxes -= 1
      }
    }
  }
}

/// A slot as stored: plain data, its box (if any) owned by the storage.
@usableFromInline
struct _RawSlot {
  @usableFromInline var bits: UInt64
  @usableFromInline var box: UnsafeMutableRawPointer?

  /// Initializes `slots[indices]` with the default slots of those traits.
  static func initializeDefaults(_ slots: UnsafeMutablePointer<_RawSlot>, indices: Range<Int>) {
    guard !indices.isEmpty else { return }
    for (offset, bits) in _TraitRegistry.defaultBits(indices).enumerated() {
      (slots + indices.lowerBound + offset).initialize(to: _RawSlot(bits: bits, box: nil))
    }
  }
}

/// The header of a ``_Storage`` buffer.
@usableFromInline
struct _StorageHeader {
  /// The words of a `TraitCollection` of this storage, with no recorder: the storage's address,
  /// unretained (a storage holds no reference to itself), and zero.
  ///
  /// First, so that the header's address is the collection's (see `_Storage._collection`).
  let collection: (storage: UnsafeRawPointer, recorder: UnsafeRawPointer?)
  /// The number of initialized slots.
  @usableFromInline var count: Int
  /// The number of slots that hold a box.
  var boxes: Int
  /// Encoded entries whose identifiers named no known trait, kept so that they are written back.
  var unknown: _UnknownTraitEntries?

  init(
    of storage: ManagedBuffer<_StorageHeader, _RawSlot>,
    count: Int,
    boxes: Int,
    unknown: _UnknownTraitEntries?
  ) {
    // NB: the cell's layout is a TraitCollection's (checked in InPlaceReadTests).
    collection = (UnsafeRawPointer(Unmanaged.passUnretained(storage).toOpaque()), nil)
    self.count = count
    self.boxes = boxes
    self.unknown = unknown
  }
}

extension _Storage {
  /// Makes `storage` uniquely referenced with at least `count` slots, copying at most once.
  @inline(__always) static func makeUnique(_ storage: inout _Storage, count: Int) {
    if !isKnownUniquelyReferenced(&storage) || storage.count < count {
      storage = storage.copy(count: count)
    }
  }
}
