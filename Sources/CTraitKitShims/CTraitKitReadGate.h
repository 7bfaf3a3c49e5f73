// The two process-wide words that every read of a trait checks: the address of the trait
// registry's published lookup table, and the read gate, open while no tracked closure runs.
//
// A read inlined into a client loads each with one instruction. Before, it called two functions
// of TraitKit's, which loaded Swift `Atomic`s (a client of another module can reach those only
// through calls), and the two calls cost a fifth of a read (traitkit-bench S8). C11 atomics in
// static inline functions compile to plain loads on x86-64 and arm64 (`ldapr` or `ldar` for the
// acquiring one), and the thread sanitizer sees them as atomic.
//
// The loads carry Swift's `@_effects(readonly)`: Swift sees a C call as one that may release
// anything, and would otherwise retain the collection a client borrows in place around it. So
// Swift may merge two loads with no writing call between them: never poll these words.
//
// Header only (see `CTraitKitSharedDefinition.h`): each Swift object that reads a word defines
// it weakly, and the linker usually keeps one definition per process. Not always: a TraitKit DLL
// on Windows, or a library loaded with `RTLD_LOCAL` or linked `-Bsymbolic`, keeps its own copy,
// and a client then reads words that TraitKit never writes. Both words are therefore 0 until
// TraitKit writes them, and 0 sends a read to TraitKit's out-of-line paths, which read
// TraitKit's own copy: such a client reads correctly, through a call and an unspecialized
// lookup per read. Every Swift function that relies on reading TraitKit's copy must therefore
// stay in TraitKit's image: out of line, not `@inlinable`, and marked
// `@_semantics("optimize.no.crossmodule")`, or `-cross-module-optimization` copies it into the
// client (`TraitCollection._readUnlisted`, `_recordedReadUnlisted`, `_TraitRegistry.register`).
// `Scripts/split-image-check.sh` builds such a client and checks what it reads.

#ifndef CTRAITKIT_READ_GATE_H
#define CTRAITKIT_READ_GATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "CTraitKitSharedDefinition.h"

/// The address of the trait registry's published table, or 0 before the first registration.
CTRAITKIT_SHARED_DEFINITION _Atomic(uintptr_t) ctraitkit_published_table = 0;

/// The read gate: `CTRAITKIT_READ_GATE_OPEN` once TraitKit published its first table, plus
/// twice the number of tracked closures running in the process, on any thread. A read may take
/// its fast path only while the gate is exactly open.
CTRAITKIT_SHARED_DEFINITION _Atomic(intptr_t) ctraitkit_read_gate = 0;

/// The gate's open bit, below the count of running tracked closures: a comparison with a small
/// constant, one instruction on x86-64 and arm64.
#define CTRAITKIT_READ_GATE_OPEN ((intptr_t)1)

/// The published table's address (acquiring: the table's contents are visible once its address
/// is), or 0: before the first registration, or in a client with its own copy of the word.
__attribute__((swift_attr("@_effects(readonly)")))
static inline uintptr_t ctraitkit_load_published_table(void) {
  return atomic_load_explicit(&ctraitkit_published_table, memory_order_acquire);
}

/// Publishes a table whose contents are written (releasing).
static inline void ctraitkit_store_published_table(uintptr_t table) {
  atomic_store_explicit(&ctraitkit_published_table, table, memory_order_release);
}

/// Whether the gate is open and no tracked closure runs: a read may take its fast path
/// (relaxed: a thread's own tracked runs are ordered with its reads by the thread itself).
__attribute__((swift_attr("@_effects(readonly)")))
static inline bool ctraitkit_read_gate_is_open(void) {
  return atomic_load_explicit(&ctraitkit_read_gate, memory_order_relaxed)
    == CTRAITKIT_READ_GATE_OPEN;
}

/// Opens the gate; TraitKit does so when it publishes its first table.
static inline void ctraitkit_open_read_gate(void) {
  atomic_fetch_or_explicit(&ctraitkit_read_gate, CTRAITKIT_READ_GATE_OPEN, memory_order_relaxed);
}

/// Whether a tracked closure runs anywhere in the process.
static inline bool ctraitkit_is_recording_anywhere(void) {
  return (atomic_load_explicit(&ctraitkit_read_gate, memory_order_relaxed) >> 1) > 0;
}

/// Adds `delta` (1 or -1) to the number of tracked closures running.
static inline void ctraitkit_add_recording_scopes(intptr_t delta) {
  atomic_fetch_add_explicit(&ctraitkit_read_gate, 2 * delta, memory_order_relaxed);
}

#endif
