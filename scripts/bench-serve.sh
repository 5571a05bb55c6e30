#!/usr/bin/env bash
# facecrop-serve next to thumbor (with its OpenCV face detection on), on loopback, with wrk: throughput and
# p50/p99 latency for 1920x1080 face crops of a 12 MP photo and 256x256 avatars of a 1 MP photo, at 2 and 32
# connections, and each server's peak memory (VmHWM, summed over its processes) after the 32-connection runs.
# thumbor runs from a virtual environment this script creates (PyPI: thumbor 7.8.0, opencv-python-headless 4.x),
# without storage or result storage, so neither server caches anything; both run one process per core.
# Not part of make test. Prints a markdown table.
# Usage: scripts/bench-serve.sh [--bin PATH] [--duration SECONDS] [--rt]   (--rt: servers and wrk under chrt -f 50)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/facecrop-serve
duration=30
rt=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --rt) rt=(chrt -f 50); shift ;;
    *) echo "bench-serve: unknown argument '$1'" >&2; exit 64 ;;
  esac
done
[ -x "$bin" ] || { echo "bench-serve: $bin is missing (swift build -c release --product facecrop-serve)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "bench-serve: wrk is missing (scripts/setup.sh installs it)" >&2; exit 1; }
cores=$(nproc)
venv=${THUMBOR_VENV:-${TMPDIR:-/tmp}/facecrop-thumbor-venv}
if [ ! -x "$venv/bin/thumbor" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "thumbor==7.8.0" "opencv-python-headless<5"  # OpenCV 5 has no CascadeClassifier
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/facecrop-bench-serve.XXXXXX")
pids=()
cleanup() {
  # thumbor's worker processes first: they outlive their parent otherwise.
  for p in "${pids[@]}"; do pkill -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# The photos: Samples/group.jpg (four faces, 1600x900) enlarged to 12 MP and shrunk to 1 MP.
vips resize Samples/group.jpg "$tmp/photo-12mp.jpg[Q=90]" 2.887 >/dev/null   # 4619x2598
vips resize Samples/group.jpg "$tmp/photo-1mp.jpg[Q=90]" 0.834 >/dev/null    # 1334x750

fport=$(free_port)
"${rt[@]}" "$bin" --root "$tmp" --port "$fport" --allow-unsigned --slots "$cores" --queue 64 --log-level warning &
fpid=$!
pids+=("$fpid")

tport=$(free_port)
cat > "$tmp/thumbor.conf" <<CONF
LOADER = 'thumbor.loaders.file_loader'
FILE_LOADER_ROOT_PATH = '$tmp'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
DETECTORS = ['thumbor.detectors.face_detector']
QUALITY = 80
CONF
"${rt[@]}" "$venv/bin/thumbor" -c "$tmp/thumbor.conf" -p "$tport" --processes "$cores" -l warning > "$tmp/thumbor.log" 2>&1 &
tpid=$!
pids+=("$tpid")

for url in "http://127.0.0.1:$fport/health" "http://127.0.0.1:$tport/healthcheck"; do
  for _ in $(seq 1 300); do curl -sf "$url" >/dev/null && break; sleep 0.1; done
done

declare -A urls=(
  [facecrop-hero]="http://127.0.0.1:$fport/_/rs:fill:1920:1080/plain/local:///photo-12mp.jpg@jpg"
  [facecrop-avatar]="http://127.0.0.1:$fport/_/rs:fill:256:256/plain/local:///photo-1mp.jpg@jpg"
  [thumbor-hero]="http://127.0.0.1:$tport/unsafe/1920x1080/smart/photo-12mp.jpg"
  [thumbor-avatar]="http://127.0.0.1:$tport/unsafe/256x256/smart/photo-1mp.jpg"
)
# Every URL answers 200 with an image of the asked size before anything is measured (and warms both up).
for name in "${!urls[@]}"; do
  curl -sf -o "$tmp/check.jpg" "${urls[$name]}" || { echo "bench-serve: $name failed: ${urls[$name]}" >&2; tail "$tmp/thumbor.log" >&2; exit 1; }
  size=$(vipsheader -f width "$tmp/check.jpg")x$(vipsheader -f height "$tmp/check.jpg")
  case $name in *hero) want=1920x1080 ;; *) want=256x256 ;; esac
  [ "$size" = "$want" ] || { echo "bench-serve: $name gave $size, not $want" >&2; exit 1; }
done

# VmHWM (peak resident memory) of a process and its children, in MB.
peak_mb() {
  local total=0 p
  for p in $1 $(pgrep -P "$1" || true); do
    total=$((total + $(awk '/VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)))
  done
  echo $((total / 1024))
}

to_ms() {  # wrk's "123.45ms" / "1.23s" / "456.00us" to milliseconds
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.0f", n }'
}

# Waits until a server has nothing left from the previous run (wrk stops, requests it sent may still be queued).
drain() {
  if [ "$1" = facecrop ]; then
    for _ in $(seq 1 1200); do
      curl -sf "http://127.0.0.1:$fport/health" | grep -q '"running":0,"waiting":0' && return
      sleep 0.1
    done
  else
    # thumbor's processes answer in order: a request to each, after the backlog.
    for _ in $(seq 1 "$cores"); do curl -s -m 300 -o /dev/null "http://127.0.0.1:$tport/healthcheck"; done
    sleep 2
  fi
}

echo "| server | case | connections | requests/s | p50 ms | p99 ms | errors |"
echo "|---|---|---|---|---|---|---|"
for case in hero avatar; do
  for server in facecrop thumbor; do
    for c in 2 32; do
      out=$("${rt[@]}" wrk -t 2 -c "$c" -d "${duration}s" --timeout 30s --latency "${urls[$server-$case]}")
      rps=$(awk '/Requests\/sec/ {printf "%.1f", $2}' <<<"$out")
      p50=$(to_ms "$(awk '$1 == "50%" {print $2}' <<<"$out")")
      p99=$(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")
      errors=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | tr '\n' ' ')
      echo "| $server | $case | $c | $rps | $p50 | $p99 | ${errors:-0} |"
      drain "$server"
    done
  done
done
echo
echo "Peak memory after the runs (VmHWM, MB): facecrop-serve $(peak_mb "$fpid"), thumbor $(peak_mb "$tpid") (all processes)"
