extension TraitCollection: CustomStringConvertible {
  /// The traits that hold a value other than their default, by ``TraitDefinition/name``.
  ///
  /// For example `TraitCollection(UserInterfaceIdiom = phone; HorizontalSizeClass = regular)`.
  /// Inside a tracked closure, describing a collection counts as a read of every trait.
  public var description: String {
    _recordComparison(.all)
    let entries = _storage.presentIndices().map(_storage.entryDescription(at:))
    let unknown = _storage.unknown.map { ["\($0.entries.count) unknown encoded trait(s)"] }
    return "TraitCollection(\((entries + (unknown ?? [])).joined(separator: "; ")))"
  }
}

extension _Storage {
  /// The trait with dense index `index` and its value in this storage, as `Name = value`.
  func entryDescription(at index: Int) -> String {
    let info = _TraitRegistry.info(at: index)
    return "\(info.name) = \(info.describeSlot(slot(at: index, info: info)))"
  }
}
