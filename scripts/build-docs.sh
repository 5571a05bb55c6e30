#!/usr/bin/env bash
# Builds the FaceCrop library's DocC documentation (Sources/FaceCrop/FaceCrop.docc and the doc comments of its
# public API) into .build/docs/FaceCrop.doccarchive, with the toolchain's own docc: no plugin, nothing added to
# the package. Warnings (a broken ``symbol`` link, an unknown topic) fail the build.
#
# Usage: scripts/build-docs.sh [--preview]   (make docs; --preview serves it on http://localhost:8080)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
DOCC=${DOCC:-$(dirname "$(readlink -f "$(command -v "$SWIFT")")")/docc}
command -v "$DOCC" >/dev/null || DOCC=docc

# The symbol graphs of the debug build (built first if needed); only FaceCrop's go into its archive.
# (SwiftPM 6.3 also tries the C targets and fails on them: "-std=c++17 not allowed with C"; only FaceCrop's
# graph is needed, so its presence decides.)
$SWIFT build --target FaceCrop
graphs=$($SWIFT build --show-bin-path)/../symbolgraph
rm -rf "$graphs"
$SWIFT package dump-symbol-graph --minimum-access-level public >/dev/null 2>&1 || true
[ -s "$graphs/FaceCrop.symbols.json" ] || { echo "build-docs: no symbol graph for FaceCrop in $graphs" >&2; exit 1; }
out=.build/docs
rm -rf "$out/symbol-graphs" "$out/FaceCrop.doccarchive"
mkdir -p "$out/symbol-graphs"
cp "$graphs"/FaceCrop.symbols.json "$out/symbol-graphs/"
cp "$graphs"/FaceCrop@*.symbols.json "$out/symbol-graphs/" 2>/dev/null || true

mode=convert
[ "${1:-}" = "--preview" ] && mode=preview
"$DOCC" "$mode" Sources/FaceCrop/FaceCrop.docc --additional-symbol-graph-dir "$out/symbol-graphs" \
  --fallback-display-name FaceCrop --fallback-bundle-identifier facecrop.FaceCrop \
  --output-path "$out/FaceCrop.doccarchive" --warnings-as-errors
[ "$mode" = convert ] && echo "build-docs: $out/FaceCrop.doccarchive (open with: $DOCC preview or any static server)"
