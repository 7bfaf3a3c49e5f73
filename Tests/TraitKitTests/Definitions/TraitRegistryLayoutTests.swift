import Testing

@testable import TraitKit

// The registry publishes its lookup table as one block of raw memory: `UInt` words, then 64-bit
// default slots, then `UInt` flags. These tests hold the layout to that on 64-bit and 32-bit
// word sizes alike (this machine runs only the first), and the published table to its contents.

/// A trait whose default needs all 64 bits of its slot.
private struct RLWideDefaultTrait: TraitDefinition {
  static let defaultValue = Double.pi
}

@Suite("Registry table layout")
struct TraitRegistryLayoutTests {
  @Test(
    "defaults start at an 8-byte boundary after the infos, and flags follow, at any word size",
    arguments: [4, 8],
    [(16, 0), (16, 7), (32, 9), (64, 31), (128, 63)]
  )
  func regionsAreAlignedAndDisjoint(wordSize: Int, shape: (capacity: Int, count: Int)) {
    let layout = _TraitRegistry.TableLayout(
      capacity: shape.capacity,
      count: shape.count,
      wordSize: wordSize
    )
    #expect(layout.infosWord == 2 + 2 * shape.capacity)
    let infosEnd = (layout.infosWord + shape.count) * wordSize
    #expect(layout.defaultsOffset % 8 == 0)
    #expect(layout.defaultsOffset >= infosEnd)
    #expect(layout.defaultsOffset < infosEnd + 8)
    #expect(layout.boxedOffset == layout.defaultsOffset + 8 * shape.count)
    #expect(layout.boxedOffset % wordSize == 0)
    #expect(layout.byteCount == layout.boxedOffset + wordSize * shape.count)
  }

  @Test("a 32-bit table with an odd number of words before the defaults pads them to 8 bytes")
  func thirtyTwoBitPadding() {
    // 2 + 2·16 + 1 = 35 words of 4 bytes end at byte 140, which is not 8-aligned.
    let layout = _TraitRegistry.TableLayout(capacity: 16, count: 1, wordSize: 4)
    #expect(layout.defaultsOffset == 144)
    #expect(layout.boxedOffset == 152)
    #expect(layout.byteCount == 156)
  }

  @Test("the published table is at most a quarter full and finds every trait at its own entry")
  func publishedKeysAreSparseAndComplete() {
    _ = _TraitRegistry.index(of: RLWideDefaultTrait.self)
    let table = UnsafePointer<UInt>(bitPattern: _TraitRegistry.publishedTable())!
    let capacity = Int(table[0]) + 1
    let count = Int(table[1])
    #expect(capacity >= 4 * count)
    for index in 0..<count {
      let info = _TraitRegistry.info(at: index)
      let key = UInt(bitPattern: ObjectIdentifier(info.type))
      let flag = info.isInline ? 0 : _TraitRegistry.boxedFlag
      #expect(_TraitRegistry.registeredEntry(key: key) == index | flag)
    }
  }

  @Test("the published table holds each trait's 64-bit default slot and boxed flag")
  func publishedDefaultsAreWhole() {
    let index = _TraitRegistry.index(of: RLWideDefaultTrait.self)
    #expect(_TraitRegistry.defaultWords(index..<index + 1)[0] == Double.pi.bitPattern)
    #expect(_TraitRegistry.boxedFlags(index..<index + 1)[0] == 0)
    #expect(!_TraitRegistry.isBoxed(index))
    #expect(TraitCollection()[RLWideDefaultTrait.self] == Double.pi)
    #expect(_TraitRegistry.info(at: index).type is RLWideDefaultTrait.Type)
  }
}
