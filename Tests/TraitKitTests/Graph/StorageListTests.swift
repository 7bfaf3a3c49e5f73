import Testing

@testable import TraitKit

/// `_StorageList`, the plain buffer that holds a pass's recycling candidates and a graph's
/// spare collections, each with one reference of the list's.
@Suite("Storage list")
struct StorageListTests {
  /// Four collections listed in order, held by the list alone; their addresses and weak
  /// references to them.
  private static func listOfFour() -> (
    list: _StorageList, addresses: [UnsafeMutableRawPointer], weak: [Weak]
  ) {
    var list = _StorageList()
    var addresses: [UnsafeMutableRawPointer] = []
    var weak: [Weak] = []
    for _ in 0..<4 {
      let storage = _Storage.make(count: 0, minimumCapacity: 1)
      addresses.append(Unmanaged.passUnretained(storage).toOpaque())
      weak.append(Weak(storage))
      list.append(Unmanaged.passRetained(storage))
    }
    return (list, addresses, weak)
  }

  struct Weak {
    weak var storage: _Storage?
    init(_ storage: _Storage) { self.storage = storage }
  }

  @Test(
    "a collection removed from the middle comes out with the list's reference, the rest in order"
  )
  func removeFromTheMiddle() {
    var (list, addresses, weak) = Self.listOfFour()
    defer { list.deallocate() }

    let removed = list.remove(at: 1)

    #expect(removed.toOpaque() == addresses[1])
    #expect(list.count == 3)
    #expect(
      (0..<list.count).map { list[$0].toOpaque() } == [addresses[0], addresses[2], addresses[3]]
    )
    #expect(weak[1].storage != nil)
    removed.release()
    #expect(weak[1].storage == nil)
    #expect(weak[0].storage != nil && weak[2].storage != nil && weak[3].storage != nil)
  }

  @Test("the last collection removed leaves the others where they were")
  func removeTheLast() {
    var (list, addresses, weak) = Self.listOfFour()
    defer { list.deallocate() }

    list.remove(at: 3).release()

    #expect((0..<list.count).map { list[$0].toOpaque() } == Array(addresses[0..<3]))
    #expect(weak[3].storage == nil)
  }

  @Test("releasing them all lets go of every collection and empties the list")
  func releaseAll() {
    var (list, _, weak) = Self.listOfFour()
    defer { list.deallocate() }

    list.releaseAll()

    #expect(list.isEmpty)
    #expect(weak.allSatisfy { $0.storage == nil })
  }
}
