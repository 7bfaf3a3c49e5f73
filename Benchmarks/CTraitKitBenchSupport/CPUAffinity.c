// Which CPU a thread runs on, and moving a thread off one, for `--contend`'s thread: Swift's
// Glibc module leaves out these GNU extensions.
#if defined(__linux__)
#define _GNU_SOURCE
#include <sched.h>
#endif

#include "CTraitKitBenchSupport.h"

#if defined(__linux__)

int tkb_current_cpu(void) { return sched_getcpu(); }

int tkb_leave_cpu(int cpu) {
  cpu_set_t others;
  CPU_ZERO(&others);
  // Every CPU the host has but `cpu`: the process's own mask may hold `cpu` alone (`taskset`).
  for (int other = 0; other < CPU_SETSIZE; other++) {
    if (other != cpu) CPU_SET(other, &others);
  }
  return sched_setaffinity(0, sizeof others, &others);
}

#else

int tkb_current_cpu(void) { return -1; }
int tkb_leave_cpu(int cpu) {
  (void)cpu;
  return -1;
}

#endif
