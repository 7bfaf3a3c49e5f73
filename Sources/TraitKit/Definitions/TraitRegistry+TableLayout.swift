extension _TraitRegistry {
  /// Where the regions of a published table lie (see ``_TraitRegistry``), for a table of
  /// `capacity` key slots and `count` traits.
  ///
  /// The header, keys and infos are `UInt` words; the defaults are 64-bit slots, at an offset
  /// aligned for them whatever the word size, so that a 32-bit platform stores a 64-bit
  /// default whole; the boxed flags are `UInt` words again.
  struct TableLayout {
    /// The word index of the first key (the header is the mask and the count).
    static let keysWord = 2
    /// The word index of the first info.
    let infosWord: Int
    /// The byte offset of the first default.
    let defaultsOffset: Int
    /// The byte offset of the first boxed flag.
    let boxedOffset: Int
    /// The size of the table in bytes.
    let byteCount: Int

    /// The alignment the table's allocation needs: a default's.
    static let alignment = Swift.max(MemoryLayout<UInt64>.alignment, MemoryLayout<UInt>.alignment)

    init(capacity: Int, count: Int, wordSize: Int = MemoryLayout<UInt>.stride) {
      infosWord = Self.infosWord(capacity: capacity)
      defaultsOffset = Self.defaultsOffset(capacity: capacity, count: count, wordSize: wordSize)
      boxedOffset = defaultsOffset + count * MemoryLayout<UInt64>.stride
      byteCount = boxedOffset + count * wordSize
    }

    // NB: the readers below run on the pass (a trait's info, defaults and flags): plain
    // wrapping arithmetic that folds to a few adds for the platform's word size, small enough
    // that its callers stay inlined where they were (traitkit-bench S1, S2).

    /// The word index of the first info in a table of `capacity` key slots.
    @inline(__always)
    static func infosWord(capacity: Int) -> Int {
      keysWord &+ 2 &* capacity
    }

    /// The byte offset of the first default in a table of `capacity` key slots and `count`
    /// traits.
    @inline(__always)
    static func defaultsOffset(
      capacity: Int,
      count: Int,
      wordSize: Int = MemoryLayout<UInt>.stride
    ) -> Int {
      let infosEnd = (infosWord(capacity: capacity) &+ count) &* wordSize
      let defaultAlignment = MemoryLayout<UInt64>.alignment
      return (infosEnd &+ (defaultAlignment &- 1)) & ~(defaultAlignment &- 1)
    }

    /// The byte offset of the first boxed flag in a table of `capacity` key slots and `count`
    /// traits.
    @inline(__always)
    static func boxedOffset(
      capacity: Int,
      count: Int,
      wordSize: Int = MemoryLayout<UInt>.stride
    ) -> Int {
      defaultsOffset(capacity: capacity, count: count, wordSize: wordSize)
        &+ count &* MemoryLayout<UInt64>.stride
    }
  }
}
