import Foundation
import Synchronization
import Testing

@testable import TraitKit

// Model-checked random walks over every public API that writes or copies slots, with boxed plain
// data (not Equatable, nonzero default), class values, strings, unboxed ints, and trait types
// registered midway (beyond every existing storage's count); registration on other threads; and
// values whose deinitializers register trait types while a storage releases its boxes. Each walk
// has a fixed seed, printed with any failure.

private struct RVMark: Sendable, Codable {
  var line: Int32
  var column: Int32
}

private final class RVObj: Sendable {
  static let live = Atomic<Int>(0)
  let id: Int
  init(_ id: Int) {
    self.id = id
    Self.live.add(1, ordering: .relaxed)
  }
  deinit { Self.live.subtract(1, ordering: .relaxed) }
}

private struct RVMarkTrait: TraitDefinition { static let defaultValue = RVMark(line: 7, column: 3) }
private struct RVIntTrait: TraitDefinition { static let defaultValue = 5 }
private struct RVStrTrait: TraitDefinition { static let defaultValue = "dflt" }
private struct RVObjTrait: TraitDefinition { static let defaultValue: RVObj? = nil }

private struct RVWrap<T> {}
private struct RVGenMark<Tag>: TraitDefinition {
  static var defaultValue: RVMark { RVMark(line: 9, column: 9) }
}
private struct RVGenInt<Tag>: TraitDefinition { static var defaultValue: Int { 11 } }
private struct RVGenObj<Tag>: TraitDefinition { static var defaultValue: RVObj? { nil } }
private struct RVGenStr<Tag>: TraitDefinition { static var defaultValue: String { "g" } }

private enum MV: Equatable, CustomStringConvertible {
  case int(Int)
  case mark(Int32, Int32)
  case obj(Int?)
  case str(String)
  var description: String {
    switch self {
    case .int(let v): "int(\(v))"
    case .mark(let a, let b): "mark(\(a),\(b))"
    case .obj(let v): "obj(\(v.map(String.init) ?? "nil"))"
    case .str(let s): "str(\(s))"
    }
  }
}

private struct RVRef {
  let name: String
  let type: TraitKit.Trait
  let defaultMV: MV
  /// Whether each write is a change (not Equatable).
  let nonEquatable: Bool
  let codable: Bool
  let read: (TraitCollection) -> MV
  let write: (inout any MutableTraits, MV) -> Void
  let setOverride: (TraitNode, MV) -> Void
  let overrideValue: (TraitNode) -> MV?
}

private func makeIntRef<T: TraitDefinition>(_: T.Type) -> RVRef where T.Value == Int {
  RVRef(
    name: String(describing: T.self),
    type: T.self,
    defaultMV: .int(T.defaultValue),
    nonEquatable: false,
    codable: true,
    read: { .int($0[T.self]) },
    write: { t, v in if case .int(let x) = v { t[T.self] = x } },
    setOverride: { n, v in if case .int(let x) = v { n.traitOverrides[T.self] = x } },
    overrideValue: { n in n.traitOverrides.value(for: T.self).map { .int($0) } }
  )
}

private func makeMarkRef<T: TraitDefinition>(_: T.Type) -> RVRef where T.Value == RVMark {
  RVRef(
    name: String(describing: T.self),
    type: T.self,
    defaultMV: .mark(T.defaultValue.line, T.defaultValue.column),
    nonEquatable: true,
    codable: true,
    read: {
      let m = $0[T.self]
      return .mark(m.line, m.column)
    },
    write: { t, v in if case .mark(let a, let b) = v { t[T.self] = RVMark(line: a, column: b) } },
    setOverride: { n, v in
      if case .mark(let a, let b) = v { n.traitOverrides[T.self] = RVMark(line: a, column: b) }
    },
    overrideValue: { n in n.traitOverrides.value(for: T.self).map { .mark($0.line, $0.column) } }
  )
}

private func makeObjRef<T: TraitDefinition>(_: T.Type) -> RVRef where T.Value == RVObj? {
  RVRef(
    name: String(describing: T.self),
    type: T.self,
    defaultMV: .obj(nil),
    nonEquatable: true,
    codable: false,
    read: { .obj($0[T.self]?.id) },
    write: { t, v in if case .obj(let x) = v { t[T.self] = x.map(RVObj.init) } },
    setOverride: { n, v in if case .obj(let x) = v { n.traitOverrides[T.self] = x.map(RVObj.init) }
    },
    overrideValue: { n in n.traitOverrides.value(for: T.self).map { .obj($0?.id) } }
  )
}

private func makeStrRef<T: TraitDefinition>(_: T.Type) -> RVRef where T.Value == String {
  RVRef(
    name: String(describing: T.self),
    type: T.self,
    defaultMV: .str(T.defaultValue),
    nonEquatable: false,
    codable: true,
    read: { .str($0[T.self]) },
    write: { t, v in if case .str(let x) = v { t[T.self] = x } },
    setOverride: { n, v in if case .str(let x) = v { n.traitOverrides[T.self] = x } },
    overrideValue: { n in n.traitOverrides.value(for: T.self).map { .str($0) } }
  )
}

/// Makes refs for four fresh trait types keyed by a tag of nesting depth `depth`.
private func freshRefs<Tag>(_: Tag.Type, depth: Int) -> [RVRef] {
  if depth > 0 { return freshRefs(RVWrap<Tag>.self, depth: depth - 1) }
  return [
    makeMarkRef(RVGenMark<Tag>.self), makeIntRef(RVGenInt<Tag>.self),
    makeObjRef(RVGenObj<Tag>.self), makeStrRef(RVGenStr<Tag>.self),
  ]
}

/// A model entry: the value read, and whether it is set (present).
private typealias Model = [Int: MV]  // ref position -> non-default value (present)

@Suite("Slot storage under random walks", .serialized)
struct SlotStressTests {
  private func randomValue(_ ref: RVRef, _ r: inout RMRandom, _ nextID: inout Int) -> MV {
    let useDefault = r.below(4) == 0
    switch ref.defaultMV {
    case .int(let d): return .int(useDefault ? d : r.below(6))
    case .mark(let a, let b):
      return useDefault ? .mark(a, b) : .mark(Int32(r.below(4)), Int32(r.below(4)))
    case .obj:
      if useDefault { return .obj(nil) }
      nextID += 1
      return .obj(nextID)
    case .str(let d):
      return .str(useDefault ? d : ["", "a", String(repeating: "x", count: 30)][r.below(3)])
    }
  }

  /// The model after writing `value` for `ref` at `pos` (canonical: a default write of an
  /// Equatable trait unsets; any write of a non-Equatable trait sets).
  private func apply(_ model: inout Model, _ ref: RVRef, _ pos: Int, _ value: MV) {
    if !ref.nonEquatable && value == ref.defaultMV {
      model[pos] = nil
    } else {
      model[pos] = value
    }
  }

  private func check(_ c: TraitCollection, _ model: Model, _ refs: [RVRef], _ context: String) {
    for (pos, ref) in refs.enumerated() {
      let expected = model[pos] ?? ref.defaultMV
      let got = ref.read(c)
      if got != expected {
        Issue.record("\(context): \(ref.name) read \(got), expected \(expected)")
      }
    }
    // description, hash, equality with itself never crash
    _ = c.description
    var h = Hasher()
    c.hash(into: &h)
    _ = h.finalize()
    #expect(c == c)
  }

  @Test(
    "collections from random writes, merges and decoding read what a model says, new traits too"
  )
  func collectionsWalk() throws {
    var refs: [RVRef] = [
      makeMarkRef(RVMarkTrait.self), makeIntRef(RVIntTrait.self), makeObjRef(RVObjTrait.self),
      makeStrRef(RVStrTrait.self),
    ]
    let seed: UInt64 = 0x1234
    var r = RMRandom(seed: seed)
    var nextID = 0
    do {
      var pool: [(TraitCollection, Model)] = [(TraitCollection(), [:])]
      var fresh = 0
      for step in 0..<4000 {
        let op = r.below(10)
        switch op {
        case 0 where fresh < 12:
          // Register new trait types: beyond every existing storage's count.
          refs += freshRefs(Int.self, depth: fresh)
          fresh += 1
        case 0, 1, 2:
          // modifyingTraits with a few writes
          let (base, m0) = pool[r.below(pool.count)]
          var m = m0
          let writes = (0..<(1 + r.below(3))).map { _ -> (Int, MV) in
            let pos = r.below(refs.count)
            return (pos, randomValue(refs[pos], &r, &nextID))
          }
          let c = base.modifyingTraits { t in
            for (pos, v) in writes { refs[pos].write(&t, v) }
          }
          for (pos, v) in writes { apply(&m, refs[pos], pos, v) }
          check(c, m, refs, "seed \(seed) step \(step) modify")
          check(base, m0, refs, "seed \(seed) step \(step) modify base")
          pool.append((c, m))
        case 3:
          // replacing, through modifyingTraits of one write (same write path), and
          // changedTraits: a non-Equatable write is a change
          let (base, m0) = pool[r.below(pool.count)]
          let pos = r.below(refs.count)
          let v = randomValue(refs[pos], &r, &nextID)
          let c = base.modifyingTraits { refs[pos].write(&$0, v) }
          var m = m0
          apply(&m, refs[pos], pos, v)
          check(c, m, refs, "seed \(seed) step \(step) replace")
          let changed = c.changedTraits(from: base)
          if refs[pos].nonEquatable {
            #expect(
              changed.contains { $0 == refs[pos].type },
              "seed \(seed) step \(step): R1 \(refs[pos].name)"
            )
            #expect(c != base)
          }
          pool.append((c, m))
        case 4:
          // merge
          let picks = (0..<(1 + r.below(3))).map { _ in pool[r.below(pool.count)] }
          let c = TraitCollection(traitsFrom: picks.map(\.0))
          var m: Model = [:]
          for (_, pm) in picks { m.merge(pm) { $1 } }
          check(c, m, refs, "seed \(seed) step \(step) merge")
          pool.append((c, m))
        case 5:
          // codable round trip
          let (c, m0) = pool[r.below(pool.count)]
          let data = try JSONEncoder().encode(c)
          let d = try JSONDecoder().decode(TraitCollection.self, from: data)
          var m: Model = [:]
          for (pos, v) in m0 where refs[pos].codable { m[pos] = v }
          check(d, m, refs, "seed \(seed) step \(step) decode")
          pool.append((d, m))
        case 6:
          // comparisons between random pairs never crash; equal models of Equatable-only
          // content compare equal
          let (a, ma) = pool[r.below(pool.count)]
          let (b, mb) = pool[r.below(pool.count)]
          let changed = a.changedTraits(from: b)
          _ = a.containsTraits(in: b)
          _ = a.hasDifferentColorAppearance(comparedTo: b)
          let eq = a == b
          if eq { #expect(changed.isEmpty) }
          let allEquatable = (ma.keys.map { refs[$0] } + mb.keys.map { refs[$0] }).allSatisfy {
            !$0.nonEquatable
          }
          if allEquatable { #expect(eq == (ma == mb), "seed \(seed) step \(step): == \(ma) \(mb)") }
        default:
          // drop a random collection
          if pool.count > 40 { pool.remove(at: r.below(pool.count)) }
        }
      }
      for (c, m) in pool { check(c, m, refs, "final") }
    }
    #expect(RVObj.live.load(ordering: .relaxed) == 0)
  }

  @Test(
    "nodes under random overrides and base traits read what a model says, new traits too"
  )
  func graphWalk() {
    var refs: [RVRef] = [
      makeMarkRef(RVMarkTrait.self), makeIntRef(RVIntTrait.self), makeObjRef(RVObjTrait.self),
      makeStrRef(RVStrTrait.self),
    ]
    let seed: UInt64 = 0xBEEF
    var r = RMRandom(seed: seed)
    var nextID = 100_000
    do {
      let graph = TraitGraph()
      var nodes: [TraitNode] = [graph.root]
      var parents: [Int] = [-1]
      var overrides: [[Int: MV]] = [[:]]  // per node: pos -> override value (specified)
      var base: Model = [:]
      var fresh = 0
      var calls = 0
      for _ in 0..<16 {
        let p = r.below(nodes.count)
        let n = TraitNode()
        nodes[p].addTraitChild(n)
        nodes.append(n)
        parents.append(p)
        overrides.append([:])
        _ = n.registerForTraitChanges(refs.map(\.type)) { (_: TraitNode, _: TraitCollection) in
          calls += 1
        }
      }
      func effective(_ i: Int, _ pos: Int) -> MV {
        if let v = overrides[i][pos] { return v }
        if parents[i] < 0 { return base[pos] ?? refs[pos].defaultMV }
        return effective(parents[i], pos)
      }
      for step in 0..<6000 {
        let op = r.below(12)
        let i = r.below(nodes.count)
        switch op {
        case 0 where fresh < 10:
          refs += freshRefs(String.self, depth: fresh)
          fresh += 1
        case 0, 1, 2, 3, 4:
          let pos = r.below(refs.count)
          let v = randomValue(refs[pos], &r, &nextID)
          refs[pos].setOverride(nodes[i], v)
          overrides[i][pos] = v
        case 5, 6:
          let pos = r.below(refs.count)
          nodes[i].traitOverrides.remove(refs[pos].type)
          overrides[i][pos] = nil
        case 7:
          // base traits
          let pos = r.below(refs.count)
          let v = randomValue(refs[pos], &r, &nextID)
          graph.baseTraits = graph.baseTraits.modifyingTraits { refs[pos].write(&$0, v) }
          apply(&base, refs[pos], pos, v)
        case 8:
          graph.updateTraitsIfNeeded()
        case 9:
          // copy overrides wholesale from one node to another
          let j = r.below(nodes.count)
          nodes[j].traitOverrides = nodes[i].traitOverrides
          overrides[j] = overrides[i]
        default:
          // read everything of a node
          let c = nodes[i].traitCollection
          for (pos, ref) in refs.enumerated() {
            let got = ref.read(c)
            let expected = effective(i, pos)
            if got != expected {
              Issue.record(
                "seed \(seed) step \(step) node \(i): \(ref.name) read \(got), expected \(expected)"
              )
              return
            }
            if let ov = overrides[i][pos] {
              #expect(ref.overrideValue(nodes[i]) == ov)
            }
          }
          _ = c.description
        }
      }
      graph.updateTraitsIfNeeded()
      for n in nodes.dropFirst().reversed() { n.removeFromTraitParent() }
    }
    #expect(RVObj.live.load(ordering: .relaxed) == 0)
  }

  @Test("collections with boxes read back their writes while other tasks register trait types")
  func concurrentRegistration() async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        // registers fresh types
        var refs: [RVRef] = []
        for d in 0..<40 { refs += freshRefs(Double.self, depth: d) }
        _ = refs.count
      }
      for t in 0..<3 {
        group.addTask {
          var r = RMRandom(seed: UInt64(t + 7))
          var id = 1_000_000 * (t + 1)
          var refs = [
            makeMarkRef(RVMarkTrait.self), makeObjRef(RVObjTrait.self), makeStrRef(RVStrTrait.self),
          ]
          var cs: [TraitCollection] = [TraitCollection()]
          for k in 0..<3000 {
            if k % 100 == 0 {
              switch t {
              case 0: refs += freshRefs(Float.self, depth: k / 100)
              case 1: refs += freshRefs(Int8.self, depth: k / 100)
              default: refs += freshRefs(Int16.self, depth: k / 100)
              }
            }
            let pos = r.below(refs.count)
            let v: MV
            switch refs[pos].defaultMV {
            case .mark: v = .mark(Int32(k), 1)
            case .obj:
              id += 1
              v = .obj(id)
            case .str: v = .str(String(repeating: "y", count: k % 40))
            case .int: v = .int(k)
            }
            let c = cs[r.below(cs.count)].modifyingTraits { refs[pos].write(&$0, v) }
            #expect(refs[pos].read(c) == v, "seed \(t + 7) step \(k)")
            cs.append(c)
            if cs.count > 30 { cs.remove(at: r.below(cs.count)) }
            _ = TraitCollection(traitsFrom: [cs[r.below(cs.count)], c])
          }
        }
      }
    }
  }
}

/// A value whose deinitializer registers new trait types (a new table is published) while a
/// storage releases its boxes, and counts the values it fails to read back from them.
private final class RVRegistersOnDeinit: Sendable {
  static let live = Atomic<Int>(0)
  static let misreads = Atomic<Int>(0)
  let depth: Int
  init(_ depth: Int) {
    self.depth = depth
    Self.live.add(1, ordering: .relaxed)
  }
  deinit {
    let refs = freshRefs(UInt8.self, depth: depth)
    var c = TraitCollection()
    for ref in refs {
      let value = ref.defaultMV == .obj(nil) ? .obj(1) : ref.defaultMV
      c = c.modifyingTraits { ref.write(&$0, value) }
      if ref.read(c) != value { Self.misreads.add(1, ordering: .relaxed) }
    }
    Self.live.subtract(1, ordering: .relaxed)
  }
}
private struct RVDeinitTraitA: TraitDefinition {
  static let defaultValue: RVRegistersOnDeinit? = nil
}
private struct RVDeinitTraitB: TraitDefinition {
  static let defaultValue: RVRegistersOnDeinit? = nil
}
private struct RVEmpty: Sendable {}
private struct RVEmptyTrait: TraitDefinition { static let defaultValue = RVEmpty() }
private struct RVOptIntTrait: TraitDefinition { static let defaultValue: Int? = 3 }

@Suite("Slot storage edge cases", .serialized)
struct SlotEdgeCaseTests {
  @Test(
    "a value whose deinitializer registers trait types is freed once, by a release, store or pass"
  )
  func deinitRegisters() {
    let live = { RVRegistersOnDeinit.live.load(ordering: .relaxed) }
    #expect(live() == 0)

    // Freed when the last collection that holds it goes.
    do {
      let a = TraitCollection(RVDeinitTraitA.self, value: RVRegistersOnDeinit(0))
        .modifyingTraits { $0[RVDeinitTraitB.self] = RVRegistersOnDeinit(1) }
      let b = a.modifyingTraits { $0[RVMarkTrait.self] = RVMark(line: 1, column: 1) }
      withExtendedLifetime((a, b)) {
        #expect(b[RVDeinitTraitA.self]?.depth == 0)
        #expect(b[RVDeinitTraitB.self]?.depth == 1)
        #expect(b[RVMarkTrait.self].line == 1)
        #expect(live() == 2)
      }
    }
    #expect(live() == 0)

    // Freed by a store over it.
    do {
      let c = TraitCollection().modifyingTraits {
        $0[RVDeinitTraitA.self] = RVRegistersOnDeinit(2)
        $0[RVDeinitTraitA.self] = RVRegistersOnDeinit(3)  // the store releases the first
      }
      withExtendedLifetime(c) {
        #expect(c[RVDeinitTraitA.self]?.depth == 3)
        #expect(live() == 1)
      }
    }
    #expect(live() == 0)

    // Freed by override stores, and by passes that let go of collections and reinitialize
    // them as spares.
    do {
      let graph = TraitGraph()
      let node = TraitNode()
      let child = TraitNode()
      graph.root.addTraitChild(node)
      node.addTraitChild(child)
      var calls = 0
      child.registerForTraitChanges([RVDeinitTraitA.self]) { (_: TraitNode, _: TraitCollection) in
        calls += 1
      }
      #expect(graph.statistics.liveRegistrations == 1)
      for k in 4..<30 {
        node.traitOverrides[RVDeinitTraitA.self] = RVRegistersOnDeinit(k)
        child.traitOverrides[RVDeinitTraitB.self] = RVRegistersOnDeinit(k + 100)
        #expect(child.traitCollection[RVDeinitTraitA.self]?.depth == k)
        graph.updateTraitsIfNeeded()
        #expect(child.traitCollection[RVDeinitTraitB.self]?.depth == k + 100)
        #expect(live() == 2)
      }
      #expect(calls == 26)
      #expect(graph.statistics.liveRegistrations == 1)
      child.removeFromTraitParent()
      node.removeFromTraitParent()
      #expect(graph.statistics.liveRegistrations == 0)
    }
    #expect(live() == 0)
    #expect(RVRegistersOnDeinit.misreads.load(ordering: .relaxed) == 0)
  }

  @Test(
    "boxed zero-size values always differ from the default; boxed optionals compare by value"
  )
  func oddPlainData() {
    #expect(_TraitRegistry.isBoxed(_TraitRegistry.index(of: RVEmptyTrait.self)))
    #expect(_TraitRegistry.isBoxed(_TraitRegistry.index(of: RVOptIntTrait.self)))
    let c = TraitCollection(RVEmptyTrait.self, value: RVEmpty())
    #expect(c != TraitCollection())
    #expect(c.changedTraits(from: TraitCollection()).count == 1)
    let d = TraitCollection(RVOptIntTrait.self, value: 3)
    #expect(d == TraitCollection())
    let e = TraitCollection(RVOptIntTrait.self, value: nil)
    #expect(e[RVOptIntTrait.self] == nil)
    #expect(e.replacing(RVOptIntTrait.self, value: 3) == TraitCollection())
  }
}
