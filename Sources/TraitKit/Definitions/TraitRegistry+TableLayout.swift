extension _TraitRegistry {
  /// Where the regions of a published table lie (see ``_TraitRegistry``), for a table of
  /// `capacity` key slots and `count` traits.
  ///
  /// The header, keys and infos are `UInt` words; the defaults are 64-bit slots, at an offset
  /// aligned for them whatever the word size, so that a 32-bit platform stores a 64-bit
  /// default whole; the boxed flags are `UInt` words again.
  struct TableLayout: Equatable {
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
      infosWord = Self.keysWord + 2 * capacity
      let infosEnd = (infosWord + count) * wordSize
      let defaultAlignment = MemoryLayout<UInt64>.alignment
      defaultsOffset = (infosEnd + defaultAlignment - 1) / defaultAlignment * defaultAlignment
      boxedOffset = defaultsOffset + count * MemoryLayout<UInt64>.stride
      byteCount = boxedOffset + count * wordSize
    }

    /// The layout of the published table `table`, read from its header.
    init(of table: UnsafePointer<UInt>) {
      self.init(capacity: Int(bitPattern: table[0]) + 1, count: Int(bitPattern: table[1]))
    }
  }
}
