#!/usr/bin/env bash
# Batch throughput: a folder of 12-megapixel JPEGs, three sizes each, facecrop batch (default --jobs) next
# to vipsthumbnail (attention crop, one size per call, three calls per image) run with the same
# parallelism through xargs -P, in the same run. Then an unchanged second facecrop run, and peak memory.
# --formats jpg,webp[,avif]: a site build instead, 16:9 at widths 1600, 800 and 400 in each format (facecrop
# --no-enlarge, one run; vipsthumbnail one call per file, same qualities: jpg 80, webp 80, avif 50).
# Usage: scripts/bench-batch.sh [--bin PATH] [--images N] [--jobs N] [--detector NAME] [--formats LIST]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/facecrop
detector=()
images=100
jobs=$(nproc)
formats=
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --detector) detector=(--detector "$2"); shift 2 ;;
    --images) images=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    *) echo "usage: $0 [--bin PATH] [--images N] [--jobs N] [--detector NAME] [--formats LIST]" >&2; exit 64 ;;
  esac
done
[ -x "$bin" ] || { echo "bench-batch: build first (make build): $bin not found" >&2; exit 1; }

# The 12 MP source comes from scripts/bench.sh; distinct files are made by flipping and shifting it.
[ -f .bench/bench-4000x3000.jpg ] || scripts/bench.sh --bin "$bin" --runs 1 >/dev/null
work=$PWD/.bench/batch
src=$work/in
if [ "$(ls "$src" 2>/dev/null | wc -l)" -ne "$images" ]; then
  rm -rf "$src"; mkdir -p "$src"
  echo "bench-batch: making $images distinct 12 MP JPEGs in $src"
  vips flip .bench/bench-4000x3000.jpg "$work/flipped.v" horizontal
  for i in $(seq 1 "$images"); do
    base=.bench/bench-4000x3000.jpg; [ $((i % 2)) -eq 0 ] && base=$work/flipped.v
    vips embed "$base" "$src/img$(printf %03d "$i").jpg[Q=$((85 + i % 10))]" $(( (i * 37) % 100 )) 0 4000 3000 --extend mirror
  done
  rm -f "$work/flipped.v"
fi

now() { date +%s.%N; }
if [ -z "$formats" ]; then
  outputs=(--size 1920x1080 --size 1280x720 --size 640x360 --margin 200)
  shape="3 sizes each (1920x1080, 1280x720, 640x360)"
  # vipsthumbnail: one call per size.
  thumbs='for s in 1920x1080 1280x720 640x360; do vipsthumbnail "$1" -s "$s" -m attention -o "$2/%s-$s.jpg" || exit 1; done'
else
  outputs=(--aspect 16:9 --width 1600 --width 800 --width 400 --no-enlarge --margin 200)
  for f in ${formats//,/ }; do outputs+=(--format "$f"); done
  shape="16:9 at 3 widths (1600, 800, 400) in ${formats//,/, }"
  thumbs='for f in '"${formats//,/ }"'; do q=80; [ "$f" = avif ] && q=50
    for s in 1600x900 800x450 400x225; do vipsthumbnail "$1" -s "$s" -m attention -o "$2/%s-$s.$f[Q=$q]" || exit 1; done; done'
fi

rm -rf "$work/out-facecrop" "$work/out-vips"; mkdir -p "$work/out-vips"
sync
t0=$(now)
/usr/bin/time -f '%M' -o "$work/facecrop.mem" "$bin" batch "$src" "${detector[@]}" --output-dir "$work/out-facecrop" --jobs "$jobs" -q \
  "${outputs[@]}" >/dev/null
t1=$(now)
"$bin" batch "$src" "${detector[@]}" --output-dir "$work/out-facecrop" --jobs "$jobs" -q "${outputs[@]}" >/dev/null
t2=$(now)
ls "$src"/*.jpg | xargs -P "$jobs" -I{} sh -c "$thumbs" _ {} "$work/out-vips"
t3=$(now)
written=$(find "$work/out-facecrop" -type f -not -path '*/.facecrop/*' | wc -l)
made=$(find "$work/out-vips" -type f | wc -l)

python3 - "$images" "$t0" "$t1" "$t2" "$t3" "$(cat "$work/facecrop.mem")" "$jobs" "$shape" "$written" "$made" <<'PY'
import sys
n, t0, t1, t2, t3, mem, jobs, shape, written, made = int(sys.argv[1]), *map(float, sys.argv[2:6]), int(sys.argv[6]), sys.argv[7], sys.argv[8], sys.argv[9], sys.argv[10]
first, second, vips = t1 - t0, t2 - t1, t3 - t2
print(f"{n} images of 12 MP, {shape}, {jobs} jobs")
print(f"facecrop batch       {first:7.2f} s  {n / first:6.2f} images/s  peak {mem / 1024:.0f} MB  ({written} files)")
print(f"vipsthumbnail        {vips:7.2f} s  {n / vips:6.2f} images/s  (one call per file, xargs -P {jobs}; {made} files)")
print(f"throughput ratio facecrop/vipsthumbnail: {vips / first:.2f}")
print(f"unchanged second run: {second:.2f} s = {100 * second / first:.1f} % of the first")
PY
