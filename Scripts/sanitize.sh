#!/usr/bin/env bash
# Sanitizers (issue 7): the whole test suite under ThreadSanitizer, then under
# AddressSanitizer (with LeakSanitizer), then under AddressSanitizer in a release build, each in
# its own build folder (.build/sanitize-thread, .build/sanitize-address,
# .build/sanitize-address-release). Any sanitizer report fails the run. The release run matters:
# the engine hands out references it does not retain where the optimizer removes the retains a
# debug build keeps, so some lifetime mistakes only show optimized.
#
# Usage (from the repository root): Scripts/sanitize.sh [thread|address|address-release]...
# Environment: the run sizes of the reliability suites (TRAITKIT_SOAK_SEQUENCES, ...) pass
# through; the defaults are the fixed ones of `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(thread address address-release)
mkdir -p .build
# LeakSanitizer runs with AddressSanitizer. It must not report the toolchain's XCTest harness,
# which keeps its suite objects. Every other leak, from any test, fails the run: a test that
# makes a retain cycle (a handler that captures an ancestor of its node, or stores the observed
# node) must break it rather than be suppressed here. Nor Foundation's `Process.run()`, which
# the deprecation tests call to run the compiler: it leaves a weak-reference side table of 32
# bytes behind for each process it starts, in code of the toolchain's.
suppressions=.build/sanitize-lsan-suppressions.txt
cat >"$suppressions" <<'LIST'
leak:libXCTest.so
leak:Foundation7ProcessC3run
LIST
# ThreadSanitizer must not report the trait registry's state, which Synchronization's Mutex
# guards: when the lock is contended, Mutex waits in the kernel (a priority-inheritance futex)
# in the toolchain's uninstrumented library, so ThreadSanitizer sees no synchronization between
# the two holders and reports a race between accesses that the lock orders.
tsan_suppressions=.build/sanitize-tsan-suppressions.txt
cat >"$tsan_suppressions" <<'LIST'
race:_RegistryState
LIST
# Report every finding, and fail on it even where a sanitizer would only warn.
tsan_defaults="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/$tsan_suppressions"
export TSAN_OPTIONS="${TSAN_OPTIONS:-$tsan_defaults}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1 detect_leaks=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/$suppressions print_suppressions=0}"

failed=()
for sanitizer in "${sanitizers[@]}"; do
  scratch=".build/sanitize-$sanitizer"
  start=$SECONDS
  echo "sanitize.sh: building with --sanitize=$sanitizer in $scratch"
  configuration=debug
  testable=()
  # A release build is not testable unless asked, and the harness tests import the benchmark
  # module `@testable` (`swift test -c release` asks for it too).
  case "$sanitizer" in *-release) configuration=release testable=(-Xswiftc -enable-testing) ;; esac
  swift build --build-tests -c "$configuration" --sanitize="${sanitizer%-release}" \
    --scratch-path "$scratch" ${testable[@]+"${testable[@]}"}
  log="$scratch/test.log"
  status=0
  swift test --skip-build -c "$configuration" --sanitize="${sanitizer%-release}" \
    --scratch-path "$scratch" >"$log" 2>&1 \
    || status=$?
  grep -E "Test run with|Executed [0-9]+ tests|SUMMARY: |WARNING: |ERROR: " "$log" || true
  if grep -qE "(ThreadSanitizer|AddressSanitizer|LeakSanitizer)" "$log"; then
    echo "sanitize.sh: $sanitizer: sanitizer reports found; see $log" >&2
    failed+=("$sanitizer")
  elif [ "$status" -ne 0 ]; then
    grep -E "✘ Test .* recorded an issue" "$log" | head -20 || true
    echo "sanitize.sh: $sanitizer: no sanitizer report, but tests failed (exit $status);" \
      "see $log" >&2
    failed+=("$sanitizer")
  else
    echo "sanitize.sh: $sanitizer: clean in $((SECONDS - start)) s"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "sanitize.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "sanitize.sh: every run clean"
