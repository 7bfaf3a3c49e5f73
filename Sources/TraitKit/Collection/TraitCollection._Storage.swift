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
/// A slot is one word of plain data (see `_RawSlot`): the bits of a value of at most 8 bytes
/// stored unboxed, or, for a trait whose values are boxed, 0 or the address of a box the storage
/// owns (+1). Whether a trait's values are boxed is the registry's to say, once per trait. Slots
/// are trivially copyable, so copying a collection is one `memcpy` — plus one retain per box, a
/// loop skipped when `boxes` is 0.
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
      _RawSlot.releaseBoxes(slots, count: header.pointee.count)
    }
  }

  // NB: the header through its pointer: `ManagedBuffer.header` is a stored property of a class
  // of another module, so every access through it costs a dynamic exclusivity check, about 85
  // instructions and a thread-local lookup (traitkit-bench S4, S5, S9).
  @usableFromInline @inline(__always) var count: Int {
    withUnsafeMutablePointerToHeader { $0.pointee.count }
  }

  /// A collection of this storage, in the storage itself.
  ///
  /// The address ``TraitNode/traitCollection`` yields on its slow path (a node that was stale
  /// or detached), so that a client reads a trait from it in place, without retaining the
  /// storage; a current node yields its own cell (`TraitNode._resolvedCollection`).
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

  /// The value of trait `T`, whose registry entry is `entry` (see
  /// `_TraitRegistry.registeredEntry(of:)`).
  @inlinable @inline(__always)
  func value<T: TraitDefinition>(_: T.Type, entry: Int) -> T.Value {
    value(T.self, entry: entry, count: count)
  }

  /// The value of trait `T`, whose registry entry is `entry`, in this storage of `count` slots
  /// (a collection's word says how many, so that the read need not load the header).
  @inlinable @inline(__always)
  func value<T: TraitDefinition>(_: T.Type, entry: Int, count: Int) -> T.Value {
    withUnsafeMutablePointerToElements { slots in
      // NB: an unboxed trait's entry is its index, and a boxed trait's is never below `count`:
      // one comparison bounds the index and tells the kinds apart (traitkit-bench S8).
      if _SlotCoding<T.Value>.fitsInBits && entry < count {
        return withUnsafeBytes(of: slots[entry].word) { $0.load(as: T.Value.self) }
      }
      let index = entry & ~_TraitRegistry.boxedFlag
      guard index < count else { return T.defaultValue }
      guard let box = UnsafeRawPointer(bitPattern: UInt(slots[index].word)) else {
        return T.defaultValue
      }
      // NB: the box unretained (the storage holds it): a read then releases nothing, and a
      // client may borrow the collection it reads in place (traitkit-bench S8).
      return Unmanaged<AnyObject>.fromOpaque(box)._withUnsafeGuaranteedRef {
        unsafeDowncast($0, to: _Box<T.Value>.self).value
      }
    }
  }

  /// The slot at `index`, whose trait `info` describes, or the trait's default slot beyond
  /// `count`.
  func slot(at index: Int, info: _TraitInfo) -> _Slot {
    withUnsafeMutablePointers { header, slots in
      guard index < header.pointee.count else { return info.defaultSlot }
      let word = slots[index].word
      guard !info.isInline else { return _Slot(bits: word) }
      // No box: the default slot, whose bits hold the default of a plain-data value that is
      // boxed because it is not `Equatable`.
      guard let box = UnsafeRawPointer(bitPattern: UInt(word)) else { return info.defaultSlot }
      return _Slot(box: Unmanaged<AnyObject>.fromOpaque(box).takeUnretainedValue())
    }
  }

  /// Whether the slots at `index` of `self` and `other` hold the same write (same bits, same
  /// box): a cheap test that implies equal values.
  @inline(__always) func hasIdenticalSlot(at index: Int, as other: _Storage) -> Bool {
    if self === other { return true }
    return rawSlot(at: index).word == other.rawSlot(at: index).word
  }

  /// The raw slot at `index`, or the trait's default slot beyond `count`.
  @inline(__always) func rawSlot(at index: Int) -> _RawSlot {
    withUnsafeMutablePointers { header, slots in
      index < header.pointee.count
        ? slots[index] : _RawSlot(word: _TraitRegistry.defaultWords(index..<index + 1)[0])
    }
  }

  /// Whether the trait at `index` holds equal values in `self` and `other`.
  func slotEqual(at index: Int, to other: _Storage) -> Bool {
    if self === other { return true }
    // NB: each word read once, for the test of identical slots and for the equality of a trait
    // stored inline (traitkit-bench S1).
    let word = rawSlot(at: index).word
    let otherWord = other.rawSlot(at: index).word
    if word == otherWord { return true }
    // NB: the info unretained (the registry never frees one): a pass compares slots per
    // observing node (traitkit-bench S2).
    return _TraitRegistry.infoReference(at: index)._withUnsafeGuaranteedRef { info in
      guard info.isInline else {
        return info.slotsEqual(slot(at: index, info: info), other.slot(at: index, info: info))
      }
      return info.inlineBitsEqual(word, otherWord)
    }
  }

  /// Whether the trait at `index` holds a value other than its default.
  func isPresent(at index: Int, info: _TraitInfo) -> Bool {
    guard index < count else { return false }
    let word = rawSlot(at: index).word
    return info.isInline ? word != info.defaultBits : word != 0
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
        _RawSlot.retainBoxes(target, count: oldCount)
      }
    }
    return copy
  }

  /// Makes this buffer a copy of `source` with at least `count` slots, reusing its memory.
  ///
  /// - Precondition: the buffer is uniquely referenced, holds no boxed values (a spare: see
  ///   `TraitGraph._spareStorages`), and its capacity holds the result.
  func reinitialize(from source: _Storage, count newCount: Int) {
    let sourceCount = source.count
    let resultCount = Swift.max(sourceCount, newCount)
    withUnsafeMutablePointers { header, slots in
      precondition(header.pointee.boxes == 0, "Invariant: a spare collection holds no boxed values")
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
      _RawSlot.retainBoxes(slots, count: sourceCount)
    }
  }

  /// Stores the slot at `index` of `source`, retaining its box and releasing the one it
  /// replaces.
  ///
  /// - Precondition: the buffer is uniquely referenced and `index < count`.
  @inline(__always) func copySlot(at index: Int, from source: _Storage) {
    #if TRAITKIT_INTERNAL_CHECKS
    precondition(index < count, "Invariant: a slot is copied within the collection's slots")
    #endif
    let word = source.rawSlot(at: index).word
    // NB: when neither collection holds a box, a boxed trait's slot is empty in both: the word
    // is copied without asking the registry how the trait is stored (traitkit-bench S1: a node's
    // refresh copies its overrides).
    guard boxCount != 0 || source.boxCount != 0, _TraitRegistry.isBoxed(index) else {
      withUnsafeMutablePointerToElements { $0[index] = _RawSlot(word: word) }
      return
    }
    withUnsafeMutablePointers { header, slots in
      let old = slots[index].box
      slots[index] = _RawSlot(word: word)
      if let box = slots[index].box {
        _ = Unmanaged<AnyObject>.fromOpaque(box).retain()
        header.pointee.boxes += 1
      }
      if let old {
        Unmanaged<AnyObject>.fromOpaque(old).release()
        header.pointee.boxes -= 1
      }
    }
  }

  /// Stores `word` at `index`, the slot of a trait whose values are stored unboxed.
  ///
  /// - Precondition: the buffer is uniquely referenced, `index < count`, and the trait at
  ///   `index` is not boxed.
  @inline(__always) func storeUnboxed(_ word: UInt64, at index: Int) {
    #if TRAITKIT_INTERNAL_CHECKS
    precondition(
      index < count && !_TraitRegistry.isBoxed(index),
      "Invariant: an unboxed slot is stored within the collection's slots"
    )
    #endif
    withUnsafeMutablePointerToElements { $0[index] = _RawSlot(word: word) }
  }

  /// Stores `slot` at `index`, retaining its box and releasing the one it replaces.
  ///
  /// - Precondition: the buffer is uniquely referenced and `index < count`.
  @inline(__always) func store(_ slot: _Slot, at index: Int) {
    let boxed = _TraitRegistry.isBoxed(index)
    withUnsafeMutablePointers { header, slots in
      let old = boxed ? slots[index].box : nil
      if let box = slot.box {
        slots[index] = _RawSlot(box: Unmanaged.passRetained(box).toOpaque())
        header.pointee.boxes += 1
      } else {
        // A boxed trait's slot without a box is its default, stored as 0.
        slots[index] = _RawSlot(word: boxed ? 0 : slot.bits)
      }
      if let old {
        Unmanaged<AnyObject>.fromOpaque(old).release()
        header.pointee.boxes -= 1
      }
    }
  }
}

/// A slot as stored: one word of plain data.
///
/// For a trait whose values are stored unboxed, the value's bits. For a trait whose values are
/// boxed (see `_TraitRegistry.isBoxed(_:)`), 0 when the slot holds no box — the default — or the
/// address of a box the storage owns (+1). One word rather than bits and box side by side halves
/// a collection: a read under overrides touches fewer cache lines and pages (traitkit-bench S8).
@usableFromInline
struct _RawSlot {
  @usableFromInline var word: UInt64

  @inline(__always) init(word: UInt64) { self.word = word }

  @inline(__always) init(box: UnsafeMutableRawPointer) {
    word = UInt64(UInt(bitPattern: box))
  }

  /// The box this slot holds, if the trait's values are boxed; meaningless otherwise.
  @inline(__always) var box: UnsafeMutableRawPointer? {
    UnsafeMutableRawPointer(bitPattern: UInt(word))
  }

  /// Initializes `slots[indices]` with the default slots of those traits.
  static func initializeDefaults(_ slots: UnsafeMutablePointer<_RawSlot>, indices: Range<Int>) {
    guard !indices.isEmpty else { return }
    // NB: one copy of the registry's words, which are slots' words: a loop over them cost 60
    // instructions per refresh of a node whose inherited collection has fewer slots than its
    // overrides (traitkit-bench S1).
    let words = _TraitRegistry.defaultWords(indices)
    UnsafeMutableRawPointer(slots + indices.lowerBound).copyMemory(
      from: words.baseAddress.unsafelyUnwrapped,
      byteCount: words.count &* MemoryLayout<UInt64>.stride
    )
  }

  /// Retains the boxes held by `slots[0..<count]`.
  static func retainBoxes(_ slots: UnsafeMutablePointer<_RawSlot>, count: Int) {
    for (index, boxed) in _TraitRegistry.boxedFlags(0..<count).enumerated() where boxed != 0 {
      if let box = slots[index].box { _ = Unmanaged<AnyObject>.fromOpaque(box).retain() }
    }
  }

  /// Releases the boxes held by `slots[0..<count]`.
  static func releaseBoxes(_ slots: UnsafeMutablePointer<_RawSlot>, count: Int) {
    for (index, boxed) in _TraitRegistry.boxedFlags(0..<count).enumerated() where boxed != 0 {
      if let box = slots[index].box { Unmanaged<AnyObject>.fromOpaque(box).release() }
    }
  }
}

/// The header of a ``_Storage`` buffer.
@usableFromInline
struct _StorageHeader {
  /// The words of a `TraitCollection` of this storage, with no recorder: the storage's address,
  /// unretained (a storage holds no reference to itself), and its count's word (see
  /// `TraitCollection._countWord(_:)`).
  ///
  /// First, so that the header's address is the collection's (see `_Storage._collection`).
  let collection: (storage: UnsafeRawPointer, word: UInt)
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
    collection = (
      UnsafeRawPointer(Unmanaged.passUnretained(storage).toOpaque()),
      TraitCollection._countWord(count)
    )
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
