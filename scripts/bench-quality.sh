#!/usr/bin/env bash
# Benchmark of capture quality (measures, expression, 68 landmarks) and of `facecrop rank`:
#   1. milliseconds of quality per face: `facecrop detect --quality --json` on each image, timings.quality
#      summed over all images divided by the faces found;
#   2. `facecrop rank` throughput on the folder (median of N runs), next to `facecrop batch --dry-run`
#      (decode + detection + planning, no quality) on the same folder in the same run, as a ratio.
# Images: the repository's golden inputs and samples (public domain, 27 images), or --images DIR.
#
# Usage: scripts/bench-quality.sh [--bin PATH] [--images DIR] [--runs N]
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="$repo/.build/release/facecrop"
images=""
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --images) images="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-quality: unknown argument $1 (try --help)" >&2; exit 64 ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) echo "bench-quality: --runs needs a positive integer" >&2; exit 64 ;; esac
[ -x "$bin" ] || { echo "bench-quality: facecrop binary not found at $bin" >&2; exit 1; }

if [ -z "$images" ]; then
  images="$repo/.bench/rank"
  rm -rf "$images"; mkdir -p "$images"
  for f in "$repo"/Golden/*/input.* "$repo"/Samples/*; do cp "$f" "$images/$(basename "$(dirname "$f")")-$(basename "$f")"; done
fi
count=$(find "$images" -maxdepth 1 -type f | wc -l)

# 1. Quality per face. A first run warms the page cache and the landmark model's cache.
"$bin" detect --quality "$(find "$images" -maxdepth 1 -type f | head -1)" >/dev/null
python3 - "$bin" "$images" <<'PY'
import json, os, subprocess, sys
binary, folder = sys.argv[1], sys.argv[2]
ms = faces = 0
for name in sorted(os.listdir(folder)):
    r = subprocess.run([binary, "detect", "--quality", "--json", os.path.join(folder, name)], capture_output=True, text=True)
    if r.returncode != 0:
        continue
    report = json.loads(r.stdout)
    ms += report["timings"]["quality"]
    faces += len(report["faces"])
print(f"quality: {faces} faces, {ms / max(faces, 1):.1f} ms per face (measures + expression + landmarks)")
PY

# 2. rank throughput next to detection alone, interleaved.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { local s; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN {printf "%.3f\n", (b - a) / 1e9}'; }
rank_times=(); detect_times=()
for _ in $(seq "$runs"); do
  detect_times+=("$(seconds "$bin" batch --dry-run --output-dir /tmp "$images")")
  rank_times+=("$(seconds "$bin" rank --json "$images")")
done
r=$(printf '%s\n' "${rank_times[@]}" | median); d=$(printf '%s\n' "${detect_times[@]}" | median)
awk -v n="$count" -v r="$r" -v d="$d" 'BEGIN {
  printf "rank: %d images in %.2f s (%.1f images/s); detection alone (batch --dry-run): %.2f s; rank/detection %.2fx\n", n, r, n / r, d, r / d }'
