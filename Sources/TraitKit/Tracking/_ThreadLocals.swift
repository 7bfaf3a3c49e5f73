import CTraitKitShims

/// TraitKit's per-thread state: the innermost running tracked closure's record, the cell through
/// which a running update pass publishes `TraitCollection.current`, and the last stamp of an
/// in-place access of overrides.
///
/// Each is one load or store of a C11 `_Thread_local` (see `CTraitKitThreadLocal.h`).
enum _ThreadLocals {
  /// The record of the innermost tracked closure running on this thread (unretained), or nil.
  static var activeRecord: UnsafeMutableRawPointer? {
    @inline(__always) get { ctraitkit_get_active_record() }
    @inline(__always) set { ctraitkit_set_active_record(newValue) }
  }

  /// Stores a collection of `storage` whose reads `recorder` records in this thread's
  /// tracked-read cell, unretained, and returns the cell's address: valid until the thread's
  /// next tracked read.
  static func trackedRead(
    _ storage: Unmanaged<_Storage>,
    recorder: Unmanaged<_TraitReadRecorder>
  ) -> UnsafePointer<TraitCollection> {
    ctraitkit_set_tracked_read(
      storage.toOpaque(),
      recorder.toOpaque()
    ).assumingMemoryBound(to: TraitCollection.self)
  }

  /// The last stamp this thread gave an in-place access of overrides, or 0 (see
  /// `_nextOverridesAccessStamp()`, which reads and writes it inline in a client).
  static var overridesAccessStamp: UInt64 {
    @inline(__always) get { ctraitkit_get_overrides_access_stamp() }
  }

  /// The cell of the update pass running on this thread (unretained), or nil.
  static var currentCell: UnsafeMutableRawPointer? {
    @inline(__always) get { ctraitkit_get_current_cell() }
    @inline(__always) set { ctraitkit_set_current_cell(newValue) }
  }
}
