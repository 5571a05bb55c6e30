#!/usr/bin/env bash
# Batch throughput: a folder of 12-megapixel JPEGs, three sizes each, facecrop batch (default --jobs) next
# to vipsthumbnail (attention crop, one size per call, three calls per image) run with the same
# parallelism through xargs -P, in the same run. Then an unchanged second facecrop run, and peak memory.
# Usage: scripts/bench-batch.sh [--bin PATH] [--images N] [--jobs N] [--detector NAME]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/facecrop
detector=()
images=100
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --detector) detector=(--detector "$2"); shift 2 ;;
    --images) images=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "usage: $0 [--bin PATH] [--images N] [--jobs N] [--detector NAME]" >&2; exit 64 ;;
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
sizes=(1920x1080 1280x720 640x360)

rm -rf "$work/out-facecrop" "$work/out-vips"; mkdir -p "$work/out-vips"
sync
t0=$(now)
/usr/bin/time -f '%M' -o "$work/facecrop.mem" "$bin" batch "$src" "${detector[@]}" --output-dir "$work/out-facecrop" --jobs "$jobs" -q \
  --size 1920x1080 --size 1280x720 --size 640x360 --margin 200 >/dev/null
t1=$(now)
"$bin" batch "$src" "${detector[@]}" --output-dir "$work/out-facecrop" --jobs "$jobs" -q --size 1920x1080 --size 1280x720 --size 640x360 --margin 200 >/dev/null
t2=$(now)
ls "$src"/*.jpg | xargs -P "$jobs" -I{} sh -c '
  for s in 1920x1080 1280x720 640x360; do
    vipsthumbnail "$1" -s "$s" -m attention -o "$2/%s-$s.jpg" || exit 1
  done' _ {} "$work/out-vips"
t3=$(now)

python3 - "$images" "$t0" "$t1" "$t2" "$t3" "$(cat "$work/facecrop.mem")" "$jobs" <<'PY'
import sys
n, t0, t1, t2, t3, mem, jobs = int(sys.argv[1]), *map(float, sys.argv[2:6]), int(sys.argv[6]), sys.argv[7]
first, second, vips = t1 - t0, t2 - t1, t3 - t2
print(f"{n} images of 12 MP, 3 sizes each (1920x1080, 1280x720, 640x360), {jobs} jobs")
print(f"facecrop batch       {first:7.2f} s  {n / first:6.2f} images/s  peak {mem / 1024:.0f} MB")
print(f"vipsthumbnail x3     {vips:7.2f} s  {n / vips:6.2f} images/s  (xargs -P {jobs})")
print(f"throughput ratio facecrop/vipsthumbnail: {vips / first:.2f} (target >= 1.0)")
print(f"unchanged second run: {second:.2f} s = {100 * second / first:.1f} % of the first (target < 5 %)")
PY
