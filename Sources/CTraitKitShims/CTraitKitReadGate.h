// The two process-wide words that every read of a trait checks: the address of the trait
// registry's published lookup table, and the number of tracked closures running anywhere.
//
// A read inlined into a client loads each with one instruction. Swift's own atomics cannot do
// that across modules: a client reaches a global `Atomic` of another module through a call to
// its addressor, and two such calls per read cost a fifth of a read (traitkit-bench S8). C11
// atomics in static inline functions compile to plain loads on x86-64 and arm64 (`ldar` for the
// acquiring one), and the thread sanitizer sees them as atomic.
//
// The loads carry Swift's `@_effects(readonly)`: Swift sees a C call as one that may release
// anything, and would otherwise retain the collection a client borrows in place around it.
//
// Header only (see `CTraitKitSharedDefinition.h`): each Swift object that reads a word defines
// it weakly, and the linker keeps one definition per process.

#ifndef CTRAITKIT_READ_GATE_H
#define CTRAITKIT_READ_GATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "CTraitKitSharedDefinition.h"

/// The address of the trait registry's published table, or 0 before the first registration.
CTRAITKIT_SHARED_DEFINITION _Atomic(uintptr_t) ctraitkit_published_table = 0;

/// How many tracked closures are running in the process, on any thread.
CTRAITKIT_SHARED_DEFINITION _Atomic(intptr_t) ctraitkit_recording_scopes = 0;

/// The published table's address (acquiring: the table's contents are visible once its address
/// is), or 0.
__attribute__((swift_attr("@_effects(readonly)")))
static inline uintptr_t ctraitkit_load_published_table(void) {
  return atomic_load_explicit(&ctraitkit_published_table, memory_order_acquire);
}

/// Publishes a table whose contents are written (releasing).
static inline void ctraitkit_store_published_table(uintptr_t table) {
  atomic_store_explicit(&ctraitkit_published_table, table, memory_order_release);
}

/// Whether a tracked closure runs anywhere in the process (relaxed: a thread's own runs are
/// ordered with its reads by the thread itself).
__attribute__((swift_attr("@_effects(readonly)")))
static inline bool ctraitkit_is_recording_anywhere(void) {
  return atomic_load_explicit(&ctraitkit_recording_scopes, memory_order_relaxed) > 0;
}

/// Adds `delta` (1 or -1) to the number of tracked closures running.
static inline void ctraitkit_add_recording_scopes(intptr_t delta) {
  atomic_fetch_add_explicit(&ctraitkit_recording_scopes, delta, memory_order_relaxed);
}

#endif
