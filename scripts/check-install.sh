#!/usr/bin/env bash
# `make install` into a temporary DESTDIR (PREFIX=/usr/local), then runs the installed binary from there with an
# empty environment (env -i: no PATH, so no Swift toolchain; nothing it links may come from /opt/swift or the
# build folder), checks the man page, completions and notices, and `make uninstall` removes every file again.
# Run by `make check-install` (after `make dist`).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/facecrop-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check-install: $*" >&2; exit 1; }
version=$(tr -d '[:space:]' < VERSION)
dest=$tmp/root
prefix=/usr/local

make --no-print-directory install-files DESTDIR="$dest" PREFIX=$prefix >/dev/null
bin=$dest$prefix/bin/facecrop
[ -x "$bin" ] || fail "no executable at $bin"

# Linked libraries: all from the system, none from the toolchain (the Swift runtime is linked in).
libs=$(ldd "$bin")
if grep -qE 'not found|/opt/swift|libswift|libFoundation|\.build/' <<<"$libs"; then
  echo "$libs" >&2; fail "the installed binary needs the toolchain or a missing library"
fi

cp Samples/group.jpg "$tmp/in.jpg"
out=$(cd "$tmp" && env -i "$bin" --aspect 16:9 --margin 200 in.jpg -o out.jpg) || fail "the installed binary failed: $out"
[[ $out =~ ^in\.jpg:\ ([0-9]+)\ faces,\ crop\ .*\ -\>\ out\.jpg\ \(([0-9]+x[0-9]+)\)$ ]] || fail "unexpected output: '$out'"
[ "${BASH_REMATCH[1]}" -ge 3 ] || fail "found ${BASH_REMATCH[1]} faces in Samples/group.jpg"
[ "$(vipsheader -f width "$tmp/out.jpg")x$(vipsheader -f height "$tmp/out.jpg")" = "${BASH_REMATCH[2]}" ] \
  || fail "the crop's size is not the one reported: $out"
# Same result as the binary built in the repository (the install copies it stripped).
.build/release/facecrop --aspect 16:9 --margin 200 "$tmp/in.jpg" -o "$tmp/built.jpg" >/dev/null
cmp -s "$tmp/out.jpg" "$tmp/built.jpg" || fail "the installed binary's crop differs from .build/release/facecrop's"
[ "$(env -i "$bin" --version)" = "$version" ] || fail "--version is not $version"
[ "$(env -i "$bin" "$tmp/nonexistent.jpg" -o "$tmp/x.jpg" 2>/dev/null; echo $?)" = 66 ] || fail "a missing input is not exit 66"

man=$dest$prefix/share/man/man1/facecrop.1
grep -q '^\.Dt FACECROP 1$' "$man" || fail "$man is not a man page of section 1"
for sub in batch detect rank annotate best-frame; do grep -q "$sub" "$man" || fail "the man page does not mention '$sub'"; done
grep -q "best-frame" <<<"$(MANWIDTH=80 man -l "$man" 2>/dev/null)" || fail "man cannot format $man"
bash_c=$dest$prefix/share/bash-completion/completions/facecrop
zsh_c=$dest$prefix/share/zsh/site-functions/_facecrop
fish_c=$dest$prefix/share/fish/vendor_completions.d/facecrop.fish
for f in "$bash_c" "$zsh_c" "$fish_c"; do grep -q "best-frame" "$f" || fail "$f does not complete the subcommands"; done
bash -n "$bash_c" || fail "$bash_c is not valid bash"
bash -c "source '$bash_c' && complete -p facecrop" >/dev/null || fail "$bash_c registers no completion for facecrop"
head -1 "$zsh_c" | grep -q '^#compdef facecrop' || fail "$zsh_c lacks #compdef"
for f in LICENSE THIRD_PARTY_NOTICES.md CHANGELOG.md LICENSE-yunet.txt; do
  [ -s "$dest$prefix/share/doc/facecrop/$f" ] || fail "$f is not installed"
done
bytes=$(find "$dest" -type f -printf '%s\n' | awk '{s += $1} END {print s}')

make --no-print-directory uninstall DESTDIR="$dest" PREFIX=$prefix >/dev/null
left=$(find "$dest" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "check-install: ok (installed $((bytes / 1024)) KB under $prefix, ran with an empty environment, uninstalled)"
