#!/usr/bin/env bash
# Crops every bundled sample to 16:9 and 1:1 and says where the crops went.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/facecrop}
out=demo-out
mkdir -p "$out"
for f in Samples/*; do
  stem=$(basename "${f%.*}")
  "$bin" --aspect 16:9 --margin 30% "$f" -o "$out/$stem-16x9.jpg"
  "$bin" --aspect 1:1 --margin 30% --size 512x512 "$f" -o "$out/$stem-square.jpg"
done
echo "demo: crops written to $(pwd)/$out/"
ls -1 "$out"
