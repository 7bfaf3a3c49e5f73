extension TraitOverrides: CustomStringConvertible {
  /// The overridden traits, by ``TraitDefinition/name``, with their values, an override to the
  /// default value included.
  ///
  /// For example `TraitOverrides(UserInterfaceStyle = dark)`.
  public var description: String {
    let entries = _specified.map(_storage.entryDescription(at:))
    return "TraitOverrides(\(entries.joined(separator: "; ")))"
  }
}
