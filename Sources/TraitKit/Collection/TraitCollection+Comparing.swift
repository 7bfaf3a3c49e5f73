extension TraitCollection {
  /// Creates a collection that merges `collections`: for each trait, the last collection that
  /// sets it (to a value other than its default) wins.
  ///
  /// Custom traits merge like system traits **(beyond UIKit, which keeps the first
  /// collection's custom values)**. Inside a tracked closure, the merge counts as a read of
  /// every trait of each collection obtained there.
  ///
  /// - Parameter collections: The collections to merge, in increasing precedence.
  /// - Complexity: O(*n* × *m*) for *m* collections of *n* traits.
  public init(traitsFrom collections: [TraitCollection]) {
    for collection in collections { collection._recordComparison(.all) }
    guard var storage = collections.first?._storage else {
      self.init()
      return
    }
    for collection in collections.dropFirst() {
      let source = collection._storage
      for index in 0..<source.count {
        let info = _TraitRegistry.info(at: index)
        guard source.isPresent(at: index, info: info) else { continue }
        // A value set under an identifier replaces the entry decoding kept under it, as a write
        // does.
        if storage.hasUnknown { _TraitMutations.forgetUnknown(at: index, in: &storage) }
        guard !storage.hasIdenticalSlot(at: index, as: source) else { continue }
        _Storage.makeUnique(&storage, count: index + 1)
        storage.copySlot(at: index, from: source)
      }
      if let unknown = source.unknown {
        _Storage.makeUnique(&storage, count: 0)
        storage.unknown = storage.unknown?.merging(unknown) ?? unknown
      }
    }
    self.init(_storage: storage)
  }

  /// Returns the traits whose values differ between this collection and `other`.
  ///
  /// Inside a tracked closure, the comparison counts as a read of every trait of each collection
  /// obtained there.
  ///
  /// - Parameter other: The collection to compare with.
  /// - Returns: The differing traits, in the order of their dense indices.
  /// - Complexity: O(*n*), where *n* is the number of traits.
  public func changedTraits(from other: TraitCollection) -> [Trait] {
    _recordComparison(.all)
    other._recordComparison(.all)
    let lhs = _storage
    let rhs = other._storage
    if lhs === rhs { return [] }
    return (0..<Swift.max(lhs.count, rhs.count)).compactMap { index in
      lhs.slotEqual(at: index, to: rhs) ? nil : _TraitRegistry.info(at: index).type
    }
  }

  /// Returns whether this collection holds, for every trait that `other` sets, the same value.
  ///
  /// Custom traits count like system traits **(beyond UIKit, which considers system traits
  /// only)**. Inside a tracked closure, the comparison counts as a read of the traits `other`
  /// sets, in this collection, and of every trait, in `other`, if each was obtained there.
  ///
  /// - Parameter other: The collection whose set traits to look for.
  /// - Returns: `true` when every trait `other` sets has an equal value here.
  /// - Complexity: O(*n*), where *n* is the number of traits.
  public func containsTraits(in other: TraitCollection) -> Bool {
    other._recordComparison(.all)
    let source = other._storage
    let recorder = _recorder
    return (0..<source.count).allSatisfy { index in
      guard source.isPresent(at: index, info: _TraitRegistry.info(at: index)) else { return true }
      if let recorder {
        _TrackingRecord.recordRead(index, through: recorder, of: Unmanaged.passUnretained(_storage))
      }
      return _storage.slotEqual(at: index, to: source)
    }
  }

  /// Returns whether dynamic colors could resolve differently under `other`.
  ///
  /// Compares the traits of ``systemTraitsAffectingColorAppearance`` and every custom trait
  /// whose ``TraitDefinition/affectsColorAppearance`` is `true`. Inside a tracked closure, the
  /// comparison counts as a read of those traits of each collection obtained there.
  ///
  /// - Parameter other: The collection to compare with.
  /// - Returns: `true` when any trait that affects color appearance differs.
  /// - Complexity: O(*n*), where *n* is the number of traits.
  public func hasDifferentColorAppearance(comparedTo other: TraitCollection) -> Bool {
    _recordComparison(.colorAppearance)
    other._recordComparison(.colorAppearance)
    let lhs = _storage
    let rhs = other._storage
    if lhs === rhs { return false }
    return (0..<Swift.max(lhs.count, rhs.count)).contains { index in
      _TraitRegistry.info(at: index).affectsColorAppearance && !lhs.slotEqual(at: index, to: rhs)
    }
  }

  // MARK: - Optional arguments, as UIKit takes them

  /// Returns the traits whose values differ between this collection and `other`, or, when
  /// `other` is `nil`, this collection's default: what UIKit's optional form lets legacy code
  /// such as `changedTraits(from: previousTraitCollection)` pass.
  ///
  /// UIKit leaves a `nil` argument undocumented; TraitKit compares with a collection in which
  /// every trait has its default value.
  ///
  /// - Parameter other: The collection to compare with, or `nil` for a collection of defaults.
  /// - Returns: The differing traits, in the order of their dense indices.
  @_disfavoredOverload
  public func changedTraits(from other: TraitCollection?) -> [Trait] {
    changedTraits(from: other ?? TraitCollection())
  }

  /// Returns whether this collection holds, for every trait that `other` sets, the same value;
  /// `true` for `nil`, which sets nothing.
  ///
  /// - Parameter other: The collection whose set traits to look for, or `nil`.
  /// - Returns: `true` when every trait `other` sets has an equal value here.
  @_disfavoredOverload
  public func containsTraits(in other: TraitCollection?) -> Bool {
    guard let other else { return true }
    return containsTraits(in: other)
  }

  /// Returns whether dynamic colors could resolve differently under `other`, or, when `other`
  /// is `nil`, under a collection of defaults: what UIKit's optional form lets the legacy idiom
  /// `traitCollection.hasDifferentColorAppearance(comparedTo: previousTraitCollection)` pass.
  ///
  /// - Parameter other: The collection to compare with, or `nil` for a collection of defaults.
  /// - Returns: `true` when any trait that affects color appearance differs.
  @_disfavoredOverload
  public func hasDifferentColorAppearance(comparedTo other: TraitCollection?) -> Bool {
    hasDifferentColorAppearance(comparedTo: other ?? TraitCollection())
  }
}

extension TraitCollection {
  /// Records, when this collection was obtained inside a tracked closure, that a comparison read
  /// `traits` of it (see `_TrackingRecord.recordComparison(_:through:of:)`).
  @inline(__always)
  func _recordComparison(_ traits: _ComparedTraits) {
    guard let recorder = _recorder else { return }
    _TrackingRecord.recordComparison(
      traits,
      through: recorder,
      of: Unmanaged.passUnretained(_storage)
    )
  }
}
