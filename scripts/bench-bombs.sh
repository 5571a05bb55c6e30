#!/usr/bin/env bash
# Bombs: inputs whose decoders hold the whole frame (progressive JPEG, interlaced PNG, GIF), at the decode
# memory limit and far over it, outputs too large for their format, an endless --inputs list, and a contact
# sheet of 900 frames: peak memory (GNU time's maximum RSS), wall time and outcome of one facecrop run each,
# as the markdown table of docs/performance.md (docs/security.md says what the limits do).
# Usage: scripts/bench-bombs.sh [--bin PATH]
# Needs: vips (Debian libvips-tools), GNU time (Debian time), python3, ffmpeg. Inputs go to .bench/bombs/.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/facecrop
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    *) echo "usage: $0 [--bin PATH]" >&2; exit 64 ;;
  esac
done
[ -x "$bin" ] || { echo "bench-bombs: build first (make build): $bin not found" >&2; exit 1; }
bin=$(realpath "$bin")
work=$PWD/.bench/bombs
rm -rf "$work" && mkdir -p "$work/out"
python3 scripts/make-corpus.py "$work/corpus" >/dev/null
# Real images at the limit (256 MiB of decoder memory) and just over it, content from the portrait.
vips resize Samples/portrait.png "$work/p.v" 12
vips embed "$work/p.v" "$work/p44.v" 0 0 7680 5760 --extend mirror
vips jpegsave "$work/p44.v" "$work/progressive-7680x5760.jpg" --interlace --Q 80
vips embed "$work/p.v" "$work/p48.v" 0 0 8000 6000 --extend mirror
vips jpegsave "$work/p48.v" "$work/progressive-8000x6000.jpg" --interlace --Q 80
vips cast "$work/p44.v" "$work/p44-16.v" ushort
vips copy "$work/p44-16.v" "$work/p44-16c.v" --interpretation rgb16
vips pngsave "$work/p44-16c.v" "$work/interlaced-16bit-7680x5760.png" --interlace --compression 1
vips embed "$work/p.v" "$work/p33.v" 0 0 5760 5760 --extend mirror
vips gifsave "$work/p33.v" "$work/gif-5760x5760.gif"
ffmpeg -nostdin -loglevel error -f lavfi -i testsrc=size=64x48:rate=30 -t 30 -pix_fmt yuv420p "$work/tiny.mp4"

run() {  # run LABEL ARGS...: one table row
  local label=$1; shift
  local status=0
  ( cd "$work" && /usr/bin/time -f "%M %e" -o "$work/time.txt" "$bin" "$@" >"$work/stdout.txt" 2>"$work/stderr.txt" ) || status=$?
  kb=$(grep -Eo '^[0-9]+ [0-9.]+$' "$work/time.txt" | cut -d' ' -f1)
  seconds=$(grep -Eo '^[0-9]+ [0-9.]+$' "$work/time.txt" | cut -d' ' -f2)
  local outcome="exit $status"
  if [ -s "$work/stderr.txt" ]; then outcome="$outcome: $(head -c 160 "$work/stderr.txt" | head -1 | sed 's/|/\\|/g')"; fi
  printf '| %s | `facecrop %s` | %d MB | %s s | %s |\n' "$label" "$*" $((kb / 1024)) "$seconds" "$outcome"
}

echo "| input | command | peak memory | time | outcome |"
echo "|---|---|---|---|---|"
run "progressive JPEG declaring 16383x16383 (17 kB)" corpus/bomb-progressive-jpeg-16383.jpg -o out/a.jpg
run "interlaced 16-bit PNG declaring 16383x16383 (177 B)" corpus/bomb-interlaced-png-16383.png -o out/b.jpg
run "GIF with one 16383x16383 frame (46 kB)" corpus/bomb-gif-frame-16383.gif -o out/c.jpg
run "progressive JPEG 7680x5760 (at the limit)" progressive-7680x5760.jpg -o out/d.jpg
run "progressive JPEG 8000x6000 (over the limit)" progressive-8000x6000.jpg -o out/e.jpg
run "interlaced 16-bit PNG 7680x5760 (at the limit)" interlaced-16bit-7680x5760.png -o out/f.jpg
run "GIF 5760x5760 (at the limit)" gif-5760x5760.gif -o out/g.jpg
run "batch --jobs 2: the JPEG at the limit, the one over it, a small one" batch progressive-7680x5760.jpg progressive-8000x6000.jpg corpus/jpeg.jpg --output-dir out/batch --jobs 2 -q
run "output 65500x65500" corpus/jpeg.jpg -o out/h.jpg --width 65500 --aspect 1:1
run "--inputs /dev/zero" batch --inputs /dev/zero --output-dir out/z
run "30 s clip, 900 frames with a contact sheet" best-frame tiny.mp4 --frames 900 -o out/i.jpg --contact-sheet out/sheet.jpg
