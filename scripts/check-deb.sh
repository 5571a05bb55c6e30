#!/usr/bin/env bash
# Installs the Debian package with dpkg -i, runs /usr/bin/facecrop on a sample with an empty environment, checks
# the man page, completions and documentation are where Debian puts them and the control fields, then removes the
# package with dpkg -r. Needs root (CI runs as root on a throwaway machine). Refuses to run when a facecrop package
# is already installed, so it never replaces or removes one it did not install.
# Usage: scripts/check-deb.sh dist/facecrop_VERSION_ARCH.deb (run by `make check-deb`)
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:?usage: check-deb.sh PACKAGE.deb}
fail() { echo "check-deb: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root to run dpkg -i (CI runs as root)"
version=$(tr -d '[:space:]' < VERSION)
if dpkg-query -W -f='${Status}' facecrop 2>/dev/null | grep -q 'installed'; then
  fail "a facecrop package is already installed; remove it first (dpkg -r facecrop)"
fi

# Control fields.
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = facecrop ] && [ "$(field Version)" = "$version" ] || fail "package or version wrong: $(field Package) $(field Version)"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "architecture $(field Architecture)"
for lib in libvips42 libopencv-core406 libopencv-imgproc406 libopencv-dnn406 libopencv-objdetect406; do
  field Depends | grep -qE "(^|, )$lib( |,|$)" || fail "Depends lacks $lib: $(field Depends)"
done
for lib in libavformat59 libavcodec59 libavutil57 libswscale6; do
  field Recommends | grep -q "$lib" || fail "Recommends lacks $lib: $(field Recommends)"
done
field Suggests | grep -q libdlib-data || fail "Suggests lacks libdlib-data"
contents=$(dpkg-deb --contents "$deb")
if grep -qE '/opt/|\.build' <<<"$contents"; then fail "the package holds files outside Debian's layout"; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/facecrop-deb.XXXXXX")
installed=0
cleanup() {
  [ "$installed" -eq 0 ] || dpkg -r facecrop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
dpkg -i "$deb" >/dev/null || fail "dpkg -i $deb failed"
installed=1

cp Samples/group.jpg "$tmp/in.jpg"
out=$(cd "$tmp" && env -i /usr/bin/facecrop --aspect 16:9 --margin 200 in.jpg -o out.jpg) || fail "/usr/bin/facecrop failed: $out"
[[ $out =~ ^in\.jpg:\ ([0-9]+)\ faces,\ crop\ .*\ -\>\ out\.jpg\ \(([0-9]+x[0-9]+)\)$ ]] || fail "unexpected output: '$out'"
[ "${BASH_REMATCH[1]}" -ge 3 ] || fail "found ${BASH_REMATCH[1]} faces in Samples/group.jpg"
[ "$(vipsheader -f width "$tmp/out.jpg")x$(vipsheader -f height "$tmp/out.jpg")" = "${BASH_REMATCH[2]}" ] \
  || fail "the crop's size is not the one reported: $out"
.build/release/facecrop --aspect 16:9 --margin 200 "$tmp/in.jpg" -o "$tmp/built.jpg" >/dev/null
cmp -s "$tmp/out.jpg" "$tmp/built.jpg" || fail "/usr/bin/facecrop's crop differs from .build/release/facecrop's"
[ "$(env -i /usr/bin/facecrop --version)" = "$version" ] || fail "--version is not $version"
grep -q "\"version\" *: *\"$version\"" <<<"$(env -i /usr/bin/facecrop detect --json "$tmp/in.jpg")" || fail "the JSON report does not carry version $version"

grep -q ' \./usr/share/man/man1/facecrop\.1\.gz$' <<<"$contents" || fail "the package holds no man page"
if grep -sqE '^path-exclude=?.*/usr/share/man' /etc/dpkg/dpkg.cfg /etc/dpkg/dpkg.cfg.d/*; then
  echo "check-deb: note: dpkg is set to leave out /usr/share/man here (a slim image); the man page is only checked in the package" >&2
else
  grep -q '^/usr/share/man/man1/facecrop.1.gz$' <<<"$(man -w facecrop 2>/dev/null)" || fail "man -w facecrop does not find /usr/share/man/man1/facecrop.1.gz"
  grep -q "best-frame" <<<"$(MANWIDTH=80 man facecrop 2>/dev/null)" || fail "man facecrop does not show the subcommands"
fi
for f in /usr/share/bash-completion/completions/facecrop /usr/share/zsh/vendor-completions/_facecrop \
  /usr/share/fish/vendor_completions.d/facecrop.fish; do
  grep -q "best-frame" "$f" || fail "$f is missing or does not complete the subcommands"
done
for f in copyright changelog.gz THIRD_PARTY_NOTICES.md LICENSE-yunet.txt; do
  grep -q " \./usr/share/doc/facecrop/$f\$" <<<"$contents" || fail "the package holds no /usr/share/doc/facecrop/$f"
done

dpkg -r facecrop >/dev/null || fail "dpkg -r facecrop failed"
installed=0
[ ! -e /usr/bin/facecrop ] && [ ! -e /usr/share/man/man1/facecrop.1.gz ] || fail "dpkg -r left files behind"
echo "check-deb: ok ($deb: installed, ran /usr/bin/facecrop with an empty environment, man page and completions present, removed)"
