#!/usr/bin/env bash
# Memory under load: peak RSS of `facecrop batch` over 100 and over 1000 small distinct inputs (it must not
# grow with the number of inputs), and of one 100-megapixel input (read in streaming passes).
# Usage: scripts/bench-memory.sh [--bin PATH] [--jobs N]
# Needs: vips (Debian libvips-tools), GNU time (Debian time), python3. Inputs are generated in .bench/memory/.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/facecrop
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "usage: $0 [--bin PATH] [--jobs N]" >&2; exit 64 ;;
  esac
done
[ -x "$bin" ] || { echo "bench-memory: build first (make build): $bin not found" >&2; exit 1; }
work=$PWD/.bench/memory
mkdir -p "$work"

# 1000 distinct 640x360 JPEGs with a face: one encoded image, each copy with its index in a JPEG comment
# segment (distinct bytes, so batch hashes and processes each one; the same decode work for all).
if [ "$(ls "$work/in1000" 2>/dev/null | wc -l)" -ne 1000 ]; then
  rm -rf "$work/in100" "$work/in1000"
  vips thumbnail Samples/group.jpg "$work/small.jpg[Q=85,strip]" 640 --height 360 --crop centre
  python3 - "$work" <<'PY'
import os, struct, sys
work = sys.argv[1]
data = open(os.path.join(work, "small.jpg"), "rb").read()
for n in (100, 1000):
    folder = os.path.join(work, "in%d" % n)
    os.makedirs(folder)
    for i in range(n):
        comment = b"facecrop bench-memory %06d" % i
        segment = b"\xFF\xFE" + struct.pack(">H", len(comment) + 2) + comment
        with open(os.path.join(folder, "img%04d.jpg" % i), "wb") as f:
            f.write(data[:2] + segment + data[2:])
PY
fi

# A 100-megapixel JPEG (13334x7500): Samples/group.jpg enlarged.
big=$work/big-100mp.jpg
[ -s "$big" ] || vips resize Samples/group.jpg "$big[Q=85]" 5.5557 --kernel linear

peak() {  # peak RSS in MB of the command, which must succeed
  /usr/bin/time -f '%M' -o "$work/time.out" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
  awk '{ printf "%.0f", $1 / 1024 }' <(tail -n 1 "$work/time.out")
}
seconds() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$@"; }

echo "batch, 640x360 inputs, --size 320x180 --size 160x90, --jobs $jobs:"
for n in 100 1000; do
  rm -rf "$work/out$n"
  t0=$(date +%s.%N)
  mb=$(peak "$bin" batch "$work/in$n" --output-dir "$work/out$n" --size 320x180 --size 160x90 --jobs "$jobs" -q)
  t1=$(date +%s.%N)
  printf '  %5d inputs: peak %4s MB, %6s s\n' "$n" "$mb" "$(seconds "$t0" "$t1")"
  eval "mb$n=$mb"
done
# shellcheck disable=SC2154
awk -v a="$mb100" -v b="$mb1000" 'BEGIN { printf "  1000 vs 100 inputs: %+.0f MB (%.2fx)\n", b - a, b / a }'

echo "one 100-megapixel JPEG ($(vipsheader -f width "$big")x$(vipsheader -f height "$big"), $(( $(stat -c %s "$big") / 1048576 )) MB):"
printf '  --size 1920x1080:  peak %s MB\n' "$(peak "$bin" "$big" --size 1920x1080 -o "$work/big-out-1.jpg")"
printf '  --aspect 16:9 (full-size crop): peak %s MB\n' "$(peak "$bin" "$big" --aspect 16:9 -o "$work/big-out-2.jpg")"
