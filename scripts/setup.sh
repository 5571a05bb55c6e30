#!/usr/bin/env bash
# Installs what facecrop needs on Debian bookworm when it is missing: the Debian packages (libvips, the
# parts of OpenCV we link, Haar cascades, dlib with its 68-point landmark model, FFmpeg's libraries for video, tools
# used by tests and the benchmark, dpkg-dev and man-db for the package tests, nginx for the serve cache check, wrk
# for its benchmark) and the models built into facecrop,
# checked by sha256. Safe to run again: it does nothing when everything is present.
# With --build, only what building and installing facecrop needs (make build, make install, make deb): the
# libraries' development packages, not the test and benchmark tools.
set -euo pipefail
cd "$(dirname "$0")/.."

build_packages=(
  pkg-config libvips-dev
  libopencv-core-dev libopencv-imgproc-dev libopencv-dnn-dev libopencv-objdetect-dev
  libdlib-dev libblas-dev liblapack-dev
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev
)
packages=(
  pkg-config libvips-dev libvips-tools
  libopencv-core-dev libopencv-imgproc-dev libopencv-dnn-dev libopencv-objdetect-dev opencv-data
  libdlib-dev libdlib-data libblas-dev liblapack-dev
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev ffmpeg
  time dpkg-dev man-db
  nginx wrk xxd
)
[ "${1:-}" = "--build" ] && packages=("${build_packages[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

scripts/fetch-models.sh
