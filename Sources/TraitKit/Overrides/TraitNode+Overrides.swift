public import CTraitKitShims
import Synchronization

// A node's overrides: the in-place accessor, and the changes a write makes to the node's
// collection and, in the next pass, to its subtree's.

extension TraitNode {
  /// The trait values this node sets for itself and its subtree.
  ///
  /// Effective values are in ``traitCollection`` at once; registrations hear of the change in the
  /// next update pass. Writing the value an override already has does nothing.
  ///
  /// An in-place access of the overrides (an `inout` argument, a mutating method) has them to
  /// itself until it ends, as Swift's exclusivity rule gives any variable, and its writes are the
  /// node's when it ends. Until then, the node's ``traitCollection``, and its subtree's, apply
  /// the overrides as they were before the access, with whatever else changed meanwhile.
  ///
  /// - Precondition: No in-place access of these overrides is under way when they are read,
  ///   assigned, or accessed in place again (the access holds them: Swift traps the same way on
  ///   overlapping accesses to a variable).
  public final var traitOverrides: TraitOverrides {
    get {
      guard let overrides = _overrides else { return TraitOverrides() }
      _requireOverridesNotAccessed()
      var value = overrides.pointee
      value._accessStamp = 0
      return value
    }
    set {
      // NB: no storage for overrides that stay empty: copying an empty value onto many nodes
      // must not cost each of them (traitkit-bench S10).
      guard _overrides != nil || !newValue._specified.isEmpty else { return }
      var newValue = newValue
      newValue._changed = .none
      let overrides = _overrides ?? _makeOverrides()
      _requireOverridesNotAccessed()
      newValue._accessStamp = 0
      let (changed, restored) = overrides.pointee.differences(from: newValue)
      // NB: the old overrides swapped out, and let go of once the node took the change: letting
      // go of them can run a value's deinitializer, which may read this node, and a refresh
      // then would apply the new ones before the node compared them with its collection
      // (helper-58's review: the change was then marked nowhere).
      swap(&overrides.pointee, &newValue)
      defer { withExtendedLifetime(newValue) {} }
      guard !changed.isEmpty || !restored.isEmpty else { return }
      // NB: no code ran since the write, so no refresh applied it: the node's collection, if
      // current, still holds what the old overrides gave.
      _overridesDidChange(changed, to: overrides, restored: restored)
    }
    @inlinable
    _modify {
      // NB: the node keeps its overrides' memory until it deinitializes, so the pointer stays
      // valid for the access, whatever the code it yields to does to the tree. A mutation that
      // changes nothing, such as removing an override the node does not have, still gives the
      // node that memory: giving it back would cost every write a test (traitkit-bench S4).
      // NB: the coroutine keeps two words across its yield, and the rest of the work is in
      // functions it calls: a larger frame would be allocated on each access in a debug build
      // (ZeroAllocationTests).
      let overrides = _overrides ?? _makeOverrides()
      let stamp = _beginOverridesAccess(overrides)
      // NB: deferred, so that an access that ends with an error thrown reports what it changed
      // too.
      defer { _endOverridesAccess(overrides, stamp: stamp) }
      yield &overrides.pointee
    }
  }

  /// Begins an in-place access of the node's overrides, at `overrides`; returns its stamp.
  @inlinable @inline(__always)
  final func _beginOverridesAccess(_ overrides: UnsafeMutablePointer<TraitOverrides>) -> UInt64 {
    // NB: one test for an overlapping access, which traps, and for overrides whose traits the
    // shield does not hold; then what reads during the access apply instead of the overrides,
    // made ready only when the node's collection does not hold it (see
    // `_refreshDuringOverridesAccess`).
    let word = _overridesAccessWord
    if _slowPath(word & (Self._accessBit | Self._pastShieldBit) != 0 || _overridesChanged) {
      _prepareOverridesAccess(overrides)
    } else {
      _overridesAccessWord = word | Self._accessBit
    }
    let stamp = _nextOverridesAccessStamp()
    overrides.pointee._accessStamp = stamp
    return stamp
  }

  /// Ends the in-place access of the node's overrides, at `overrides`, that began with `stamp`,
  /// and takes what it changed.
  @inlinable @inline(__always)
  final func _endOverridesAccess(_ overrides: UnsafeMutablePointer<TraitOverrides>, stamp: UInt64) {
    _overridesAccessWord &= ~(Self._accessBit | Self._copiedBit)
    // NB: an access that assigned a whole value — `swap`, or an `inout` argument assigned to,
    // even with a value copied out of an earlier access — left another stamp, and no record of
    // what changed.
    if overrides.pointee._accessStamp != stamp {
      _overridesDidChangeWhole(overrides)
    } else if !overrides.pointee._changed.isEmpty {
      _overridesDidChangeAfterModify(overrides)
    }
  }

  /// Gives this node its overrides' memory, on the first write to them: the overrides, then
  /// ``_overridesAccessWord``, which a whole assignment of the overrides leaves alone.
  @usableFromInline
  final func _makeOverrides() -> UnsafeMutablePointer<TraitOverrides> {
    let memory = UnsafeMutableRawPointer.allocate(
      byteCount: Self._accessWordOffset + MemoryLayout<UInt64>.size,
      alignment: Swift.max(MemoryLayout<TraitOverrides>.alignment, MemoryLayout<UInt64>.alignment)
    )
    memory.storeBytes(of: 0, toByteOffset: Self._accessWordOffset, as: UInt64.self)
    let overrides = memory.bindMemory(to: TraitOverrides.self, capacity: 1)
    overrides.initialize(to: TraitOverrides())
    _overrides = overrides
    return overrides
  }

  /// Where ``_overridesAccessWord`` lies in the overrides' memory.
  @usableFromInline @inline(__always) static var _accessWordOffset: Int {
    (MemoryLayout<TraitOverrides>.size + MemoryLayout<UInt64>.alignment - 1)
      & ~(MemoryLayout<UInt64>.alignment - 1)
  }

  /// The state of in-place accesses of the node's overrides; requires the overrides' memory.
  ///
  /// ``_accessBit`` is set while an access is under way, and ``_copiedBit`` while it keeps a copy
  /// of the traits the node overrode before it, in a set whose address the bits above the third
  /// hold (0 until an access first needs one; see `_prepareOverridesAccess(_:)`).
  /// ``_pastShieldBit`` says whether the overrides hold a trait that the node's shield does not.
  ///
  /// During an access, nothing else may read or write the overrides: the access holds their
  /// memory exclusively, and an optimized caller may keep its writes in registers, or release a
  /// value it replaced early, until it ends. Kept beside the overrides, not in the node, so that
  /// nodes that override nothing pay nothing for it (traitkit-bench S10), and not in the
  /// overrides value, which the access may replace whole.
  // NB: inlinable, for each in-place access (traitkit-bench S1, S4).
  @inlinable final var _overridesAccessWord: UInt {
    get {
      UnsafeRawPointer(_overrides.unsafelyUnwrapped)
        .load(fromByteOffset: Self._accessWordOffset, as: UInt.self)
    }
    set {
      UnsafeMutableRawPointer(_overrides.unsafelyUnwrapped)
        .storeBytes(of: newValue, toByteOffset: Self._accessWordOffset, as: UInt.self)
    }
  }

  /// The bit of ``_overridesAccessWord`` that an in-place access of the overrides sets.
  @inlinable static var _accessBit: UInt { 1 }

  /// The bit of ``_overridesAccessWord`` set while the set it points to holds the traits the node
  /// overrode before the access under way.
  @inlinable static var _copiedBit: UInt { 2 }

  /// The bit of ``_overridesAccessWord`` set while the overrides hold a trait past
  /// `_TraitFilter.lastExactIndex`, which the node's shield does not hold.
  @inlinable static var _pastShieldBit: UInt { 4 }

  /// Whether an in-place access of the node's overrides is under way; requires the overrides'
  /// memory.
  @inlinable final var _overridesAccessed: Bool { _overridesAccessWord & Self._accessBit != 0 }

  /// The set that ``_overridesAccessWord`` points to, if an access made one.
  final var _overridesCopiedTraits: UnsafeMutablePointer<_TraitIndexSet>? {
    UnsafeMutablePointer(bitPattern: _overridesAccessWord & ~7)
  }

  /// Records in ``_overridesAccessWord`` whether `overrides`, the node's new ones, hold a trait
  /// that its shield does not.
  final func _notePastShield(_ overrides: UnsafeMutablePointer<TraitOverrides>) {
    // NB: the common case, overrides of the first 64 trait types only, is one test.
    let past =
      !overrides.pointee._specified.rest.isEmpty
      && overrides.pointee._specified.containsPastExactFilter
    let word = _overridesAccessWord
    if past != (word & Self._pastShieldBit != 0) {
      _overridesAccessWord = word ^ Self._pastShieldBit
    }
  }

  /// Begins an in-place access of the node's overrides, at `overrides`, with what a read during
  /// it needs to apply the overrides from before it without reading them; traps when another
  /// access is under way.
  ///
  /// A read during the access takes their values from the node's collection, for the traits
  /// the node's shield holds. So the collection must hold them: an earlier write may have left
  /// them unapplied, when no read or pass came between, and they are applied to the collection
  /// the node last inherited (only writes in a row pay for this, and not for the ancestors). And
  /// the shield must hold each trait: past the 127th trait type of the process, it holds none,
  /// and the traits the node overrides are copied aside for the access, into a set that the node
  /// keeps for the next such access (so that it allocates once).
  @usableFromInline @inline(never)
  final func _prepareOverridesAccess(_ overrides: UnsafeMutablePointer<TraitOverrides>) {
    if _overridesAccessed { _overlappingOverridesAccess() }
    // NB: what the node lets go of here is released once the access is under way: a release can
    // run a trait value's deinitializer, which may read this node, and then finds the overrides
    // from before the access, or write its overrides, which traps as during the access.
    var released: Unmanaged<_Storage>?
    if _overridesChanged {
      // NB: a current node whose overrides changed no value may still read a collection it
      // shares without holding it, which a change above would let go of during the access.
      released =
        _resolvedEpoch == _currentEpoch
        ? _holdSharedCollection() : _applyOverridesToStaleCollection(overrides)
    }
    var word = _overridesAccessWord | Self._accessBit
    if word & Self._pastShieldBit != 0 {
      let copy: UnsafeMutablePointer<_TraitIndexSet>
      if let kept = _overridesCopiedTraits {
        copy = kept
      } else {
        copy = .allocate(capacity: 1)
        copy.initialize(to: _TraitIndexSet())
        word |= UInt(bitPattern: copy)
      }
      copy.pointee.copyWords(of: overrides.pointee._specified)
      word |= Self._copiedBit
    }
    _overridesAccessWord = word
    if let released { _recycleReplaced(released) }
  }

  /// Frees the set of traits that accesses of the overrides copied aside, if any; before the
  /// overrides' memory goes.
  final func _freeOverridesCopiedTraits() {
    guard let copy = _overridesCopiedTraits else { return }
    copy.deinitialize(count: 1)
    copy.deallocate()
  }

  /// Traps when an in-place access of the node's overrides is under way; requires the
  /// overrides' memory.
  @inlinable @inline(__always) final func _requireOverridesNotAccessed() {
    if _overridesAccessed { _overlappingOverridesAccess() }
  }

  /// The trap of an overlapping access of a node's overrides.
  @usableFromInline @inline(never)
  final func _overlappingOverridesAccess() -> Never {
    _apiMisuse(
      "Overlapping accesses to a node's traitOverrides: they were read, assigned or accessed "
        + "in place again during an in-place access of them (an inout argument, a mutating "
        + "method), which holds them until it ends; use them before or after the access"
    )
  }

  /// Takes the overrides that an in-place access replaced whole, which left no record of the
  /// traits it changed.
  @usableFromInline
  final func _overridesDidChangeWhole(_ overrides: UnsafeMutablePointer<TraitOverrides>) {
    overrides.pointee._accessStamp = 0
    overrides.pointee._changed = .none
    _notePastShield(overrides)
    // NB: the node's shield is still the old overrides': their exact traits, to which the
    // overflow bit adds every other one they may have set.
    let conservative =
      _shield | overrides.pointee._specified.filter
      | _TraitFilter(index: _TraitFilter.lastExactIndex + 1)
    let values = _valueChanges(under: overrides.pointee, among: nil)
    _overridesDidChange(
      values?.changed ?? conservative,
      shield: overrides.pointee._shield,
      refresh: values.map { !$0.restored.isEmpty } ?? true
    )
  }

  /// The blocks of stamps taken so far (see `_nextOverridesAccessStamp()`).
  fileprivate static let _overridesAccessStampBlocks = Atomic<UInt64>(0)

  /// Among `candidates` (every trait when nil), the traits whose values at this node differ under
  /// the overrides `new` from its current collection's, and those whose stored values differ at
  /// all, equal or not, which a refresh must store anew; nil when that cannot be told without
  /// resolving: the node's collection or its parent's is not current, or does not apply the
  /// node's old overrides.
  ///
  /// - Precondition: no refresh applied `new` since the node's collection was made: the caller
  ///   wrote them without running code that read the node.
  ///
  /// The overflow bit of `candidates`, which stands for every trait past the exact ones, is
  /// kept in both as it is.
  private final func _valueChanges(
    under new: TraitOverrides,
    among candidates: _TraitFilter?
  ) -> (changed: _TraitFilter, restored: _TraitFilter)? {
    guard _resolvedIsCurrent, !_overridesChanged else { return nil }
    let inherited: Unmanaged<_Storage>
    if let parent = _parentRef {
      guard parent._withUnsafeGuaranteedRef({ $0._resolvedIsCurrent }) else { return nil }
      inherited = parent._withUnsafeGuaranteedRef { $0._resolvedRef }
    } else {
      inherited = _baseCell.storage
    }
    // NB: loops without closures that capture, which a debug build would allocate a box for on
    // each write (ZeroAllocationTests).
    let old = _resolvedRef.takeUnretainedValue()
    let source = inherited.takeUnretainedValue()
    var changed = _TraitFilter.none
    var restored = _TraitFilter.none
    guard let candidates else {
      for index in 0..<Swift.max(old.count, source.count, new._storage.count) {
        Self._compare(at: index, in: old, under: new, over: source, &changed, &restored)
      }
      return (changed, restored)
    }
    let overflow = _TraitFilter(index: _TraitFilter.lastExactIndex + 1)
    changed = candidates & overflow
    restored = changed
    var low = candidates.low
    while low != 0 {
      Self._compare(
        at: low.trailingZeroBitCount,
        in: old,
        under: new,
        over: source,
        &changed,
        &restored
      )
      low &= low &- 1
    }
    var high = (candidates & ~overflow).high
    while high != 0 {
      Self._compare(
        at: 64 + high.trailingZeroBitCount,
        in: old,
        under: new,
        over: source,
        &changed,
        &restored
      )
      high &= high &- 1
    }
    return (changed, restored)
  }

  /// Adds the trait at `index` to `changed` when its value in `old` differs from what the
  /// overrides `new` give over `inherited`, and to `restored` when its stored value does, equal
  /// or not.
  @inline(__always)
  private static func _compare(
    at index: Int,
    in old: _Storage,
    under new: TraitOverrides,
    over inherited: _Storage,
    _ changed: inout _TraitFilter,
    _ restored: inout _TraitFilter
  ) {
    let source = new._specified.contains(index) ? new._storage : inherited
    guard old.rawSlot(at: index).word != source.rawSlot(at: index).word else { return }
    restored |= _TraitFilter(index: index)
    if !old.slotEqual(at: index, to: source) { changed |= _TraitFilter(index: index) }
  }

  /// Consumes the change record that an in-place mutation of the overrides left.
  @usableFromInline
  final func _overridesDidChangeAfterModify(_ overrides: UnsafeMutablePointer<TraitOverrides>) {
    let changed = overrides.pointee._changed
    overrides.pointee._changed = .none
    _overridesDidChange(changed, to: overrides)
  }

  /// Takes the node's new overrides, at `new`, whose overrides of the traits in `changed` differ
  /// from the old ones, and narrows `changed` to the traits whose values change, as far as can
  /// be told without resolving.
  ///
  /// A trait overridden before and after changed value, since its override did; only one that
  /// gained or lost its override may keep its value, which is compared (§4: a write that
  /// changes no value costs no pass). `restored` holds the traits whose overrides hold values
  /// equal to the old ones but stored differently, which the node's collection must store anew.
  @inline(__always)
  private final func _overridesDidChange(
    _ changed: _TraitFilter,
    to new: UnsafeMutablePointer<TraitOverrides>,
    restored: _TraitFilter = .none
  ) {
    _notePastShield(new)
    // NB: read in place, not copied out, which would retain its storage (traitkit-bench S1).
    let shield = new.pointee._shield
    let flipped = changed & (shield ^ _shield)
    guard !flipped.isEmpty,
      let values = _valueChanges(under: new.pointee, among: flipped)
    else {
      return _overridesDidChange(changed, shield: shield)
    }
    _overridesDidChange(
      changed & ~flipped | values.changed,
      shield: shield,
      refresh: !(values.restored | restored).isEmpty
    )
  }

  /// Takes the node's new overrides, whose shield is `shield`, under which the values of the
  /// traits in `changed` may differ, and those only; `refresh` says whether the node's collection
  /// must be made anew, for values that changed or that are equal but stored differently (such as
  /// `-0.0` and `0.0`, or values that a custom `valuesEqual` calls equal).
  ///
  /// With no value changed (R3: nothing is invalidated) the collection stays current; the next
  /// refresh, after some other change, applies the new overrides; unless the base traits hold
  /// entries that decoding kept, since an override replaces the one under its identifier. Only
  /// what the node shields may differ, as for an override added with the value the node
  /// inherits: a change above that the node's registrations have not heard of yet would no
  /// longer reach them through the shield, so a trait newly shielded is pending here while a
  /// change of it is pending above, or may be on its way down in a running pass.
  final func _overridesDidChange(
    _ changed: _TraitFilter,
    shield: _TraitFilter,
    refresh: Bool = true
  ) {
    let added = shield & ~_shield & ~changed
    _shield = shield
    // NB: even when no value changed: the collection may be the parent's, shared, which a
    // refresh would keep for a node whose inherited collection stays (a node detached).
    _overridesChanged = true
    // NB: a node that was current before the write applies it at once, with nothing run in
    // between: the write changed nothing above it, so its ancestors, current too, stay so. The
    // next read then finds the node current, rather than revalidating its ancestors first, and
    // the next write, in a row, finds its collection holding what the overrides held before it,
    // rather than applying them to a stale collection as its access begins (see
    // `_prepareOverridesAccess(_:)`): a write costs one application of the overrides, at once,
    // rather than one later and another for each write in a row after it.
    var released: (replaced: Unmanaged<_Storage>?, inherited: Unmanaged<_Storage>?)?
    if refresh || !changed.isEmpty || _mayInheritKeptEntries {
      let wasCurrent = _resolvedIsCurrent
      _treeDidChange()
      if wasCurrent { released = _applyOwnWrite(epoch: _currentEpoch) }
    }
    let heldBack = added.isEmpty ? added : added & _changesPendingAbove(among: added)
    if !(changed | heldBack).isEmpty { _markPending(changed | heldBack) }
    // NB: last: letting go of a collection can run a value's deinitializer, as `onNeedsUpdate`
    // runs user code, once the node took the change.
    if let replaced = released?.replaced { _recycleReplaced(replaced) }
    if let inherited = released?.inherited { _recycleReplaced(inherited) }
  }

  /// Whether the node may inherit entries that decoding kept under unknown identifiers: its
  /// collection then changes with its overrides even when no value does, since an override
  /// replaces the entry under its trait's identifier.
  // NB: such entries reach a node only from the base traits (overrides hold none).
  private final var _mayInheritKeptEntries: Bool {
    _baseCell.storage._withUnsafeGuaranteedRef { $0.hasUnknown }
  }

  /// The traits of `filter` that may be changing above this node without this node's subtree
  /// having heard of it: those pending at an ancestor and not shielded on the way down, or all of
  /// `filter` while a pass of the graph runs, whose walk carries changes down as it goes.
  private final func _changesPendingAbove(among filter: _TraitFilter) -> _TraitFilter {
    if let graph = _graphRef, graph._withUnsafeGuaranteedRef({ $0._isUpdating }) { return filter }
    var reaching = _TraitFilter.none
    var shield = _TraitFilter.none
    var ancestor = _parent
    while let node = ancestor {
      reaching |= node._pending & ~shield
      shield |= node._shield
      ancestor = node._parent
    }
    return reaching & filter
  }
}

/// A stamp no other in-place access of any node's overrides has had, on any thread.
///
/// Each thread takes a block of 2³² stamps at a time from a process-wide counter, so that a
/// stamp costs a thread-local increment.
// NB: a free function, inlined into the client's in-place access: a static method of the class
// made the client call the class's metadata accessor for `self`, then the method (traitkit-bench
// S1: 16 instructions and two calls a write). The client may hold its own copy of the thread's
// last stamp (see `CTraitKitSharedDefinition.h`): each copy takes blocks of its own from the
// engine's counter and stores only in itself, so that stamps stay unique.
@inlinable @inline(__always)
func _nextOverridesAccessStamp() -> UInt64 {
  let previous = ctraitkit_get_overrides_access_stamp()
  var stamp = previous &+ 1
  if _slowPath(previous == 0 || stamp & 0xFFFF_FFFF == 0) {
    stamp = _takeOverridesAccessStampBlock()
  }
  ctraitkit_set_overrides_access_stamp(stamp)
  return stamp
}

/// The first stamp of a block of 2³² that no thread has taken yet (see
/// `_nextOverridesAccessStamp()`).
@usableFromInline @inline(never)
func _takeOverridesAccessStampBlock() -> UInt64 {
  TraitNode._overridesAccessStampBlocks.wrappingAdd(1, ordering: .relaxed).newValue << 32 | 1
}
