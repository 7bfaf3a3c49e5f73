// TraitKit's two thread-local pointers: the running tracked closure's record, and the cell
// through which a running update pass publishes `TraitCollection.current`.
//
// Swift has no thread-local variables of its own; `pthread_getspecific` costs a call and a few
// checks on every tracked read. A C11 `_Thread_local` read through an inline accessor compiles to
// a single load in a statically linked client.

#ifndef CTRAITKIT_THREAD_LOCAL_H
#define CTRAITKIT_THREAD_LOCAL_H

#if __has_feature(nullability)
#pragma clang assume_nonnull begin
#endif

/// The record of the innermost tracked closure running on this thread (an unretained
/// `_TrackingRecord`), or NULL. Use the accessors: Swift cannot import thread-local variables.
extern _Thread_local void *_Nullable ctraitkit_active_record;

/// The record of the innermost tracked closure running on this thread, or NULL.
static inline void *_Nullable ctraitkit_get_active_record(void) {
  return ctraitkit_active_record;
}

/// Makes `record` the innermost tracked closure's record on this thread.
static inline void ctraitkit_set_active_record(void *_Nullable record) {
  ctraitkit_active_record = record;
}

/// The cell of the update pass running on this thread (an unretained `_CurrentCell`), or NULL.
extern _Thread_local void *_Nullable ctraitkit_current_cell;

/// The cell of the update pass running on this thread, or NULL.
static inline void *_Nullable ctraitkit_get_current_cell(void) {
  return ctraitkit_current_cell;
}

/// Makes `cell` the cell of the update pass running on this thread.
static inline void ctraitkit_set_current_cell(void *_Nullable cell) {
  ctraitkit_current_cell = cell;
}

#if __has_feature(nullability)
#pragma clang assume_nonnull end
#endif

#endif
