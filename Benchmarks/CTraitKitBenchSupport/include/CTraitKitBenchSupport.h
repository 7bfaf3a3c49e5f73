#ifndef CTRAITKITBENCHSUPPORT_H
#define CTRAITKITBENCHSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// The number of heap allocations (malloc, calloc, realloc of a new block, aligned allocations)
/// made by this process so far, counted exactly by interposing the allocator in the benchmark
/// executable. Returns 0 forever where interposition is unavailable (non-glibc platforms, and
/// builds with a sanitizer, whose runtime owns the allocator).
uint64_t tkb_allocation_count(void);

/// The number of heap allocations counted by `tkb_allocation_count` that the calling thread made
/// so far. Returns 0 forever where `tkb_allocation_count` does.
uint64_t tkb_thread_allocation_count(void);

/// Whether allocations are being counted on this platform.
int tkb_counts_allocations(void);

/// Bytes of heap in use, from glibc's mallinfo2 (0 elsewhere).
size_t tkb_heap_bytes_in_use(void);

/// Returns freed heap memory to the system where supported (malloc_trim), for stable readings.
void tkb_trim_heap(void);

/// The CPU the calling thread runs on, or -1 where the platform does not say.
int tkb_current_cpu(void);

/// Lets the calling thread run on any of the host's CPUs but `cpu`, even when the process was
/// restricted to `cpu` (`taskset`); returns 0, or -1 when the platform or the host refuses.
int tkb_leave_cpu(int cpu);

#endif
