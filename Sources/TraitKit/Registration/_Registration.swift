/// One registration, as plain data: 32 bytes on 64-bit platforms.
struct _Registration {
  /// The registration's number in its table: numbers increase in the order of the entries.
  var sequence: UInt32 = 0
  /// The snapshot slot in the low 27 bits, the flags above.
  ///
  /// Bits 29 and 28 tell the kind: a registration whose summary stands for its traits exactly
  /// (bit 29 alone), one that also observes the same traits as the entry before it (both), a
  /// legacy callback (bit 28 alone), or another registration (neither). Bit 27 tells that the
  /// callee is a handler closure kept inline rather than a box.
  // NB: packed so that an entry is 32 bytes, two to a cache line: a register+cancel pair is
  // bound by the entry lines it touches (traitkit-bench S6).
  private var state: UInt32
  /// The 64-bit summary of the observed traits (`_TraitFilter.summary`); every bit for a legacy
  /// callback.
  let summary: UInt64
  /// The callee, owned (+1) by the table: a handler closure's two words, or, for the other
  /// forms, a zero where a closure's function is (never zero) and then the box.
  private var callee: _InlineHandler

  private static let isLiveFlag: UInt32 = 1 << 31
  private static let calleeReleasedFlag: UInt32 = 1 << 30
  private static let filterIsExactFlag: UInt32 = 1 << 29
  /// With `filterIsExactFlag`, the entry's traits are the previous entry's; without it, the
  /// entry is a legacy callback.
  private static let kindFlag: UInt32 = 1 << 28
  /// The callee is a handler closure kept inline (`callee` holds its words), not a box.
  private static let isInlineFlag: UInt32 = 1 << 27
  /// The number of bits that number an entry's snapshot slot.
  static let snapshotBits = 27
  private static let snapshotMask: UInt32 = (1 << snapshotBits) - 1

  /// A summary of the observed traits (all traits for a legacy callback).
  @inline(__always) var filter: _TraitFilter { _TraitFilter(summary: summary) }
  /// Whether `summary` is exactly the observed traits (every index at most
  /// `_TraitFilter.lastSummarizedIndex`), so that it can stand in for them on the delivery path.
  @inline(__always) var filterIsExact: Bool { state & Self.filterIsExactFlag != 0 }
  /// Whether the callback observes every trait (the legacy adapter): it then runs after the
  /// node's other registrations and fires when any trait differs.
  @inline(__always) var observesAllTraits: Bool {
    state & (Self.filterIsExactFlag | Self.kindFlag) == Self.kindFlag
  }
  /// Whether the registration observes exactly the traits its summary stands for, as does the
  /// entry before it (live or not) with the same summary.
  ///
  /// The table keeps it from when the entry is appended until a compaction moves it.
  @inline(__always) var continuesTraits: Bool {
    get {
      let flags = Self.filterIsExactFlag | Self.kindFlag
      return state & flags == flags
    }
    set {
      #if TRAITKIT_INTERNAL_CHECKS
      precondition(filterIsExact, "Invariant: only an exact registration continues traits")
      #endif
      setFlag(Self.kindFlag, newValue)
    }
  }
  /// Whether the registration is live rather than a tombstone.
  @inline(__always) var isLive: Bool {
    get { state & Self.isLiveFlag != 0 }
    set { setFlag(Self.isLiveFlag, newValue) }
  }
  /// Whether the table already released the callee (a tombstone killed outside a delivery).
  @inline(__always) var calleeReleased: Bool {
    get { state & Self.calleeReleasedFlag != 0 }
    set { setFlag(Self.calleeReleasedFlag, newValue) }
  }
  /// The snapshot slot of the node's collection when the registration was last called, or when
  /// it was made: its baseline.
  @inline(__always) var snapshot: Int32 {
    get { Int32(bitPattern: state & Self.snapshotMask) }
    set { state = state & ~Self.snapshotMask | UInt32(bitPattern: newValue) & Self.snapshotMask }
  }

  /// Whether the entry is live and its baseline is snapshot `slot`.
  @inline(__always) func isLive(using slot: Int32) -> Bool {
    state & (Self.isLiveFlag | Self.snapshotMask) == Self.isLiveFlag | UInt32(bitPattern: slot)
  }

  /// Whether the entry is live, its baseline is snapshot `slot`, and it is a registration (not a
  /// legacy callback) whose `summary` stands for its traits exactly.
  @inline(__always) func isLiveExactRegistration(using slot: Int32) -> Bool {
    let flags = Self.isLiveFlag | Self.filterIsExactFlag
    return state & (flags | Self.snapshotMask) == flags | UInt32(bitPattern: slot)
  }

  /// Whether the callee is a handler closure kept inline, which ``handler`` holds, rather than a
  /// box.
  @inline(__always) var keepsHandlerInline: Bool { state & Self.isInlineFlag != 0 }

  /// Whether the entry is live, its baseline is snapshot `slot`, and it is a registration whose
  /// `summary` stands for its traits exactly and equals the previous entry's
  /// (``continuesTraits``): the next user of a run whose users observe those traits.
  @inline(__always) func isLiveRegistrationContinuingTraits(using slot: Int32) -> Bool {
    state & ~Self.isInlineFlag
      == Self.isLiveFlag | Self.filterIsExactFlag | Self.kindFlag | UInt32(bitPattern: slot)
  }

  /// Whether ``isLiveRegistrationContinuingTraits(using:)``, and the callee is a handler kept
  /// inline, which ``handler`` calls directly.
  // NB: the whole state compared, without a mask: a live entry's callee is never released; and
  // the run's loop calls the handler without first asking whether the entry holds a box
  // (traitkit-bench S1).
  @inline(__always) func isLiveHandlerContinuingTraits(using slot: Int32) -> Bool {
    state == Self.isLiveFlag | Self.filterIsExactFlag | Self.kindFlag | Self.isInlineFlag
      | UInt32(bitPattern: slot)
  }

  @inline(__always) private mutating func setFlag(_ flag: UInt32, _ isSet: Bool) {
    state = isSet ? state | flag : state & ~flag
  }

  /// Whether the entry is a tombstone of a handler kept inline whose summary is `summary`: one
  /// that a run's extent may cover (see `_NodeObservers.extent(of:summary:from:)`).
  @inline(__always) func isHandlerTombstone(of summary: UInt64) -> Bool {
    state & (Self.isLiveFlag | Self.isInlineFlag) == Self.isInlineFlag && self.summary == summary
  }

  /// Makes the handler of a tombstone kept inline the one that counts a run's call of it as
  /// not called (`_RunFrame.uncalled`).
  ///
  /// A run's loop calls the handlers of its extent without looking at the entries' state; a
  /// registration that dies within an extent answers the call with this. The context stays
  /// until the table releases it, as it would the handler's; a context released already goes,
  /// so that the call, which may retain its context, finds none.
  ///
  /// - Precondition: the entry is a tombstone whose callee is a handler kept inline.
  @inline(__always) mutating func silenceHandler() {
    #if TRAITKIT_INTERNAL_CHECKS
    precondition(!isLive && keepsHandlerInline, "Invariant: only a handler's tombstone is silenced")
    #endif
    callee.bits.0 = _InlineHandler.tombstoneFunction
    if calleeReleased { callee.bits.1 = 0 }
  }

  /// Whether the handler is the one a tombstone answers a run with (see ``silenceHandler()``).
  var isSilenced: Bool { keepsHandlerInline && callee.bits.0 == _InlineHandler.tombstoneFunction }

  /// The callee of a registration without a box.
  ///
  /// - Precondition: `box` is nil.
  @inline(__always) var handler: _InlineHandler { callee }

  /// The callee of the other forms, and the exact traits when `filter` cannot stand for them;
  /// nil for a handler kept inline.
  @inline(__always) var box: Unmanaged<_RegistrationBox>? {
    guard callee.bits.0 == 0 else { return nil }
    return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: callee.bits.1).unsafelyUnwrapped)
  }

  /// A registration that calls `handler`, whose traits `summary` stands for exactly.
  ///
  /// The entry takes over the handler's reference. The table numbers it when it appends it.
  init(handler: _InlineHandler, traits: _TraitIndexSet, snapshot: Int32) {
    self.init(handler: handler, summary: traits.filter.summary, snapshot: snapshot)
  }

  /// A registration that calls `handler`, whose traits `summary` stands for exactly.
  ///
  /// - Precondition: `summary` has bit 63 clear.
  init(handler: _InlineHandler, summary: UInt64, snapshot: Int32) {
    self.summary = summary
    self.state =
      Self.isLiveFlag | Self.filterIsExactFlag | Self.isInlineFlag | UInt32(bitPattern: snapshot)
    self.callee = handler
  }

  /// A registration that calls `box`.
  ///
  /// The table numbers it when it appends it.
  init(
    box: _RegistrationBox,
    traits: _TraitIndexSet,
    snapshot: Int32,
    observesAllTraits: Bool
  ) {
    self.summary = observesAllTraits ? ~0 : traits.filter.summary
    var state = Self.isLiveFlag | UInt32(bitPattern: snapshot)
    if observesAllTraits {
      state |= Self.kindFlag
    } else if traits.isSummarizedExactly {
      state |= Self.filterIsExactFlag
    }
    self.state = state
    self.callee = _InlineHandler(
      bits: (0, UInt(bitPattern: Unmanaged.passRetained(box).toOpaque()))
    )
  }

  /// Calls the registration for `node`; returns `false` when its target is gone.
  ///
  /// - Precondition: the callee is not released.
  @inline(__always)
  func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    guard let box else {
      handler(node, previous)
      return true
    }
    return box._withUnsafeGuaranteedRef { $0.call(node, previous) }
  }

  /// Releases the callee.
  // NB: inlined, so that cancelling calls the release it needs directly (traitkit-bench S6).
  @inline(__always)
  func releaseCallee() {
    if let box { box.release() } else { handler.release() }
  }

  /// Whether the values this registration observes differ between `baseline` and `current`.
  func sawChange(in current: _Storage, from baseline: _Storage) -> Bool {
    if baseline === current { return false }
    // NB: traits only: entries kept from decoding under unknown identifiers are no trait, and
    // `changedTraits(from:)` would list none (R12).
    if observesAllTraits { return !baseline.traitsEqual(to: current) }
    if filterIsExact {
      var bits = summary
      while bits != 0 {
        if !current.slotEqual(at: bits.trailingZeroBitCount, to: baseline) { return true }
        bits &= bits &- 1
      }
      return false
    }
    return box.unsafelyUnwrapped._withUnsafeGuaranteedRef { box in
      box.traitList.unsafelyUnwrapped.set.contains { !current.slotEqual(at: $0, to: baseline) }
    }
  }
}
