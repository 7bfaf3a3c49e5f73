public import CTraitKitShims
import Synchronization

/// The process-wide table that gives every trait type a dense index.
///
/// Trait types are keyed by their metatype. The first use of a type registers it: under a lock,
/// it gets the next index and a `_TraitInfo`, and a new lookup table is published. Lookups take
/// no lock: they read the published table, an immutable open-addressed array of
/// `(metatype, index)` pairs in raw memory, with one atomic load and usually one probe.
///
/// Layout of a published table (see `TableLayout`):
///
///     UInt:    [mask] [count] [key₀ entry₀] … [key_mask entry_mask] [info₀] … [info_count-1]
///     UInt64:  [default₀] … [default_count-1]   (at the next 8-byte boundary)
///     UInt:    [boxed₀] … [boxed_count-1]
///
/// where a key is a metatype's address (0 marks an empty slot), an entry is the trait's index
/// with `boxedFlag` set when its values are boxed, an info is an unretained `_TraitInfo` pointer
/// ordered by index, a default is the trait's default slot as stored (0 for a boxed trait, whose
/// default slot holds no box), and a boxed word is 1 for a boxed trait, else 0. Tables are
/// never freed: each one stays reachable from the registry's state, so readers never race a
/// free. A process uses a few dozen trait types, and the tables of n types take O(n²) words in
/// all.
@usableFromInline
enum _TraitRegistry {
  /// The dense index of `trait`, registering it on first use.
  // NB: inlinable, with its callers on the read path, so that a client reading a trait gets a
  // specialized lookup: unspecialized, a read costs ~3x the floor (traitkit-bench S8).
  @inlinable @inline(__always)
  static func index<T: TraitDefinition>(of trait: T.Type) -> Int {
    registeredIndex(of: trait) ?? register(trait)
  }

  /// The entry of `trait` (see ``registeredEntry(of:)``), registering it on first use.
  @inlinable @inline(__always)
  static func entry<T: TraitDefinition>(of trait: T.Type) -> Int {
    registeredEntry(of: trait) ?? registerEntry(trait)
  }

  /// Registers `trait` and returns its entry.
  @usableFromInline
  static func registerEntry<T: TraitDefinition>(_ trait: T.Type) -> Int {
    let index = register(trait)
    return isBoxed(index) ? index | boxedFlag : index
  }

  /// The dense index of `trait`, if it is registered.
  @inlinable @inline(__always)
  static func registeredIndex<T: TraitDefinition>(of trait: T.Type) -> Int? {
    registeredEntry(of: trait).map { $0 & ~boxedFlag }
  }

  /// The entry of `trait`, if it is registered: its dense index, with ``boxedFlag`` set when
  /// its values are stored boxed, so that a read learns both from one load.
  @inlinable @inline(__always)
  static func registeredEntry<T: TraitDefinition>(of trait: T.Type) -> Int? {
    registeredEntry(key: UInt(bitPattern: ObjectIdentifier(trait)))
  }

  /// The entry of the trait whose metatype's address is `key`, if it is registered (see
  /// ``registeredEntry(of:)``); a caller with an existential metatype needs no generic call.
  @inlinable @inline(__always)
  static func registeredEntry(key: UInt) -> Int? {
    guard let table = UnsafePointer<UInt>(bitPattern: publishedTable()) else { return nil }
    let mask = Int(bitPattern: table[0])
    var probe = slot(for: key, mask: mask)
    while true {
      let candidate = table[2 &+ 2 &* probe]
      if candidate == key { return Int(bitPattern: table[3 &+ 2 &* probe]) }
      if candidate == 0 { return nil }
      probe = (probe &+ 1) & mask
    }
  }

  /// The bit of an entry (see ``registeredEntry(of:)``) that says the trait's values are boxed:
  /// the highest bit short of the sign, so that a boxed trait's entry is above any index.
  @inlinable @inline(__always)
  static var boxedFlag: Int { 1 << (Int.bitWidth - 2) }

  /// The information on the trait with dense index `index`.
  ///
  /// - Precondition: `index` was returned by ``index(of:)``.
  static func info(at index: Int) -> _TraitInfo {
    infoReference(at: index).takeUnretainedValue()
  }

  /// The information on the trait with dense index `index`, unretained: infos are never freed.
  ///
  /// - Precondition: `index` was returned by ``index(of:)``.
  static func infoReference(at index: Int) -> Unmanaged<_TraitInfo> {
    let table = currentTable()
    let infos = table + TableLayout.infosWord(capacity: Int(bitPattern: table[0]) &+ 1)
    return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: infos[index])!)
  }

  /// The stored default slots (see `_RawSlot`) of the traits with dense indices `range`, in
  /// order.
  ///
  /// - Precondition: every index in `range` is registered.
  static func defaultWords(_ range: Range<Int>) -> UnsafeBufferPointer<UInt64> {
    let table = currentTable()
    let offset = TableLayout.defaultsOffset(
      capacity: Int(bitPattern: table[0]) &+ 1,
      count: Int(bitPattern: table[1])
    )
    let defaults = (UnsafeRawPointer(table) + offset).assumingMemoryBound(to: UInt64.self)
    return UnsafeBufferPointer(start: defaults + range.lowerBound, count: range.count)
  }

  /// Whether the trait with dense index `index` stores its values boxed (see `_RawSlot`).
  ///
  /// - Precondition: `index` was returned by ``index(of:)``.
  static func isBoxed(_ index: Int) -> Bool {
    boxedFlags(index..<index + 1)[0] != 0
  }

  /// For the traits with dense indices `range`, in order: 1 where values are boxed, else 0.
  ///
  /// - Precondition: every index in `range` is registered.
  static func boxedFlags(_ range: Range<Int>) -> UnsafeBufferPointer<UInt> {
    let table = currentTable()
    let offset = TableLayout.boxedOffset(
      capacity: Int(bitPattern: table[0]) &+ 1,
      count: Int(bitPattern: table[1])
    )
    let flags = (UnsafeRawPointer(table) + offset).assumingMemoryBound(to: UInt.self)
    return UnsafeBufferPointer(start: flags + range.lowerBound, count: range.count)
  }

  /// The trait registered under `identifier`, if any.
  static func info(forIdentifier identifier: String) -> _TraitInfo? {
    _ = currentTable()
    return state.withLock { $0.byIdentifier[identifier] }.map { info(at: $0) }
  }

  // MARK: - Registration

  /// The dense index of `trait`, registering it if TraitKit's table does not have it yet.
  ///
  /// A caller's lookup that missed may have read a copy of the published table's word that a
  /// client's image keeps for itself (see `CTraitKitReadGate.h`), and misses every type: the
  /// lookup here, in TraitKit's code, finds a registered type without running its witnesses
  /// (user code) or taking the lock.
  // NB: out of line, and kept from cross-module optimization, which would copy it into a
  // client, so that the lookup here reads TraitKit's copy of the word.
  @inline(never) @_semantics("optimize.no.crossmodule")
  @usableFromInline
  static func register<T: TraitDefinition>(_ trait: T.Type) -> Int {
    if let index = registeredIndex(of: trait) { return index }
    let key = UInt(bitPattern: ObjectIdentifier(trait))
    // NB: the witnesses (`name`, `identifier`, …) are user code; run them outside the lock.
    let info = _TraitInfo(trait, index: -1)
    return state.withLock { state in
      if let index = state.indexByKey[key] { return index }
      let registered = _TraitInfo(copying: info, index: state.infos.count)
      state.add(registered, key: key)
      return registered.index
    }
  }

  private static func currentTable() -> UnsafePointer<UInt> {
    if let table = UnsafePointer<UInt>(bitPattern: publishedTable()) {
      return table
    }
    // The first use of the registry: building the state registers the system traits.
    state.withLock { _ in }
    return UnsafePointer<UInt>(bitPattern: publishedTable())!
  }

  // NB: in 64 bits on every platform: a 32-bit word would not hold the multiplier.
  @inlinable @inline(__always)
  static func slot(for key: UInt, mask: Int) -> Int {
    Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
  }

  /// The address of the published table (0 before the first registration).
  // NB: a C11 atomic (see `CTraitKitReadGate.h`), which a client's inlined read loads with one
  // instruction; a Swift `Atomic` of this module costs a client a call (traitkit-bench S8). A
  // client with its own copy of the word reads 0: its reads find no entry, and look the trait
  // up out of line, in TraitKit's table (`TraitCollection._readUnlisted`).
  @inlinable @inline(__always)
  static func publishedTable() -> UInt {
    ctraitkit_load_published_table()
  }
  private static let state = Mutex(_RegistryState())
}

/// The registry's mutable state, guarded by its lock.
private struct _RegistryState: ~Copyable {
  var infos: [_TraitInfo] = []
  var indexByKey: [UInt: Int] = [:]
  var byIdentifier: [String: Int] = [:]
  /// Every table ever published, so that none is freed while a reader may hold it.
  var tables: [UnsafeMutablePointer<UInt>] = []

  init() {
    for trait in _systemTraitTypes {
      add(trait._makeInfo(index: infos.count), key: UInt(bitPattern: ObjectIdentifier(trait)))
    }
  }

  mutating func add(_ info: _TraitInfo, key: UInt) {
    if let existing = byIdentifier[info.identifier] {
      _apiMisuse(
        "Two trait types have the identifier '\(info.identifier)': "
          + "\(String(reflecting: infos[existing].type)) and \(String(reflecting: info.type)); "
          + "each trait needs its own identifier: give one of them an explicit `identifier`, "
          + "such as a reverse-DNS string"
      )
    }
    infos.append(info)
    indexByKey[key] = info.index
    byIdentifier[info.identifier] = info.index
    publish()
  }

  private mutating func publish() {
    // NB: at most a quarter full, with keys placed in index order, not in the order of
    // `indexByKey`, which changes with the process's hashing seed: a lookup, which every trait
    // read and write makes, rarely probes twice, and a binary probes the same way in every run
    // (callgrind totals had varied by 6% from run to run; S8 −8% instructions against half full).
    var capacity = 16
    while capacity < infos.count * 4 { capacity *= 2 }
    let mask = capacity - 1
    let layout = _TraitRegistry.TableLayout(capacity: capacity, count: infos.count)
    let memory = UnsafeMutableRawPointer.allocate(
      byteCount: layout.byteCount,
      alignment: _TraitRegistry.TableLayout.alignment
    )
    let table = memory.bindMemory(to: UInt.self, capacity: layout.infosWord + infos.count)
    table.initialize(repeating: 0, count: layout.infosWord + infos.count)
    table[0] = UInt(bitPattern: mask)
    table[1] = UInt(bitPattern: infos.count)
    let keys = table + _TraitRegistry.TableLayout.keysWord
    let defaults = (memory + layout.defaultsOffset)
      .bindMemory(to: UInt64.self, capacity: infos.count)
    let boxed = (memory + layout.boxedOffset).bindMemory(to: UInt.self, capacity: infos.count)
    for info in infos {
      let key = UInt(bitPattern: ObjectIdentifier(info.type))
      var probe = _TraitRegistry.slot(for: key, mask: mask)
      while keys[2 * probe] != 0 { probe = (probe + 1) & mask }
      keys[2 * probe] = key
      let flag = info.isInline ? 0 : _TraitRegistry.boxedFlag
      keys[2 * probe + 1] = UInt(bitPattern: info.index | flag)
      table[layout.infosWord + info.index] = UInt(
        bitPattern: Unmanaged.passUnretained(info).toOpaque()
      )
      (defaults + info.index).initialize(to: info.defaultWord)
      (boxed + info.index).initialize(to: info.isInline ? 0 : 1)
    }
    tables.append(table)
    ctraitkit_store_published_table(UInt(bitPattern: table))
    ctraitkit_open_read_gate()
  }
}
