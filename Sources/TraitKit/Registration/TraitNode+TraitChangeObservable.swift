extension TraitNode: TraitChangeObservable {
  // NB: inlinable so that the client specializes it: the `self is Observed` check then resolves
  // at compile time instead of costing a run-time lookup per registration (traitkit-bench S6).
  // `handler` is consuming so that a closure literal moves into the table; borrowed, it would
  // be copied, at the cost of a retain now and a release when the literal goes.
  /// Calls `handler` with this node and its previous collection whenever one of `traits`
  /// changes.
  ///
  /// - Parameters:
  ///   - traits: The traits to observe.
  ///   - handler: Called with this node and its previous collection.
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  /// - Precondition: `traits` is not empty, and this node is an `Observed`.
  @discardableResult @inlinable
  public final func registerForTraitChanges<Observed: TraitEnvironment>(
    _ traits: [Trait],
    handler: consuming @escaping (Observed, TraitCollection) -> Void
  ) -> TraitChangeRegistration {
    _requireObservable(as: Observed.self)
    return _register(_InlineHandler(retaining: _ObservedHandler(handler)), traits: traits)
  }

  /// Calls `action` on `target` whenever one of `traits` changes.
  ///
  /// - Parameters:
  ///   - traits: The traits to observe.
  ///   - target: The object to call, held weakly (this node itself is not held at all).
  ///   - action: An unapplied method reference.
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  /// - Precondition: `traits` is not empty.
  @discardableResult
  public final func registerForTraitChanges<Target: AnyObject>(
    _ traits: [Trait],
    target: Target,
    action: @escaping (Target) -> () -> Void
  ) -> TraitChangeRegistration {
    let indices = _indices(of: traits)
    if target === self {
      return _register(_SelfActionBox(traits: indices, action: action), traits: indices)
    }
    return _register(
      _TargetActionBox(traits: indices, target: target, action: action),
      traits: indices
    )
  }

  /// Calls `action` on `target` with this node whenever one of `traits` changes.
  ///
  /// - Parameters:
  ///   - traits: The traits to observe.
  ///   - target: The object to call, held weakly (this node itself is not held at all).
  ///   - action: An unapplied method reference taking the observed node.
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  /// - Precondition: `traits` is not empty, and this node is an `Observed`.
  @discardableResult
  public final func registerForTraitChanges<Target: AnyObject, Observed: TraitEnvironment>(
    _ traits: [Trait],
    target: Target,
    action: @escaping (Target) -> (Observed) -> Void
  ) -> TraitChangeRegistration {
    _requireObservable(as: Observed.self)
    let indices = _indices(of: traits)
    if target === self {
      return _register(_SelfActionBox1(traits: indices, action: action), traits: indices)
    }
    return _register(
      _TargetActionBox1(traits: indices, target: target, action: action),
      traits: indices
    )
  }

  /// Calls `action` on `target` with this node and its previous collection whenever one of
  /// `traits` changes.
  ///
  /// - Parameters:
  ///   - traits: The traits to observe.
  ///   - target: The object to call, held weakly (this node itself is not held at all).
  ///   - action: An unapplied method reference taking the observed node and its previous
  ///     collection.
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  /// - Precondition: `traits` is not empty, and this node is an `Observed`.
  @discardableResult
  public final func registerForTraitChanges<Target: AnyObject, Observed: TraitEnvironment>(
    _ traits: [Trait],
    target: Target,
    action: @escaping (Target) -> (Observed, TraitCollection) -> Void
  ) -> TraitChangeRegistration {
    _requireObservable(as: Observed.self)
    let indices = _indices(of: traits)
    if target === self {
      return _register(_SelfActionBox2(traits: indices, action: action), traits: indices)
    }
    return _register(
      _TargetActionBox2(traits: indices, target: target, action: action),
      traits: indices
    )
  }

  /// Stops the registration `registration` stands for; `nil`, repeated calls and other nodes'
  /// tokens do nothing.
  ///
  /// - Parameter registration: The token a registration returned.
  /// - Complexity: O(1) while the registration keeps the place it was made in; O(log *n*) for
  ///   *n* registrations on this node once a compaction has moved it.
  public final func unregisterForTraitChanges(_ registration: TraitChangeRegistration?) {
    guard let registration, let observers = _observers,
      let position = observers.position(of: registration)
    else { return }
    // NB: inlined here, where cancelling reaches it: a call in between cost its own prologue and
    // epilogue (traitkit-bench S6).
    _killRegistrationInline(at: position, in: observers)
  }

  /// Registers a callback for every change of any trait of this node's collection.
  ///
  /// The legacy adapter's wildcard (SPI for `TraitKitLegacy`): the public API registers for named
  /// traits only, and a list of all traits known today would miss custom traits defined later.
  /// Such callbacks run after the node's other registrations. When `interestingTraits` is not
  /// empty, a call in which none of them changed counts as wasted in
  /// ``TraitGraph/Statistics/Pass``; with no traits declared, no call does.
  ///
  /// - Parameters:
  ///   - interestingTraits: The traits the adopting code actually uses; may be empty.
  ///   - callback: Called with this node and its previous collection.
  /// - Returns: A token for ``unregisterForTraitChanges(_:)``.
  package final func _registerForAllTraitChanges(
    interestingTraits: [Trait],
    _ callback: @escaping (TraitNode, TraitCollection) -> Void
  ) -> TraitChangeRegistration {
    let indices = _indices(of: interestingTraits)
    return _register(
      _ClosureBox(traits: indices, closure: callback),
      traits: indices,
      observesAllTraits: true
    )
  }

  /// Whether this node has a live wildcard registration (see `_registerForAllTraitChanges`).
  package final var _observesAllTraitChanges: Bool { (_observers?.allTraitsCount ?? 0) > 0 }

  /// Makes this node's next registration take the number `sequence`, so that tests reach the
  /// end of a table's 32-bit numbers without 2^32 registrations.
  ///
  /// - Precondition: `sequence` is at least every number this node's table gave.
  package final func _setNextRegistrationNumber(_ sequence: UInt32) {
    let observers = _observers ?? .make()
    observers._setNextSequence(sequence)
    _observers = observers
  }

  /// The capacity a node's full registration table of `capacity` entries grows to, so that tests
  /// reach the limit on a node's registrations without allocating 2^26 of them.
  ///
  /// - Precondition: `capacity` is below the limit.
  package static func _grownRegistrationCapacity(from capacity: Int32) -> Int32 {
    _NodeObservers.grownCapacity(from: capacity)
  }

  // MARK: - Table maintenance

  /// The dense indices of `traits`, duplicates counted once, for a registration on this node.
  ///
  /// Each registration computes them first, so this also starts loading the node's registration
  /// table, which the registration reads next.
  ///
  /// - Precondition: `traits` is not empty.
  @inline(__always)
  final func _indices(of traits: [Trait]) -> _TraitIndexSet {
    // NB: the table is a cache miss away in a large tree, and so is this node: started here, the
    // table's load overlaps the node's and the lookups below rather than following them
    // (traitkit-bench S6).
    _observers?.prefetchHeader()
    var indices = _TraitIndexSet()
    for trait in traits {
      // NB: the lookup by address first: it needs no generic call on the opened type
      // (traitkit-bench S6).
      let key = UInt(bitPattern: ObjectIdentifier(trait))
      if let entry = _TraitRegistry.registeredEntry(key: key) {
        indices.insert(entry & ~_TraitRegistry.boxedFlag)
      } else {
        indices.insert(_TraitRegistry.index(of: trait))
      }
    }
    return indices
  }

  /// Registers a handler closure for `traits`, taking over `handler`'s reference (see
  /// the overload that takes a `_TraitIndexSet`).
  // NB: one call from the client, which computes the indices here rather than in a call of its
  // own, whose index set it would then pass back and release (traitkit-bench S6).
  @usableFromInline
  final func _register(_ handler: _InlineHandler, traits: [Trait]) -> TraitChangeRegistration {
    // NB: traits already registered, each summarized exactly, the common case: their 64-bit
    // summary is the whole index set, and the set needs no array of further words, whose
    // release each registration would otherwise pay (traitkit-bench S6).
    _observers?.prefetchHeader()
    var summary: UInt64 = 0
    for trait in traits {
      let key = UInt(bitPattern: ObjectIdentifier(trait))
      guard let entry = _TraitRegistry.registeredEntry(key: key),
        entry & ~_TraitRegistry.boxedFlag <= _TraitFilter.lastSummarizedIndex
      else { return _register(handler, traits: _indices(of: traits)) }
      summary |= 1 << UInt64(entry & ~_TraitRegistry.boxedFlag)
    }
    guard summary != 0 else { return _register(handler, traits: _indices(of: traits)) }
    return _insert(hasTraits: true) {
      _Registration(handler: handler, summary: summary, snapshot: $0)
    }
  }

  /// Registers a handler closure, taking over `handler`'s reference: the closure is kept in the
  /// entry itself when the entry's 64-bit summary stands for `traits` exactly, in a box with its
  /// trait list otherwise.
  @inline(__always)
  final func _register(
    _ handler: _InlineHandler,
    traits: _TraitIndexSet
  ) -> TraitChangeRegistration {
    guard traits.isSummarizedExactly else {
      defer { handler.release() }
      return _register(_ClosureBox(traits: traits, closure: handler.function), traits: traits)
    }
    return _insert(hasTraits: !traits.isEmpty) {
      _Registration(handler: handler, traits: traits, snapshot: $0)
    }
  }

  final func _register(
    _ box: _RegistrationBox,
    traits: _TraitIndexSet,
    observesAllTraits: Bool = false
  ) -> TraitChangeRegistration {
    _insert(hasTraits: !traits.isEmpty, observesAllTraits: observesAllTraits) {
      _Registration(
        box: box,
        traits: traits,
        snapshot: $0,
        observesAllTraits: observesAllTraits
      )
    }
  }

  /// Appends the registration `make` returns for the snapshot slot of this node's collection, and
  /// widens the summaries of observed traits.
  @inline(__always)
  private final func _insert(
    hasTraits: Bool,
    observesAllTraits: Bool = false,
    _ make: (_ snapshot: Int32) -> _Registration
  ) -> TraitChangeRegistration {
    _requireAPI(
      hasTraits || observesAllTraits,
      "Must pass one or more traits to register for"
    )
    // NB: resolving first: it may release values, whose deinitializers may register here, and
    // so move the table. After it, nothing runs user code, so the collection can stay
    // unretained: the node keeps it (traitkit-bench S6).
    _ = _resolvedStorage()
    let storage = _resolvedRef
    var observers = _observers ?? .make()
    let registration = make(storage._withUnsafeGuaranteedRef { observers.snapshotInline(for: $0) })
    let token = observers.append(registration)
    _observers = observers
    _graphRef?._withUnsafeGuaranteedRef { $0._liveRegistrations += 1 }
    // NB: a subtree summary covers its node's own, so traits this node already observes need
    // no propagation, and registering reads no further line of the node (traitkit-bench S6).
    if !_observedHere.contains(registration.filter) {
      _observedHere |= registration.filter
      _propagateObserved(registration.filter)
    }
    return token
  }

  /// Ends the live registration at `position` of `observers`, this node's table, and recycles
  /// its baseline when the entry alone held it.
  final func _killRegistration(at position: Int, in observers: _NodeObservers) {
    _killRegistrationInline(at: position, in: observers)
  }

  /// ``_killRegistration(at:in:)``, for the cancel of a token to inline (traitkit-bench S6).
  @inline(__always)
  private final func _killRegistrationInline(at position: Int, in observers: _NodeObservers) {
    // NB: while a pass runs on this thread, whichever graph it is, the baseline may be in a
    // callback's hands: the innermost pass keeps it, and hands it to the pass it runs in.
    // Unretained: that pass is running, so its graph is alive until `kill` returns.
    let recycler = _CurrentCell.activeGraph
    // NB: counted first: the release in `kill` runs deinitializers, which may move this node.
    _graphRef?._withUnsafeGuaranteedRef { $0._liveRegistrations -= 1 }
    // A baseline that the entry alone held, outside any pass: the next change can fill it
    // rather than allocate. The graph is read again, after the deinitializers `kill` ran (a
    // graph that went detached its nodes).
    if let freed = observers.kill(at: position, recyclingInto: recycler) { _recycleReplaced(freed) }
  }

  @inlinable
  final func _requireObservable<Observed>(as _: Observed.Type) {
    _requireAPI(
      self is Observed,
      "A trait change handler for \(Observed.self) was registered on a \(type(of: self)); "
        + "its first parameter must accept the observed object"
    )
  }
}
