// A software prefetch, which Swift cannot express: `__builtin_prefetch` compiles to one
// instruction (`prefetcht0` on x86-64, `prfm pldl1keep` on arm64) that never faults, whatever the
// address.
//
// Header only, like the others (see `CTraitKitSharedDefinition.h`).

#ifndef CTRAITKIT_PREFETCH_H
#define CTRAITKIT_PREFETCH_H

/// Asks the processor to start loading the cache line at `address` into every cache level, for a
/// read; a hint, with no effect on the program's meaning.
static inline void ctraitkit_prefetch(const void *_Nonnull address) {
  __builtin_prefetch(address, 0, 3);
}

#endif
