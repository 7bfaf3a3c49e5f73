#!/usr/bin/env bash
# Soak (issue 7): the differential test and the decoding fuzz with 100 times the default
# counts and a fresh seed — 200 000 sequences of 200 operations and 1 200 000 documents —
# built in release mode in its own build folder (.build/soak).
#
# Usage (from the repository root): Scripts/soak.sh
# Environment (each optional):
#   TRAITKIT_SEED             base seed, decimal or 0x-hex (default: fresh from /dev/urandom)
#   TRAITKIT_SOAK_SEQUENCES   differential sequences (default 200000)
#   TRAITKIT_SOAK_OPERATIONS  operations per sequence (default 200)
#   TRAITKIT_FUZZ_DOCUMENTS   decoding fuzz documents (default 1200000)
#   TRAITKIT_KNOWN_BUGS       comma-separated fixed bug classes to steer around, to compare
#                             with an engine from before their fixes (default: none)
# A failure prints the seed and a shrunk repro; rerun with TRAITKIT_SEED to reproduce it.
set -euo pipefail
cd "$(dirname "$0")/.."

seed="${TRAITKIT_SEED:-$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')}"
export TRAITKIT_SEED="$seed"
export TRAITKIT_SOAK_SEQUENCES="${TRAITKIT_SOAK_SEQUENCES:-200000}"
export TRAITKIT_SOAK_OPERATIONS="${TRAITKIT_SOAK_OPERATIONS:-200}"
export TRAITKIT_FUZZ_DOCUMENTS="${TRAITKIT_FUZZ_DOCUMENTS:-1200000}"
echo "soak.sh: TRAITKIT_SEED=$TRAITKIT_SEED, $TRAITKIT_SOAK_SEQUENCES sequences of" \
  "$TRAITKIT_SOAK_OPERATIONS operations, $TRAITKIT_FUZZ_DOCUMENTS documents"

scratch=.build/soak
# Testing enabled, as `swift test -c release` builds: the harness tests import the benchmark
# module `@testable`.
swift build -c release --build-tests --scratch-path "$scratch" -Xswiftc -enable-testing
start=$SECONDS
swift test -c release --skip-build --scratch-path "$scratch" \
  --filter 'DifferentialTests/randomSequences|DecodingFuzzTests/'
echo "soak.sh: passed in $((SECONDS - start)) s (TRAITKIT_SEED=$TRAITKIT_SEED)"
