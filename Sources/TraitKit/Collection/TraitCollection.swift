/// An immutable set of trait values.
///
/// The counterpart of UIKit's `UITraitCollection`. A trait that a collection does not set reads
/// as its ``TraitDefinition/defaultValue``, and setting a trait to its default is the same as not
/// setting it. Collections are values: copying one copies a reference, and building a modified
/// collection copies its storage at most once.
///
/// ```swift
/// let myTraits = TraitCollection { mutableTraits in
///   mutableTraits.userInterfaceIdiom = .phone
///   mutableTraits.horizontalSizeClass = .regular
/// }
/// let otherTraits = myTraits.modifyingTraits { mutableTraits in
///   mutableTraits.horizontalSizeClass = .compact
///   mutableTraits.userInterfaceStyle = .dark
/// }
/// ```
public struct TraitCollection: Sendable {
  // NB: `_Storage` is a `ManagedBuffer`, which cannot be `Sendable`; it is immutable once a
  // collection holds it, which makes sharing it across domains safe.
  @usableFromInline nonisolated(unsafe) let _storage: _Storage
  /// The address of the automatic-tracking recorder this collection reports reads to, when it
  /// was obtained from a node inside a tracked closure; otherwise the storage's slot count,
  /// tagged (see `_countWord(_:)`).
  ///
  /// A recorder is unretained, so that handing out and dropping a collection costs one reference
  /// count, not two: a read follows it only after finding it among the recorders of a tracked
  /// closure running on the reading thread, which keep it alive (see
  /// `_TrackingRecord.recordRead`). A count lets a read bound its index without loading the
  /// storage's header: it then touches one line of the storage, the slot's (traitkit-bench S8).
  @usableFromInline let _word: UInt

  @inlinable
  init(_storage: _Storage, recorder: Unmanaged<_TraitReadRecorder>? = nil) {
    self._storage = _storage
    if let recorder {
      _word = UInt(bitPattern: recorder.toOpaque())
    } else {
      _word = Self._countWord(_storage.count)
    }
  }

  /// The word of a collection with no recorder whose storage has `count` slots: the count
  /// shifted left once, with the low bit set, which an object's address never has.
  @inlinable @inline(__always)
  static func _countWord(_ count: Int) -> UInt {
    UInt(bitPattern: count) &<< 1 | 1
  }

  /// The recorder this collection reports reads to, if any.
  @inlinable
  var _recorder: Unmanaged<_TraitReadRecorder>? {
    guard _word & 1 == 0 else { return nil }
    return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: _word)!)
  }

  /// Creates a collection in which every trait has its default value.
  public init() {
    self.init(_storage: .empty)
  }

  /// Creates a collection from the values that `mutations` sets.
  ///
  /// - Parameter mutations: A closure that sets trait values on the container it is passed.
  /// - Precondition: The closure leaves its argument the container it was passed.
  public init(mutations: (inout any MutableTraits) -> Void) {
    self = TraitCollection().modifyingTraits(mutations)
  }

  /// Creates a collection that sets one trait.
  ///
  /// - Parameters:
  ///   - trait: The trait to set.
  ///   - value: Its value.
  public init<T: TraitDefinition>(_ trait: T.Type, value: T.Value) {
    var storage = _Storage.empty
    _TraitMutations.write(value, for: T.self, into: &storage)
    self.init(_storage: storage)
  }

  /// Returns a copy of this collection with the changes that `mutations` makes.
  ///
  /// Values the closure does not touch are kept. When the closure changes nothing, the result
  /// shares this collection's storage. Inside a tracked closure, making the copy counts as a
  /// read of every trait of this collection, which the copy and the closure's reads take their
  /// values from.
  ///
  /// - Parameter mutations: A closure that sets trait values on the container it is passed.
  /// - Returns: The modified collection.
  /// - Precondition: The closure leaves its argument a container of this collection's making.
  /// - Complexity: O(*n*) for the one copy of the storage, where *n* is the number of traits.
  public func modifyingTraits(_ mutations: (inout any MutableTraits) -> Void) -> TraitCollection {
    _recordComparison(.all)
    var traits: any MutableTraits = _TraitMutations(storage: _storage)
    mutations(&traits)
    guard let result = traits as? _TraitMutations else {
      _apiMisuse(
        "A trait mutations closure must not replace its MutableTraits with another value"
      )
    }
    return TraitCollection(_storage: result.storage)
  }

  /// Returns a copy of this collection with one trait replaced.
  ///
  /// Inside a tracked closure, making the copy counts as a read of every trait of this
  /// collection, which the copy takes its other values from.
  ///
  /// - Parameters:
  ///   - trait: The trait to replace.
  ///   - value: Its new value.
  /// - Returns: The modified collection.
  public func replacing<T: TraitDefinition>(_ trait: T.Type, value: T.Value) -> TraitCollection {
    _recordComparison(.all)
    var storage = _storage
    _TraitMutations.write(value, for: T.self, into: &storage)
    return TraitCollection(_storage: storage)
  }

  /// The value of `trait` in this collection.
  ///
  /// Reading a trait is an indexed load. Inside a tracked closure (see
  /// ``TraitNode/withTraitTracking(slot:invalidation:_:)``), the read is also recorded.
  @inlinable @inline(__always)
  public subscript<T: TraitDefinition>(_ trait: T.Type) -> T.Value {
    // NB: no call that may write memory uses the collection — the recorded read gets plain
    // words, and the first read of a trait type, which registers it, needs no storage — so that
    // a client borrows a node's collection in place, unretained (traitkit-bench S8).
    let word = _word
    guard word & 1 != 0 else {
      return Self._recordedRead(
        T.self,
        of: Unmanaged.passUnretained(_storage),
        by: Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped)
      )
    }
    guard let entry = _TraitRegistry.registeredEntry(of: T.self) else {
      return Self._readUnlisted(
        T.self,
        of: Unmanaged.passUnretained(_storage),
        count: Int(bitPattern: word &>> 1)
      )
    }
    return _storage.value(T.self, entry: entry, count: Int(bitPattern: word &>> 1))
  }

  /// A read whose lookup found no entry for `T`: the first read of a type, which registers it
  /// and gets its default value, or a read in a client with its own copy of the published
  /// table's word, which finds `T` in TraitKit's table (see `CTraitKitReadGate.h`).
  ///
  /// - Precondition: `storage`, of `count` slots, is alive when the call begins.
  // NB: out of line, and kept from cross-module optimization, which would copy it into a
  // client, so that the lookup here reads TraitKit's copy of the word.
  @usableFromInline @inline(never) @_semantics("optimize.no.crossmodule")
  static func _readUnlisted<T: TraitDefinition>(
    _: T.Type,
    of storage: Unmanaged<_Storage>,
    count: Int
  ) -> T.Value {
    if let entry = _TraitRegistry.registeredEntry(of: T.self) {
      return storage._withUnsafeGuaranteedRef { $0.value(T.self, entry: entry, count: count) }
    }
    // NB: registering runs the type's witnesses, user code that may free `storage`; a type read
    // for the first time has no value in any collection.
    _ = _TraitRegistry.register(T.self)
    return T.defaultValue
  }

  /// A read through a collection obtained inside a tracked closure: recorded, then read.
  ///
  /// - Precondition: `storage` is alive when the call begins.
  @inlinable @inline(never)
  static func _recordedRead<T: TraitDefinition>(
    _: T.Type,
    of storage: Unmanaged<_Storage>,
    by recorder: Unmanaged<_TraitReadRecorder>
  ) -> T.Value {
    // NB: registering a type runs its witnesses, user code that may change the tree and free
    // `storage`, which the caller may have borrowed in place. A type read for the first time has
    // no value in any collection, so that read does not touch `storage`; recording runs no
    // user code (traitkit-bench S7).
    guard let entry = _TraitRegistry.registeredEntry(of: T.self) else {
      return _recordedReadUnlisted(T.self, of: storage, by: recorder)
    }
    return _recordedRead(T.self, entry: entry, of: storage, by: recorder)
  }

  /// A recorded read of `T`, whose registry entry is `entry`.
  @inlinable @inline(__always)
  static func _recordedRead<T: TraitDefinition>(
    _: T.Type,
    entry: Int,
    of storage: Unmanaged<_Storage>,
    by recorder: Unmanaged<_TraitReadRecorder>
  ) -> T.Value {
    // NB: the value first, and the recording last: the caller then keeps only the value across
    // the call (traitkit-bench S7). Recording changes no collection and runs no user code, so
    // the order changes nothing else.
    let value = storage._withUnsafeGuaranteedRef { $0.value(T.self, entry: entry) }
    _recordTrackedRead(entry & ~_TraitRegistry.boxedFlag, through: recorder, of: storage)
    return value
  }

  /// `_recordedRead` when its lookup found no entry for `T` (see `_readUnlisted`).
  ///
  /// - Precondition: `storage` is alive when the call begins.
  // NB: out of line, and kept from cross-module optimization, which would copy it into a
  // client, so that the lookup here reads TraitKit's copy of the word.
  @usableFromInline @inline(never) @_semantics("optimize.no.crossmodule")
  static func _recordedReadUnlisted<T: TraitDefinition>(
    _: T.Type,
    of storage: Unmanaged<_Storage>,
    by recorder: Unmanaged<_TraitReadRecorder>
  ) -> T.Value {
    if let entry = _TraitRegistry.registeredEntry(of: T.self) {
      return _recordedRead(T.self, entry: entry, of: storage, by: recorder)
    }
    _TrackingRecord.recordDefaultRead(_TraitRegistry.register(T.self), through: recorder)
    return T.defaultValue
  }
}
