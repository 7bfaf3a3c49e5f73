/// The traits that a comparison of collections reads, beyond the traits a tracked closure reads
/// one at a time: every trait, or every trait that affects color appearance — trait types
/// registered later among them, since a comparison's result would change with their values too.
enum _ComparedTraits: UInt8, Comparable {
  case none
  case colorAppearance
  case all

  static func < (lhs: _ComparedTraits, rhs: _ComparedTraits) -> Bool {
    lhs.rawValue < rhs.rawValue
  }

  /// Whether these traits include the trait with dense index `index`.
  func includes(_ index: Int) -> Bool {
    switch self {
    case .none: false
    case .colorAppearance: _TraitRegistry.info(at: index).affectsColorAppearance
    case .all: true
    }
  }
}
