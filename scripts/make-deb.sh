#!/usr/bin/env bash
# Builds dist/facecrop_VERSION_ARCH.deb for Debian bookworm with dpkg-deb, from the release build and what
# scripts/make-dist.sh generated (run through `make deb`, which makes both). Files are laid out by the Makefile's
# install-files with PREFIX=/usr; Depends is computed by dpkg-shlibdeps from the libraries the binary links
# (libvips, the four OpenCV libraries, glib, the C/C++ runtime). What is loaded only on demand is named apart:
# FFmpeg's libraries (best-frame, stability; opened with dlopen) are Recommends, dlib's landmark model
# (libdlib-data: large, and its training data excludes commercial use) and OpenCV's Haar cascades (opencv-data,
# --detector haar) are Suggests. The architecture is this machine's (amd64 or arm64; same recipe).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(tr -d '[:space:]' < VERSION)
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-facecrop maintainers <maintainers@users.noreply.a-seed-6a7ae424.example>}
work=.build/deb
root=$work/root
rm -rf "$work"
mkdir -p "$root/DEBIAN" dist

make --no-print-directory install-files DESTDIR="$root" PREFIX=/usr \
  ZSHCOMPDIR=/usr/share/zsh/vendor-completions DOCDIR=/usr/share/doc/facecrop >/dev/null

# Debian's layout: compressed man page and changelog, a copyright file instead of LICENSE (Apache-2.0 is in
# /usr/share/common-licenses).
gzip -9n "$root/usr/share/man/man1/facecrop.1"
doc=$root/usr/share/doc/facecrop
mv "$doc/CHANGELOG.md" "$doc/changelog" && gzip -9n "$doc/changelog"
rm "$doc/LICENSE"
cat > "$doc/copyright" <<TEXT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: facecrop
Comment: What facecrop links, loads or embeds, with each licence: THIRD_PARTY_NOTICES.md in this folder.

Files: *
Copyright: facecrop contributors
License: Apache-2.0
 On Debian systems the full text of the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.

Files: embedded models (face_detection_yunet_2023mar.onnx, fer_emotion_minixception.onnx, centerface-split.onnx)
Copyright: 2021 Shenzhen Institute of Artificial Intelligence and Robotics for Society
           2018 Justin Shenk
           2019 StarClouds
License: MIT
 The full texts with their copyright lines are in LICENSE-*.txt in this folder.

Files: statically linked Swift runtime, FoundationEssentials, swift-argument-parser
Copyright: Apple Inc. and the Swift project authors
License: Apache-2.0 with Runtime Library Exception
 See /usr/share/common-licenses/Apache-2.0 and https://swift.org/LICENSE.txt.

Files: compiled-in dlib code (shape predictor)
Copyright: 2003-2021 Davis E King
License: BSL-1.0
 See /usr/share/doc/libdlib-dev/copyright when installed, or https://www.boost.org/LICENSE_1_0.txt.
TEXT
chmod 644 "$doc/copyright"

# Depends from the libraries the binary links, as Debian's own packages compute them.
shlibs=$work/shlibs
mkdir -p "$shlibs/debian"
printf 'Source: facecrop\n\nPackage: facecrop\nArchitecture: any\n' > "$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O -e"$OLDPWD/$root/usr/bin/facecrop" 2>"$OLDPWD/$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { cat "$work/shlibdeps.log" >&2; echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
for lib in libvips42 libopencv-core406 libopencv-imgproc406 libopencv-dnn406 libopencv-objdetect406; do
  case ", $depends," in *", $lib "*|*", $lib,"*) ;; *) echo "make-deb: Depends lacks $lib: $depends" >&2; exit 1 ;; esac
done

# FFmpeg's sonames as CVideo opens them (by the headers' major versions): Debian names the packages after them.
read -r avutil avcodec avformat swscale < <(printf '%s\n' '#include <libavutil/version.h>' '#include <libavcodec/version.h>' \
  '#include <libavformat/version.h>' '#include <libswscale/version.h>' \
  'LIBAVUTIL_VERSION_MAJOR LIBAVCODEC_VERSION_MAJOR LIBAVFORMAT_VERSION_MAJOR LIBSWSCALE_VERSION_MAJOR' | clang -E -P - | tail -1)
case "$avutil$avcodec$avformat$swscale" in
  *[!0-9]*|"") echo "make-deb: cannot read FFmpeg's major versions from its headers (libav*-dev)" >&2; exit 1 ;;
esac
recommends="libavformat$avformat, libavcodec$avcodec | libavcodec-extra$avcodec, libavutil$avutil, libswscale$swscale"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<TEXT
Package: facecrop
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: $recommends
Suggests: libdlib-data, opencv-data
Section: graphics
Priority: optional
Description: face-aware crops and thumbnails for servers and build pipelines
 facecrop finds every face in a photo (CenterFace or YuNet through OpenCV,
 built in) and cuts a crop of the requested aspect ratio or size around them
 from the full-resolution image with libvips. It also lists faces with their capture
 quality, ranks photos, annotates them, and picks the best frame of a short
 video or Live Photo.
 .
 Video (best-frame, stability) needs FFmpeg's libraries, which are loaded on
 first use. The 68-point landmarks need dlib's model from libdlib-data, whose
 training data excludes commercial use; without it facecrop uses the
 detector's 5 landmarks.
TEXT
deb=dist/facecrop_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "make-deb: $deb ($(du -k "$deb" | cut -f1) KB, installed $size KB)"
echo "make-deb: Depends: $depends"
