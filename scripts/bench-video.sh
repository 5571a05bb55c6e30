#!/usr/bin/env bash
# best-frame speed: a 3-second 1080p clip at 30 fps (Samples/group.jpg, four public-domain faces, panned over
# with film grain so it decodes like camera footage, libx264), timed as whole processes, interleaved, medians:
#   ffmpeg -i clip -f null -                  decoding alone (FFmpeg's own threads)
#   facecrop stability clip                   decoding and registering every frame, no faces: best-frame's floor
#   facecrop best-frame clip --every-frame    all 90 frames: decode, registration, detection, scoring
#   facecrop best-frame clip                  the default 12 frames
# Usage: scripts/bench-video.sh [--bin PATH] [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/facecrop
runs=7
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    *) echo "usage: $0 [--bin PATH] [--runs N]" >&2; exit 64 ;;
  esac
done
mkdir -p .bench
clip=.bench/clip-1080p30.mp4
if [ ! -s "$clip" ]; then
  ffmpeg -nostdin -hide_banner -loglevel error -y -loop 1 -framerate 30 -t 3 -i Samples/group.jpg \
    -vf "scale=2400:1350,crop=1920:1080:'120+2*n':'100+sin(n/5)*40',noise=alls=3:allf=t,format=yuv420p" \
    -c:v libx264 -preset medium -crf 23 -g 30 -r 30 "$clip"
fi
echo "clip: $clip ($(stat -c %s "$clip") bytes, $(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=width,height,nb_read_packets -of csv=p=0 "$clip"))"

measure() { # appends "wall cpu" (seconds; cpu = user + system) of a command to file $1
  local file="$1"; shift
  /usr/bin/time -f "%e %U %S" -o .bench/video-time.txt "$@" >/dev/null 2>&1
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' .bench/video-time.txt >>"$file"
}
median() { # median of column $1
  awk -v c="$1" '{ print $c }' | sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f", m }'
}

: >.bench/video-decode.txt; : >.bench/video-floor.txt; : >.bench/video-every.txt; : >.bench/video-sampled.txt
for _ in $(seq "$runs"); do
  measure .bench/video-decode.txt ffmpeg -nostdin -hide_banner -loglevel error -i "$clip" -f null -
  measure .bench/video-floor.txt "$bin" stability "$clip"
  measure .bench/video-every.txt "$bin" best-frame "$clip" --every-frame
  measure .bench/video-sampled.txt "$bin" best-frame "$clip"
done
for name in decode floor every sampled; do
  eval "${name}_wall=\$(median 1 <.bench/video-$name.txt) ${name}_cpu=\$(median 2 <.bench/video-$name.txt)"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "medians of $runs runs             wall      cpu"
echo "decode only (ffmpeg -f null)      ${decode_wall} s    ${decode_cpu} s"
echo "facecrop stability (no faces)     ${floor_wall} s    ${floor_cpu} s    ratio to decode: wall $(ratio "$floor_wall" "$decode_wall")"
echo "best-frame --every-frame (90)     ${every_wall} s    ${every_cpu} s    ratio to decode: wall $(ratio "$every_wall" "$decode_wall"), cpu $(ratio "$every_cpu" "$decode_cpu") (target <= 2)"
echo "best-frame (12 frames)            ${sampled_wall} s    ${sampled_cpu} s    (target < 0.5 s)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
