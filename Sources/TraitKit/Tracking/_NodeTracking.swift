import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Android)
import Android
#endif

/// A node's automatic-tracking state: the slots it tracks, and the recorded reads of its traits
/// (by its own slots or other nodes').
final class _NodeTracking {
  /// The node's tracked slots.
  @exclusivity(unchecked) var records: ContiguousArray<_TrackingRecord> = []
  /// The recorded reads of this node's traits; dead ones are purged when met.
  @exclusivity(unchecked) var watchers: ContiguousArray<_TraitReadRecorder> = []
  /// A superset of the traits the live watchers recorded.
  @exclusivity(unchecked) var observed = _TraitFilter.none

  func record(for slot: TraitTrackingSlot, owner: TraitNode) -> _TrackingRecord {
    for position in records.indices where records[position].slot == slot {
      return records[position]
    }
    let record = _TrackingRecord(owner: owner, slot: slot)
    records.append(record)
    return record
  }

  func removeRecord(for slot: TraitTrackingSlot) {
    guard let position = records.firstIndex(where: { $0.slot == slot }) else { return }
    records[position].kill()
    records.remove(at: position)
  }

  /// Runs the invalidation of every slot that read a trait of `node` that now differs; returns
  /// how many ran.
  func invalidate(_ node: TraitNode, current: _Storage, pass: UInt64) -> Int {
    var invalidations = 0
    var position = 0
    while position < watchers.count {
      let watcher = watchers[position]
      guard watcher.isLive else {
        watchers.remove(at: position)
        continue
      }
      position += 1
      guard watcher.baseline !== current,
        watcher.traits.contains(where: { !current.slotEqual(at: $0, to: watcher.baseline) })
      else { continue }
      watcher.baseline = current
      let record = watcher.record.takeUnretainedValue()
      guard record.invalidatedInPass != pass else { continue }
      record.invalidatedInPass = pass
      invalidations += 1
      record.invalidation(record.owner)
    }
    // NB: after the calls: an invalidation that re-runs its slot records reads that count.
    observed = watchers.reduce(into: .none) { if $1.isLive { $0 |= $1.filter } }
    return invalidations
  }

  func nodeWillDeinit(_ node: TraitNode) {
    for record in records { record.kill() }
    for watcher in watchers { watcher.isLive = false }
  }
}

@available(*, unavailable)
extension _NodeTracking: Sendable {}

/// The record of one tracked slot of one node: its invalidation and the reads of its last run.
@usableFromInline
final class _TrackingRecord {
  // NB: `@exclusivity(unchecked)`: see the note on `TraitNode`'s state.
  unowned(unsafe) let owner: TraitNode
  let slot: TraitTrackingSlot
  @exclusivity(unchecked) var invalidation: (TraitNode) -> Void = { _ in }
  /// One entry per node read in the last run (usually just the owner).
  @exclusivity(unchecked) var dependencies: ContiguousArray<_TraitReadRecorder> = []
  /// The dependency found last, tried first (a tracked closure mostly reads its own node).
  @exclusivity(unchecked) var recentDependency: Unmanaged<_TraitReadRecorder>?
  /// Counts runs; a dependency touched in the current run carries its number.
  @exclusivity(unchecked) var run: UInt64 = 0
  @exclusivity(unchecked) var isRecording = false
  @exclusivity(unchecked) var isLive = true
  @exclusivity(unchecked) var invalidatedInPass: UInt64 = 0
  /// The thread running the current run; reads from other threads are not recorded.
  @exclusivity(unchecked) var thread = pthread_self()

  init(owner: TraitNode, slot: TraitTrackingSlot) {
    self.owner = owner
    self.slot = slot
  }

  func beginRun() {
    run &+= 1
    isRecording = true
    thread = pthread_self()
  }

  /// Ends a run: dependencies this run did not touch are dropped.
  func endRun() {
    isRecording = false
    recentDependency = nil
    var kept = 0
    for position in dependencies.indices {
      if dependencies[position].run == run {
        if kept != position { dependencies.swapAt(kept, position) }
        kept += 1
      } else {
        dependencies[position].isLive = false
      }
    }
    if kept < dependencies.count { dependencies.removeLast(dependencies.count - kept) }
  }

  func kill() {
    isLive = false
    recentDependency = nil
    isRecording = false
    for dependency in dependencies { dependency.isLive = false }
    dependencies.removeAll()
    invalidation = { _ in }
  }

  /// The recorder for reads of `node`'s traits in the current run, whose collection is
  /// `storage`.
  func dependency(on node: TraitNode, storage: _Storage) -> _TraitReadRecorder {
    let id = ObjectIdentifier(node)
    // NB: compare identities only: a dependency's node may be gone (then it is not live).
    if let recent = recentDependency,
      recent._withUnsafeGuaranteedRef({ $0.isLive && $0.nodeID == id && $0.run == run })
    {
      return recent.takeUnretainedValue()
    }
    for position in dependencies.indices
    where dependencies[position].isLive && dependencies[position].nodeID == id {
      let dependency = dependencies[position]
      if dependency.run != run { dependency.reset(run: run, baseline: storage) }
      recentDependency = Unmanaged.passUnretained(dependency)
      return dependency
    }
    let dependency = _TraitReadRecorder(record: self, node: node, run: run, baseline: storage)
    dependencies.append(dependency)
    node._trackingState().watchers.append(dependency)
    recentDependency = Unmanaged.passUnretained(dependency)
    return dependency
  }

  /// The innermost tracked closure running on this thread, if any.
  ///
  /// Reading a trait asks this on every read, so the common answer — nobody in the process is
  /// recording — costs one relaxed atomic load; only then is the thread-local slot consulted.
  @inline(__always) static var active: _TrackingRecord? {
    guard recordingScopes.load(ordering: .relaxed) > 0 else { return nil }
    return pthread_getspecific(_activeRecordKey).map {
      Unmanaged<_TrackingRecord>.fromOpaque($0).takeUnretainedValue()
    }
  }

  /// Makes `record` the innermost active record of this thread; returns the one it hides.
  static func enter(_ record: _TrackingRecord) -> UnsafeMutableRawPointer? {
    recordingScopes.add(1, ordering: .relaxed)
    let enclosing = pthread_getspecific(_activeRecordKey)
    pthread_setspecific(_activeRecordKey, Unmanaged.passUnretained(record).toOpaque())
    return enclosing
  }

  /// Restores the record that `enter` hid.
  static func leave(restoring enclosing: UnsafeMutableRawPointer?) {
    pthread_setspecific(_activeRecordKey, enclosing)
    recordingScopes.subtract(1, ordering: .relaxed)
  }

  /// Whether a tracked closure runs anywhere in the process (one relaxed atomic load).
  @usableFromInline
  static func _isRecordingAnywhere() -> Bool {
    recordingScopes.load(ordering: .relaxed) > 0
  }

  /// The number of tracked closures running in the process, on any thread.
  private static let recordingScopes = Atomic<Int>(0)

}

@available(*, unavailable)
extension _TrackingRecord: Sendable {}

/// The reads of one node's traits recorded by one tracked slot in its last run.
///
/// Collections obtained inside a tracked closure carry their recorder, so that reads made
/// through them are recorded too.
@usableFromInline
final class _TraitReadRecorder: @unchecked Sendable {
  // NB: `@unchecked`: collections carrying a recorder may cross threads, but `record(_:)` only
  // writes on the thread running the tracked closure and ignores every other thread.
  /// The slot's record, unretained: a dependency never outlives its use by a live record.
  let record: Unmanaged<_TrackingRecord>
  unowned(unsafe) let node: TraitNode
  let nodeID: ObjectIdentifier
  @exclusivity(unchecked) var traits = _TraitIndexSet()
  @exclusivity(unchecked) var filter = _TraitFilter.none
  /// The node's collection when the traits were read, or when the invalidation last ran.
  @exclusivity(unchecked) var baseline: _Storage
  @exclusivity(unchecked) var run: UInt64
  /// False once the slot's record, the read node, or the run that made it is gone.
  @exclusivity(unchecked) var isLive = true

  init(record: _TrackingRecord, node: TraitNode, run: UInt64, baseline: _Storage) {
    self.record = Unmanaged.passUnretained(record)
    self.node = node
    self.nodeID = ObjectIdentifier(node)
    self.run = run
    self.baseline = baseline
  }

  /// Starts recording a new run: the exact traits start over; the filter, a summary the pass
  /// uses to find this dependency, keeps the bits it has (a superset is harmless), so that
  /// re-tracking the same reads publishes nothing up the tree.
  func reset(run: UInt64, baseline: _Storage) {
    self.run = run
    self.baseline = baseline
    traits = _TraitIndexSet()
  }

  /// Records a read of the trait with dense index `index`.
  @usableFromInline
  func record(_ index: Int) {
    guard isLive,
      record._withUnsafeGuaranteedRef({
        $0.isRecording && $0.run == run && pthread_equal($0.thread, pthread_self()) != 0
      })
    else { return }
    if traits.contains(index) { return }
    traits.insert(index)
    let bit = _TraitFilter(index: index)
    guard !filter.contains(bit) else { return }
    filter |= bit
    node._trackingState().observed |= bit
    node._observedHere |= bit
    node._propagateObserved(bit)
  }
}

private let _activeRecordKey: pthread_key_t = {
  var key = pthread_key_t()
  let status = pthread_key_create(&key, nil)
  precondition(status == 0, "TraitKit could not create its thread-local key (error \(status))")
  return key
}()
