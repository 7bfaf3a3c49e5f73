#!/usr/bin/env bash
# Leak check (issue 7): runs the leak churn — 100 000 registrations over 10 000 nodes, with
# owners and targets dying — as a plain executable under valgrind's memcheck, which must report
# no definitely lost byte and no memory error. The same churn runs in `swift test` as
# LeakChurnTests, which checks that `statistics` counts no live registration afterwards.
#
# Usage (from the repository root): Scripts/leaks.sh
# Environment: TRAITKIT_CHURN_REGISTRATIONS (default 100000).
#
# Swift Testing's runner does not run under valgrind, so the churn is Scripts/LeakChurn/main.swift,
# compiled with swiftc against the TraitKit module that `swift build` makes (in its own build
# folder, .build/leaks). The Swift runtime keeps some blocks "possibly lost" or "still
# reachable" on purpose; only definitely lost blocks count as leaks.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
  echo "leaks.sh: installing valgrind" >&2
  apt-get install -y valgrind >/dev/null
fi

scratch=.build/leaks
swift build --target TraitKit --scratch-path "$scratch"
bin="$(swift build --target TraitKit --scratch-path "$scratch" --show-bin-path)"
swiftc -swift-version 6 -I "$bin/Modules" -I Sources/CTraitKitShims Scripts/LeakChurn/main.swift \
  "$bin"/TraitKit.build/*.swift.o -o "$scratch/leak-churn"

log="$scratch/memcheck.log"
status=0
valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite \
  --error-exitcode=1 --log-file="$log" "$scratch/leak-churn" || status=$?
grep -E "(definitely|indirectly|possibly) lost:|still reachable:|ERROR SUMMARY" "$log" \
  | sed 's/^==[0-9]*== *//'
if [ "$status" -ne 0 ]; then
  echo "leaks.sh: FAILED (exit $status); valgrind's report: $log" >&2
  exit "$status"
fi
grep -q "definitely lost: 0 bytes" "$log" || grep -q "All heap blocks were freed" "$log" || {
  echo "leaks.sh: FAILED: memcheck reports definitely lost bytes; see $log" >&2
  exit 1
}
echo "leaks.sh: no definitely lost bytes, no memory errors"
