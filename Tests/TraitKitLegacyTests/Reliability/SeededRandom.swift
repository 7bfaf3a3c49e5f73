/// A seeded generator (SplitMix64): the same seed gives the same sequence on every platform.
///
/// The same generator, and the same derivation of a sequence's seed from a base seed, as
/// `RMRandom` in the core tests' `Support/ReliabilitySupport.swift`, which this test target
/// cannot import.
struct SeededRandom: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in `0..<bound`.
  mutating func below(_ bound: Int) -> Int {
    Int(next(upperBound: UInt64(bound)))
  }

  /// `true` with probability `percent`/100.
  mutating func chance(_ percent: Int) -> Bool {
    below(100) < percent
  }

  /// A random element of a non-empty array.
  mutating func pick<Element>(_ elements: [Element]) -> Element {
    elements[below(elements.count)]
  }

  /// The seed of the `index`th sequence derived from `base`: seeds of neighbouring sequences
  /// share no structure.
  static func seed(base: UInt64, index: Int) -> UInt64 {
    var random = SeededRandom(seed: base ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
    return random.next()
  }
}
