#!/usr/bin/env bash
# Benchmark: whole-process wall time and peak RSS of
#   facecrop --aspect 16:9 --margin 200 --size 1920x1080 IN -o OUT.jpg
# next to
#   vipsthumbnail IN -s 1920x1080 -m attention -o OUT2.jpg
# on a generated 12-megapixel JPEG (4000x3000, Q90), interleaved in the same run, N runs each (median).
#
# Usage: scripts/bench.sh [--bin PATH] [--runs N] [--detector NAME] [--keep]
# Needs: vips + vipsthumbnail (Debian libvips-tools), GNU time (Debian time). The test image is built with the
# vips CLI from ../shared/testdata/public-domain/ (or Samples/portrait.png) and cached in .bench/.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="$repo/.build/release/facecrop"
runs=7
detector=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --bin=*) v="${1#--bin=}"; bin="$(cd "$(dirname "$v")" && pwd)/$(basename "$v")"; shift ;;
    --runs) runs="$2"; shift 2 ;;
    --runs=*) runs="${1#--runs=}"; shift ;;
    --detector) detector=(--detector "$2"); shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument $1 (try --help)" >&2; exit 64 ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) echo "bench: --runs needs a positive integer" >&2; exit 64 ;; esac

die() { echo "bench: $*" >&2; exit 1; }
[ -x "$bin" ] || die "facecrop binary not found at $bin (build with 'swift build -c release' or pass --bin)"
for t in vips vipsthumbnail vipsheader; do
  command -v "$t" >/dev/null || die "$t not found (Debian package libvips-tools; scripts/setup.sh installs it)"
done
[ -x /usr/bin/time ] && /usr/bin/time -f '%M' true >/dev/null 2>&1 \
  || die "GNU time not found at /usr/bin/time (Debian package time; scripts/setup.sh installs it)"

cache="$repo/.bench"
mkdir -p "$cache"
img="$cache/bench-4000x3000.jpg"

# ---------------------------------------------------------------- test image
make_image() {
  local pd tmp
  pd="$(cd "$repo/.." && pwd)/shared/testdata/public-domain"
  local -a srcs
  if [ -f "$pd/grace_hopper_512x512.jpg" ] && [ -f "$pd/astronaut.png" ] && [ -f "$pd/obama.jpg" ]; then
    srcs=("$pd/grace_hopper_512x512.jpg" "$pd/astronaut.png" "$pd/obama.jpg")
  elif [ -f "$repo/Samples/portrait.png" ]; then
    srcs=("$repo/Samples/portrait.png" "$repo/Samples/portrait.png" "$repo/Samples/portrait.png")
  else
    die "no source portraits: neither $pd nor $repo/Samples/portrait.png exists"
  fi
  echo "bench: generating $img from ${srcs[*]}" >&2
  tmp="$(mktemp -d "$cache/gen.XXXXXX")"
  (
    set -e
    cd "$tmp"
    # Background: fine colour noise (sensor-like texture) plus smooth large-scale blobs, so it compresses
    # like a photo rather than like a flat canvas.
    # Low-frequency field: 40x30 noise, upscaled in two steps with a blur in between (smooth, not blocky);
    # shared brightness plus a weaker per-channel tint.
    vips gaussnoise y.v 40 30 --sigma 40 --mean 115 --seed 7
    for s in 1 2 3; do
      vips gaussnoise "t$s.v" 40 30 --sigma 15 --mean 0 --seed "$((s + 10))"
      vips add y.v "t$s.v" "l$s.v"
      vips resize "l$s.v" "m$s.v" 10 --kernel linear
      vips gaussblur "m$s.v" "g$s.v" 4
      vips resize "g$s.v" "L$s.v" 10 --kernel linear
      vips gaussnoise "n$s.v" 4000 3000 --sigma 28 --mean 0 --seed "$s"
      vips add "n$s.v" "L$s.v" "b$s.v"
    done
    vips bandjoin "b1.v b2.v b3.v" b.v
    vips gaussblur b.v bb.v 1.1
    vips cast bb.v bc.v uchar
    vips copy bc.v bg.v --interpretation srgb
    # Three portraits, upscaled (faces roughly 400-600 px) and placed low in the frame so that a 16:9 crop
    # has to move off-centre to keep them.
    i=0
    for spec in "1150:150:1550" "1150:1430:1700" "1000:2850:1450"; do
      IFS=: read -r size x y <<<"$spec"
      src="${srcs[$i]}"
      vips colourspace "$src" "s$i.v" srgb
      vips extract_band "s$i.v" "e$i.v" 0 --n 3
      w="$(vipsheader -f width "e$i.v")"
      vips resize "e$i.v" "p$i.v" "$(awk -v s="$size" -v w="$w" 'BEGIN{printf "%.6f", s/w}')" --kernel lanczos3
      prev=$([ $i -eq 0 ] && echo bg.v || echo "c$((i - 1)).v")
      vips insert "$prev" "p$i.v" "c$i.v" "$x" "$y"
      i=$((i + 1))
    done
    vips jpegsave "c2.v" out.jpg --Q 90
  ) || { rm -rf "$tmp"; die "generating the test image failed"; }
  mv "$tmp/out.jpg" "$img"
  rm -rf "$tmp"
}

if [ ! -s "$img" ] || [ "$(vipsheader -f width "$img" 2>/dev/null)x$(vipsheader -f height "$img" 2>/dev/null)" != 4000x3000 ]; then
  make_image
fi
echo "input: $img, $(vipsheader -f width "$img")x$(vipsheader -f height "$img"), $(( $(stat -c %s "$img") / 1024 )) KB"

out1="$cache/out-facecrop.jpg"
out2="$cache/out-vipsthumbnail.jpg"
fc_cmd=("$bin" --aspect 16:9 --margin 200 --size 1920x1080 "${detector[@]}" "$img" -o "$out1")
# vipsthumbnail: -s WxH is a bounding box; -m attention shrinks and crops to fill it exactly. -o must be
# absolute: a relative -o is taken relative to the input image's folder.
vt_cmd=(vipsthumbnail "$img" -s 1920x1080 -m attention -o "$out2")

# run_one NAME CMD... -> appends "seconds kb" to $cache/NAME.times; fails loudly on a non-zero exit
run_one() {
  local name="$1"; shift
  local t0 t1 rc=0
  t0="$(date +%s.%N)"
  /usr/bin/time -f '%e %M' -o "$cache/time.out" "$@" >"$cache/$name.stdout" 2>"$cache/$name.stderr" || rc=$?
  t1="$(date +%s.%N)"
  if [ "$rc" -ne 0 ]; then
    echo "bench: $name exited with status $rc: $*" >&2
    sed 's/^/    /' "$cache/$name.stderr" >&2
    exit 1
  fi
  # GNU time writes "Command exited with non-zero status" lines too; the last line holds "%e %M"
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b-a}') $(tail -n 1 "$cache/time.out" | awk '{print $2}')" \
    >>"$cache/$name.times"
}

rm -f "$cache/facecrop.times" "$cache/vipsthumbnail.times" "$out1" "$out2"
# Warm-up (untimed): page cache, dynamic loader, model file.
run_one facecrop "${fc_cmd[@]}"
run_one vipsthumbnail "${vt_cmd[@]}"
rm -f "$cache/facecrop.times" "$cache/vipsthumbnail.times"

s1="$(vipsheader -f width "$out1")x$(vipsheader -f height "$out1")"
s2="$(vipsheader -f width "$out2")x$(vipsheader -f height "$out2")"
echo "output sizes: facecrop $s1, vipsthumbnail $s2"
[ "$s1" = 1920x1080 ] || echo "bench: WARNING: facecrop output is $s1, expected 1920x1080" >&2
[ "$s2" = 1920x1080 ] || echo "bench: WARNING: vipsthumbnail output is $s2, expected 1920x1080" >&2

echo "runs: $runs each, interleaved"
for ((r = 1; r <= runs; r++)); do
  # alternate which tool goes first so neither always runs on a just-warmed CPU
  if [ $((r % 2)) -eq 1 ]; then
    run_one facecrop "${fc_cmd[@]}"; run_one vipsthumbnail "${vt_cmd[@]}"
  else
    run_one vipsthumbnail "${vt_cmd[@]}"; run_one facecrop "${fc_cmd[@]}"
  fi
done

median() { sort -g | awk '{a[NR]=$1} END{ if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2 }'; }
fc_t="$(awk '{print $1}' "$cache/facecrop.times" | median)"
fc_m="$(awk '{print $2}' "$cache/facecrop.times" | median)"
vt_t="$(awk '{print $1}' "$cache/vipsthumbnail.times" | median)"
vt_m="$(awk '{print $2}' "$cache/vipsthumbnail.times" | median)"
fc_max="$(awk '{print $2}' "$cache/facecrop.times" | sort -n | tail -n 1)"

printf '%-14s %10s %14s   (all runs: seconds / peak RSS KB)\n' "" "median s" "median peak MB"
printf '%-14s %10.3f %14.1f   %s\n' facecrop "$fc_t" "$(awk -v k="$fc_m" 'BEGIN{print k/1024}')" \
  "$(awk '{printf "%s/%s ", $1, $2}' "$cache/facecrop.times")"
printf '%-14s %10.3f %14.1f   %s\n' vipsthumbnail "$vt_t" "$(awk -v k="$vt_m" 'BEGIN{print k/1024}')" \
  "$(awk '{printf "%s/%s ", $1, $2}' "$cache/vipsthumbnail.times")"
awk -v ft="$fc_t" -v vt="$vt_t" -v fm="$fc_m" -v vm="$vt_m" -v fmax="$fc_max" 'BEGIN{
  printf "memory ratio facecrop/vipsthumbnail: %.2f; facecrop worst-run peak: %.0f MB\n", fm/vm, fmax/1024
  printf "facecrop/vipsthumbnail time ratio: %.2f; facecrop peak memory: %.0f MB\n", ft/vt, fm/1024
}'
