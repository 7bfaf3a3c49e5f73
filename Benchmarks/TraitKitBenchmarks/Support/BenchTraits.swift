import TraitKit

// Generated: 32 Int-valued traits, the "32 trait IDs" of the benchmark plan, and tables that
// read and write trait k without a switch at the call site.

enum BenchTrait0: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait1: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait2: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait3: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait4: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait5: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait6: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait7: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait8: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait9: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait10: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait11: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait12: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait13: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait14: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait15: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait16: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait17: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait18: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait19: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait20: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait21: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait22: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait23: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait24: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait25: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait26: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait27: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait28: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait29: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait30: TraitDefinition { static let defaultValue = 0 }
enum BenchTrait31: TraitDefinition { static let defaultValue = 0 }

/// The 32 benchmark traits and per-index accessors.
enum BenchTraits {
  static let count = 32
  static let all: [any TraitDefinition.Type] = [
    BenchTrait0.self,
    BenchTrait1.self,
    BenchTrait2.self,
    BenchTrait3.self,
    BenchTrait4.self,
    BenchTrait5.self,
    BenchTrait6.self,
    BenchTrait7.self,
    BenchTrait8.self,
    BenchTrait9.self,
    BenchTrait10.self,
    BenchTrait11.self,
    BenchTrait12.self,
    BenchTrait13.self,
    BenchTrait14.self,
    BenchTrait15.self,
    BenchTrait16.self,
    BenchTrait17.self,
    BenchTrait18.self,
    BenchTrait19.self,
    BenchTrait20.self,
    BenchTrait21.self,
    BenchTrait22.self,
    BenchTrait23.self,
    BenchTrait24.self,
    BenchTrait25.self,
    BenchTrait26.self,
    BenchTrait27.self,
    BenchTrait28.self,
    BenchTrait29.self,
    BenchTrait30.self,
    BenchTrait31.self,
  ]
  /// `write[k](&overrides, value)` sets trait k.
  static let write: [@Sendable (inout TraitOverrides, Int) -> Void] = [
    { $0[BenchTrait0.self] = $1 },
    { $0[BenchTrait1.self] = $1 },
    { $0[BenchTrait2.self] = $1 },
    { $0[BenchTrait3.self] = $1 },
    { $0[BenchTrait4.self] = $1 },
    { $0[BenchTrait5.self] = $1 },
    { $0[BenchTrait6.self] = $1 },
    { $0[BenchTrait7.self] = $1 },
    { $0[BenchTrait8.self] = $1 },
    { $0[BenchTrait9.self] = $1 },
    { $0[BenchTrait10.self] = $1 },
    { $0[BenchTrait11.self] = $1 },
    { $0[BenchTrait12.self] = $1 },
    { $0[BenchTrait13.self] = $1 },
    { $0[BenchTrait14.self] = $1 },
    { $0[BenchTrait15.self] = $1 },
    { $0[BenchTrait16.self] = $1 },
    { $0[BenchTrait17.self] = $1 },
    { $0[BenchTrait18.self] = $1 },
    { $0[BenchTrait19.self] = $1 },
    { $0[BenchTrait20.self] = $1 },
    { $0[BenchTrait21.self] = $1 },
    { $0[BenchTrait22.self] = $1 },
    { $0[BenchTrait23.self] = $1 },
    { $0[BenchTrait24.self] = $1 },
    { $0[BenchTrait25.self] = $1 },
    { $0[BenchTrait26.self] = $1 },
    { $0[BenchTrait27.self] = $1 },
    { $0[BenchTrait28.self] = $1 },
    { $0[BenchTrait29.self] = $1 },
    { $0[BenchTrait30.self] = $1 },
    { $0[BenchTrait31.self] = $1 },
  ]
  /// `read[k](collection)` reads trait k.
  static let read: [@Sendable (TraitCollection) -> Int] = [
    { $0[BenchTrait0.self] },
    { $0[BenchTrait1.self] },
    { $0[BenchTrait2.self] },
    { $0[BenchTrait3.self] },
    { $0[BenchTrait4.self] },
    { $0[BenchTrait5.self] },
    { $0[BenchTrait6.self] },
    { $0[BenchTrait7.self] },
    { $0[BenchTrait8.self] },
    { $0[BenchTrait9.self] },
    { $0[BenchTrait10.self] },
    { $0[BenchTrait11.self] },
    { $0[BenchTrait12.self] },
    { $0[BenchTrait13.self] },
    { $0[BenchTrait14.self] },
    { $0[BenchTrait15.self] },
    { $0[BenchTrait16.self] },
    { $0[BenchTrait17.self] },
    { $0[BenchTrait18.self] },
    { $0[BenchTrait19.self] },
    { $0[BenchTrait20.self] },
    { $0[BenchTrait21.self] },
    { $0[BenchTrait22.self] },
    { $0[BenchTrait23.self] },
    { $0[BenchTrait24.self] },
    { $0[BenchTrait25.self] },
    { $0[BenchTrait26.self] },
    { $0[BenchTrait27.self] },
    { $0[BenchTrait28.self] },
    { $0[BenchTrait29.self] },
    { $0[BenchTrait30.self] },
    { $0[BenchTrait31.self] },
  ]
  /// `readOf[k](node)` reads trait k of a node, as a client reads one:
  /// `node.traitCollection[Trait.self]`.
  static let readOf: [@Sendable (TraitNode) -> Int] = [
    { $0.traitCollection[BenchTrait0.self] },
    { $0.traitCollection[BenchTrait1.self] },
    { $0.traitCollection[BenchTrait2.self] },
    { $0.traitCollection[BenchTrait3.self] },
    { $0.traitCollection[BenchTrait4.self] },
    { $0.traitCollection[BenchTrait5.self] },
    { $0.traitCollection[BenchTrait6.self] },
    { $0.traitCollection[BenchTrait7.self] },
    { $0.traitCollection[BenchTrait8.self] },
    { $0.traitCollection[BenchTrait9.self] },
    { $0.traitCollection[BenchTrait10.self] },
    { $0.traitCollection[BenchTrait11.self] },
    { $0.traitCollection[BenchTrait12.self] },
    { $0.traitCollection[BenchTrait13.self] },
    { $0.traitCollection[BenchTrait14.self] },
    { $0.traitCollection[BenchTrait15.self] },
    { $0.traitCollection[BenchTrait16.self] },
    { $0.traitCollection[BenchTrait17.self] },
    { $0.traitCollection[BenchTrait18.self] },
    { $0.traitCollection[BenchTrait19.self] },
    { $0.traitCollection[BenchTrait20.self] },
    { $0.traitCollection[BenchTrait21.self] },
    { $0.traitCollection[BenchTrait22.self] },
    { $0.traitCollection[BenchTrait23.self] },
    { $0.traitCollection[BenchTrait24.self] },
    { $0.traitCollection[BenchTrait25.self] },
    { $0.traitCollection[BenchTrait26.self] },
    { $0.traitCollection[BenchTrait27.self] },
    { $0.traitCollection[BenchTrait28.self] },
    { $0.traitCollection[BenchTrait29.self] },
    { $0.traitCollection[BenchTrait30.self] },
    { $0.traitCollection[BenchTrait31.self] },
  ]
}
