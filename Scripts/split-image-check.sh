#!/usr/bin/env bash
# Split-image check: builds TraitKit as a shared library linked -Bsymbolic, which keeps its own
# copy of the read path's process-wide words, as a Windows DLL or a library loaded RTLD_LOCAL
# does (see Sources/CTraitKitShims/CTraitKitReadGate.h), and a client, Scripts/SplitImageProbe,
# whose inlined reads then see those words as 0. The client must still read real values, plain
# and tracked, and writing a registered type's override must not run its witnesses.
#
# Usage (from the repository root): Scripts/split-image-check.sh
# Linux only (ELF's -Bsymbolic). Builds twice in release, in a temporary folder: with SwiftPM's
# default optimization, and with -cross-module-optimization, which copies every function not
# kept from it into the client (about 30 s on 2 cores). `.ci/run` runs it last.
set -euo pipefail
if [ "$(uname -s)" != Linux ]; then
  echo "split-image-check.sh: Linux only (it links with ELF's -Bsymbolic)" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/traitkit-split-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# TraitKit as it is, plus a dynamic library product.
mkdir -p "$work/TraitKit" "$work/Client/Sources/Probe"
cp -R "$root/Package.swift" "$root/Sources" "$root/Benchmarks" "$root/Tests" "$work/TraitKit/"
cat >>"$work/TraitKit/Package.swift" <<'EOF'

// Added by Scripts/split-image-check.sh: TraitKit as a shared library.
package.products.append(.library(name: "TraitKitShared", type: .dynamic, targets: ["TraitKit"]))
EOF

cp "$root"/Scripts/SplitImageProbe/*.swift "$work/Client/Sources/Probe/"
cat >"$work/Client/Package.swift" <<'EOF'
// swift-tools-version: 6.2
import PackageDescription

let package = Package(
  name: "SplitImageClient",
  dependencies: [.package(path: "../TraitKit")],
  targets: [
    .executableTarget(
      name: "Probe",
      dependencies: [.product(name: "TraitKitShared", package: "TraitKit")]
    )
  ]
)
EOF

start=$SECONDS
status=0
for optimization in "" "-cross-module-optimization"; do
  echo "== release, -Xlinker -Bsymbolic ${optimization:-(default optimization)}"
  extra=()
  [ -n "$optimization" ] && extra=(-Xswiftc "$optimization")
  swift build -c release --package-path "$work/Client" -Xlinker -Bsymbolic ${extra[@]+"${extra[@]}"} \
    >"$work/build.log" 2>&1 || {
    cat "$work/build.log"
    echo "split-image-check.sh: the build failed" >&2
    exit 1
  }
  "$work/Client/.build/release/Probe" || status=1
  rm -rf "$work/Client/.build"
done
if [ "$status" -ne 0 ]; then
  echo "split-image-check.sh: FAILED in $((SECONDS - start)) s" >&2
  exit 1
fi
echo "split-image-check.sh: passed in $((SECONDS - start)) s"
