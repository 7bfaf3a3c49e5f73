// TraitKit's thread-local state: the running tracked closure's record, the cell through which a
// running update pass publishes `TraitCollection.current`, the collection a tracked read yields,
// and the last stamp of an in-place access of overrides.
//
// Swift has no thread-local variables of its own, and `pthread_getspecific` costs a library
// call on every tracked read. A C11 `_Thread_local` read through an inline accessor compiles to a
// single load.
//
// Header only, compiled by the Swift compiler's C importer into the Swift objects that use it
// (see `CTraitKitSharedDefinition.h`).

#ifndef CTRAITKIT_THREAD_LOCAL_H
#define CTRAITKIT_THREAD_LOCAL_H

#include "CTraitKitSharedDefinition.h"

#pragma clang assume_nonnull begin

/// The record of the innermost tracked closure running on this thread (an unretained
/// `_TrackingRecord`), or NULL.
CTRAITKIT_SHARED_DEFINITION _Thread_local void *_Nullable ctraitkit_active_record = 0;

/// The cell of the update pass running on this thread (an unretained `_CurrentCell`), or NULL.
CTRAITKIT_SHARED_DEFINITION _Thread_local void *_Nullable ctraitkit_current_cell = 0;

/// The two words of the `TraitCollection` a tracked closure read last on this thread (an
/// unretained storage and recorder), for `TraitNode.traitCollection` to yield in place.
CTRAITKIT_SHARED_DEFINITION _Thread_local void *_Nullable ctraitkit_tracked_read[2] = {0, 0};

/// The last stamp this thread gave an in-place access of a node's overrides, or 0.
CTRAITKIT_SHARED_DEFINITION _Thread_local unsigned long long ctraitkit_overrides_access_stamp = 0;

static inline unsigned long long ctraitkit_get_overrides_access_stamp(void) {
  return ctraitkit_overrides_access_stamp;
}

static inline void ctraitkit_set_overrides_access_stamp(unsigned long long stamp) {
  ctraitkit_overrides_access_stamp = stamp;
}

static inline void *_Nullable ctraitkit_get_active_record(void) {
  return ctraitkit_active_record;
}

static inline void ctraitkit_set_active_record(void *_Nullable record) {
  ctraitkit_active_record = record;
}

static inline void *_Nullable ctraitkit_get_current_cell(void) {
  return ctraitkit_current_cell;
}

static inline void ctraitkit_set_current_cell(void *_Nullable cell) {
  ctraitkit_current_cell = cell;
}

/// Fills this thread's tracked-read cell and returns its address.
static inline const void *ctraitkit_set_tracked_read(void *storage, void *recorder) {
  ctraitkit_tracked_read[0] = storage;
  ctraitkit_tracked_read[1] = recorder;
  return ctraitkit_tracked_read;
}

#pragma clang assume_nonnull end

#endif
