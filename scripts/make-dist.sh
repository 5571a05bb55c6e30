#!/usr/bin/env bash
# Generates what `make install` and `make deb` install beside the binary, into .build/dist/: the man page
# swift-argument-parser's manual generator writes from the command's own help, and the bash, zsh and fish
# completion scripts the binary prints (--generate-completion-script). The manual is dated by the last commit,
# so the same sources give the same files. Usage: scripts/make-dist.sh [BINARY] [OUTPUT-FOLDER]
#
# The generator is the tool behind the package's `swift package generate-manual` plugin, built and run directly:
# the plugin first rebuilds every product in release mode without --static-swift-stdlib, which recompiles all
# of facecrop's Swift code (5 min on 2 cores), and the next static build recompiles it back. Built with the
# same flags as `make build`, the generator only adds its own two small modules.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/facecrop}
out=${2:-.build/dist}
swift=${SWIFT:-swift}
[ -x "$bin" ] || { echo "make-dist: '$bin' is not built (make build)" >&2; exit 1; }

rm -rf "$out.tmp"
mkdir -p "$out.tmp/man1" "$out.tmp/completions"
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
$swift build -c release --static-swift-stdlib --product generate-manual >"$out.tmp/build.log" 2>&1 \
  || { cat "$out.tmp/build.log" >&2; exit 1; }
rm "$out.tmp/build.log"
"$(dirname "$bin")/generate-manual" "$bin" --date "$date" --output-directory "$out.tmp/man1"

"$bin" --generate-completion-script bash >"$out.tmp/completions/facecrop.bash"
"$bin" --generate-completion-script zsh >"$out.tmp/completions/_facecrop"
"$bin" --generate-completion-script fish >"$out.tmp/completions/facecrop.fish"
for f in "$out.tmp"/man1/* "$out.tmp"/completions/*; do
  [ -s "$f" ] || { echo "make-dist: $f is empty" >&2; exit 1; }
done
rm -rf "$out"
mv "$out.tmp" "$out"
echo "make-dist: man page and completions in $out"
