extension TraitCollection: Hashable {
  /// Returns whether two collections hold equal values for every trait.
  ///
  /// Values are compared with each trait's ``TraitDefinition/valuesEqual(_:_:)``; collections
  /// that share storage compare equal at once. Inside a tracked closure, the comparison counts
  /// as a read of every trait of each collection obtained there.
  ///
  /// - Complexity: O(1) for collections that share storage; O(*n*) otherwise, where *n* is the
  ///   number of traits.
  public static func == (lhs: TraitCollection, rhs: TraitCollection) -> Bool {
    lhs._recordComparison(.all)
    rhs._recordComparison(.all)
    return lhs._storage.isEqual(to: rhs._storage)
  }

  /// Hashes the traits that hold a value other than their default, with the values of system
  /// traits.
  ///
  /// A custom trait contributes its presence only: its ``TraitDefinition/valuesEqual(_:_:)`` may
  /// be looser than its values' `==`, and equal collections must hash equally.
  ///
  /// Inside a tracked closure, hashing a collection obtained there counts as a read of every
  /// trait.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    _recordComparison(.all)
    var present = 0
    for index in 0..<_storage.count {
      let info = _TraitRegistry.info(at: index)
      guard _storage.isPresent(at: index, info: info) else { continue }
      present += 1
      hasher.combine(index)
      info.hashSlot?(_storage.slot(at: index, info: info), &hasher)
    }
    hasher.combine(present)
    if let unknown = _storage.unknown { hasher.combine(unknown) }
  }
}

extension _Storage {
  /// Whether every trait holds equal values in `self` and `other`, and both kept the same
  /// entries with unknown identifiers from decoding: the equality of collections.
  func isEqual(to other: _Storage) -> Bool {
    if self === other { return true }
    guard (!hasUnknown && !other.hasUnknown) || unknown == other.unknown else { return false }
    return traitsEqual(to: other)
  }

  /// Whether every trait holds equal values in `self` and `other`, whatever entries with unknown
  /// identifiers they kept: those are no trait of this process, so no change of one is a change
  /// of traits.
  func traitsEqual(to other: _Storage) -> Bool {
    if self === other { return true }
    for index in 0..<Swift.max(count, other.count) where !slotEqual(at: index, to: other) {
      return false
    }
    return true
  }
}
