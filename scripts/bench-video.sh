#!/usr/bin/env bash
# best-frame speed and memory on two 3-second 1080p clips at 30 fps made from Samples/group.jpg (four
# public-domain faces) with a moving crop, as phone footage: H.264 with per-frame grain (decoding heavy), and
# HEVC with the same grain (libx265, tagged hvc1 as phones write it). Per clip, timed as whole processes, interleaved, medians:
#   ffmpeg -i clip -f null -                  decoding alone (FFmpeg's own threads), measured in the same run
#   facecrop stability clip                   decoding and registering every frame, no faces: best-frame's floor
#   facecrop best-frame clip                  the default 12 frames
#   facecrop best-frame clip --every-frame    all 90 frames
# Ratios are wall time over decoding alone; peak memory is GNU time's maximum resident set size.
# Usage: scripts/bench-video.sh [--bin PATH] [--runs N] [--detector NAME]
# On a machine shared with other work, run it at real-time priority: sudo chrt -f 50 scripts/bench-video.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/facecrop
runs=5
detector=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --detector) detector=(--detector "$2"); shift 2 ;;
    *) echo "usage: $0 [--bin PATH] [--runs N] [--detector NAME]" >&2; exit 64 ;;
  esac
done
mkdir -p .bench
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
# The crop moves 40 px and 30 px back and forth, as a hand-held phone does; the grain changes every frame.
move="crop=2100:1181:'150+40*sin(t*3)':'85+30*cos(t*2)',scale=1920:1080"
h264=.bench/grain-h264-1080p30.mp4
hevc=.bench/hevc-1080p30.mov
[ -s "$h264" ] || ff -loop 1 -framerate 30 -t 3 -i Samples/group.jpg -vf "scale=2400:1350,$move,noise=alls=8:allf=t,format=yuv420p" \
  -c:v libx264 -preset medium -crf 23 -g 30 -r 30 "$h264"
[ -s "$hevc" ] || ff -loop 1 -framerate 30 -t 3 -i Samples/group.jpg -vf "scale=2400:1350,$move,noise=alls=8:allf=t,format=yuv420p" \
  -c:v libx265 -preset fast -crf 23 -tag:v hvc1 -x265-params log-level=error -r 30 "$hevc"

measure() { # appends "wall cpu peakMB" of a command to file $1
  local file="$1"; shift
  /usr/bin/time -f "%e %U %S %M" -o .bench/video-time.txt "$@" >/dev/null 2>&1
  awk '{ printf "%s %.2f %.0f\n", $1, $2 + $3, $4 / 1024 }' .bench/video-time.txt >>"$file"
}
median() { # median of column $1
  awk -v c="$1" '{ print $c }' | sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f", m }'
}
maximum() { awk -v c="$1" 'BEGIN { m = 0 } $c > m { m = $c } END { printf "%.0f", m }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "facecrop: $bin ${detector[*]:-(default detector)}; $runs runs per line, interleaved"
for clip in "$h264" "$hevc"; do
  echo "clip: $clip ($(stat -c %s "$clip") bytes, $(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=codec_name,width,height,nb_read_packets -of csv=p=0 "$clip"))"
  for name in decode floor sampled every; do : >".bench/video-$name.txt"; done
  for _ in $(seq "$runs"); do
    measure .bench/video-decode.txt ffmpeg -nostdin -hide_banner -loglevel error -i "$clip" -f null -
    measure .bench/video-floor.txt "$bin" stability "$clip"
    measure .bench/video-sampled.txt "$bin" best-frame "$clip" "${detector[@]}" -o .bench/video-best.jpg
    measure .bench/video-every.txt "$bin" best-frame "$clip" --every-frame "${detector[@]}" -o .bench/video-best.jpg
  done
  decode=$(median 1 <.bench/video-decode.txt)
  printf "  %-34s %8s %8s %10s %10s\n" "medians" "wall" "cpu" "÷ decode" "peak MB"
  for name in decode floor sampled every; do
    case $name in
      decode) label="decode only (ffmpeg -f null)" ;;
      floor) label="facecrop stability (no faces)" ;;
      sampled) label="best-frame (12 frames) -o" ;;
      every) label="best-frame --every-frame -o" ;;
    esac
    wall=$(median 1 <".bench/video-$name.txt")
    printf "  %-34s %7ss %7ss %9sx %10s\n" "$label" "$wall" "$(median 2 <".bench/video-$name.txt")" "$(ratio "$wall" "$decode")" \
      "$(maximum 3 <".bench/video-$name.txt")"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
