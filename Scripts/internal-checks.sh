#!/usr/bin/env bash
# Runs the test suite with TraitKit's internal invariant checks compiled in
# (-DTRAITKIT_INTERNAL_CHECKS): every update pass then verifies the whole graph — parent and
# child links, node and registration counts, subtree summaries, registration tables.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
swift test -Xswiftc -DTRAITKIT_INTERNAL_CHECKS --build-path .build/internal-checks "$@"
echo "internal-checks.sh: passed in $((SECONDS - start)) s"
