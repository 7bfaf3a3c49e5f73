// Exact allocation counting for traitkit-bench, and the CPU affinity of its `--contend` thread.
//
// NB: one C file: with a second one in this target, valgrind 3.19 gave up on the executable's
// debug information ("Possibly corrupted debuginfo file"), and callgrind with it.
//
// On glibc, the executable defines malloc/calloc/realloc/free and the aligned allocators and
// forwards them to glibc's internal entry points; the dynamic linker binds every library of the
// process (the Swift runtime included) to these definitions, so each heap allocation is counted,
// once in a process-wide total and once for the thread that made it.
#include "CTraitKitBenchSupport.h"

// A sanitizer's runtime owns the allocator: defining malloc here would hand it memory it did not
// allocate (the test bundle links this target when it tests the benchmark's harness, and
// `Scripts/sanitize.sh` runs that bundle under ThreadSanitizer and AddressSanitizer).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define TKB_SANITIZED 1
#endif
#endif

#if defined(__GLIBC__) && !defined(TKB_SANITIZED)
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Atomic uint64_t allocations = 0;

// NB: initial-exec, so that reaching the counter is a fixed offset from the thread pointer: the
// general-dynamic model may call `__tls_get_addr`, which may allocate, which would land back here.
static _Thread_local uint64_t thread_allocations __attribute__((tls_model("initial-exec"))) = 0;

static inline void count(void) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  thread_allocations += 1;
}

void *malloc(size_t size) {
  count();
  return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
  count();
  return __libc_calloc(count_, size);
}

// A realloc that returns another block than it was given allocated one, and copied: counted.
// One that grew or shrank its block in place, or freed it (size 0), did not.
void *realloc(void *pointer, size_t size) {
  void *result = __libc_realloc(pointer, size);
  if (result != NULL && result != pointer) count();
  return result;
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  count();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *result = pointer;
  return 0;
}

uint64_t tkb_allocation_count(void) {
  return atomic_load_explicit(&allocations, memory_order_relaxed);
}

uint64_t tkb_thread_allocation_count(void) { return thread_allocations; }

int tkb_counts_allocations(void) { return 1; }

size_t tkb_heap_bytes_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

void tkb_trim_heap(void) { malloc_trim(0); }

#else

uint64_t tkb_allocation_count(void) { return 0; }
uint64_t tkb_thread_allocation_count(void) { return 0; }
int tkb_counts_allocations(void) { return 0; }
size_t tkb_heap_bytes_in_use(void) { return 0; }
void tkb_trim_heap(void) {}

#endif

// Which CPU a thread runs on, and moving a thread off one, for `--contend`'s thread.
//
// NB: glibc declares `sched_getcpu` and `sched_setaffinity` only under `_GNU_SOURCE`: they are
// declared here by hand, and the mask is plain words, as the kernel takes it.
#if defined(__linux__)
#include <stdint.h>
#include <sys/types.h>

extern int sched_getcpu(void);
extern int sched_setaffinity(pid_t pid, size_t size, const void *mask);

int tkb_current_cpu(void) { return sched_getcpu(); }

int tkb_leave_cpu(int cpu) {
  // Every CPU the kernel can name but `cpu` (glibc's 1,024): the process's own mask may hold
  // `cpu` alone (`taskset`).
  uint64_t others[16];
  for (int word = 0; word < 16; word++) others[word] = ~(uint64_t)0;
  if (cpu >= 0 && cpu < 1024) others[cpu / 64] &= ~((uint64_t)1 << (cpu % 64));
  return sched_setaffinity(0, sizeof others, others);
}

#else

int tkb_current_cpu(void) { return -1; }
int tkb_leave_cpu(int cpu) {
  (void)cpu;
  return -1;
}

#endif
