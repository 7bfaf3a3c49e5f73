import Synchronization

// A node's overrides: the in-place accessor, and the changes a write makes to the node's
// collection and, in the next pass, to its subtree's.

extension TraitNode {
  /// The trait values this node sets for itself and its subtree.
  ///
  /// Effective values are in ``traitCollection`` at once; registrations hear of the change in the
  /// next update pass. Writing the value an override already has does nothing.
  ///
  /// Reads of the node's ``traitCollection``, or a descendant's, in the middle of an in-place
  /// access of these overrides (an `inout` argument, a mutating method) are current again once
  /// the access ends. In the middle, a read that must refresh the node, after some other change,
  /// reads the overrides the access holds, with its writes so far; one that need not sees them
  /// as they were before. So an access that reads the node and then assigns the overrides whole
  /// must use them after the read: an optimized build may otherwise release what the access
  /// wrote before the read, since nothing in the access reads it again, and the read would find
  /// a released collection. Read the node before or after the access instead.
  public final var traitOverrides: TraitOverrides {
    get {
      guard let overrides = _overrides else { return TraitOverrides() }
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
      newValue._accessStamp = 0
      let (changed, restored) = overrides.pointee.differences(from: newValue)
      overrides.pointee = newValue
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
      let overrides = _overrides ?? _makeOverrides()
      let stamp = TraitNode._nextOverridesAccessStamp()
      overrides.pointee._accessStamp = stamp
      let applications = _overridesApplications
      // NB: deferred, so that an access that ends with an error thrown reports what it changed
      // too.
      defer {
        // NB: an access that assigned a whole value — `swap`, or an `inout` argument assigned
        // to, even with a value copied out of an earlier access — left another stamp, and no
        // record of what changed. And during one in which a read applied the overrides, the
        // node's collection stopped holding what the old ones gave, which the record is
        // compared with; the access may also have assigned back a copy taken earlier in it,
        // whose stamp is this one and whose record lacks what the read applied.
        let applied = _overridesApplications != applications
        if overrides.pointee._accessStamp != stamp || applied {
          _overridesDidChangeWhole(overrides, comparable: !applied)
        } else if !overrides.pointee._changed.isEmpty {
          _overridesDidChangeAfterModify(overrides)
        }
      }
      yield &overrides.pointee
    }
  }

  /// Gives this node its overrides' memory, on the first write to them: the overrides, then
  /// ``_overridesApplications``, which a whole assignment of the overrides leaves alone.
  @usableFromInline
  final func _makeOverrides() -> UnsafeMutablePointer<TraitOverrides> {
    let memory = UnsafeMutableRawPointer.allocate(
      byteCount: Self._applicationsOffset + MemoryLayout<UInt64>.size,
      alignment: Swift.max(MemoryLayout<TraitOverrides>.alignment, MemoryLayout<UInt64>.alignment)
    )
    memory.storeBytes(of: 0, toByteOffset: Self._applicationsOffset, as: UInt64.self)
    let overrides = memory.bindMemory(to: TraitOverrides.self, capacity: 1)
    overrides.initialize(to: TraitOverrides())
    _overrides = overrides
    return overrides
  }

  /// Where ``_overridesApplications`` lies in the overrides' memory.
  @usableFromInline @inline(__always) static var _applicationsOffset: Int {
    (MemoryLayout<TraitOverrides>.size + MemoryLayout<UInt64>.alignment - 1)
      & ~(MemoryLayout<UInt64>.alignment - 1)
  }

  /// How many times a refresh has applied the node's overrides to its collection; requires the
  /// overrides' memory.
  ///
  /// An in-place access during which it grows, from a read in the code the access yields to,
  /// cannot compare its writes with the node's collection at its end. A count of the node's own,
  /// not a stamp of the refreshing thread's: an access that spans a suspension may resume on
  /// another thread. Kept beside the overrides, not in the node, so that nodes that override
  /// nothing pay nothing for it (traitkit-bench S10).
  // NB: inlinable, for each in-place access (traitkit-bench S1, S4).
  @inlinable final var _overridesApplications: UInt64 {
    get {
      UnsafeRawPointer(_overrides.unsafelyUnwrapped)
        .load(fromByteOffset: Self._applicationsOffset, as: UInt64.self)
    }
    set {
      UnsafeMutableRawPointer(_overrides.unsafelyUnwrapped)
        .storeBytes(of: newValue, toByteOffset: Self._applicationsOffset, as: UInt64.self)
    }
  }

  /// Takes the overrides that an in-place access replaced whole, which left no record of the
  /// traits it changed, or during which a refresh applied them: `comparable` says whether the
  /// node's collection, if current, still holds what the old ones gave.
  @usableFromInline
  final func _overridesDidChangeWhole(
    _ overrides: UnsafeMutablePointer<TraitOverrides>,
    comparable: Bool
  ) {
    overrides.pointee._accessStamp = 0
    overrides.pointee._changed = .none
    // NB: the node's shield is still the old overrides': their exact traits, to which the
    // overflow bit adds every other one they may have set.
    let conservative =
      _shield | overrides.pointee._specified.filter
      | _TraitFilter(index: _TraitFilter.lastExactIndex + 1)
    let values = comparable ? _valueChanges(under: overrides.pointee, among: nil) : nil
    _overridesDidChange(
      values?.changed ?? conservative,
      shield: overrides.pointee._shield,
      refresh: values.map { !$0.restored.isEmpty } ?? true
    )
  }

  /// A stamp no other in-place access of any node's overrides has had, on any thread.
  ///
  /// Each thread takes a block of 2³² stamps at a time from a process-wide counter, so that a
  /// stamp costs a thread-local increment.
  @usableFromInline
  static func _nextOverridesAccessStamp() -> UInt64 {
    let previous = _ThreadLocals.overridesAccessStamp
    var stamp = previous &+ 1
    if previous == 0 || stamp & 0xFFFF_FFFF == 0 {
      stamp = _overridesAccessStampBlocks.wrappingAdd(1, ordering: .relaxed).newValue << 32 | 1
    }
    _ThreadLocals.overridesAccessStamp = stamp
    return stamp
  }

  /// The blocks of stamps taken so far (see `_nextOverridesAccessStamp()`).
  private static let _overridesAccessStampBlocks = Atomic<UInt64>(0)

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
    if refresh || !changed.isEmpty || _mayInheritKeptEntries { _treeDidChange() }
    let heldBack = added.isEmpty ? added : added & _changesPendingAbove(among: added)
    if !(changed | heldBack).isEmpty { _markPending(changed | heldBack) }
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
