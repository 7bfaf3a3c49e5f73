extension TraitCollection: CustomStringConvertible {
  /// The traits that hold a value other than their default, by ``TraitDefinition/name``.
  ///
  /// For example `TraitCollection(UserInterfaceIdiom = phone; HorizontalSizeClass = regular)`.
  public var description: String {
    let entries = _storage.presentIndices().map { index in
      let info = _TraitRegistry.info(at: index)
      return "\(info.name) = \(info.describeSlot(_storage.slot(at: index, info: info)))"
    }
    let unknown = _storage.unknown.map { ["\($0.entries.count) unknown encoded trait(s)"] }
    return "TraitCollection(\((entries + (unknown ?? [])).joined(separator: "; ")))"
  }
}
