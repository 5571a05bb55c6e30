#!/usr/bin/env bash
# The test suite under the sanitizers, then a leak check of the command. Usage: scripts/sanitize.sh [asan|ubsan|leaks]...
# (default: all three). Each build has its own scratch folder (.build-asan, .build-ubsan), so the normal .build
# is left alone; a first build takes a few minutes.
#   asan   Swift, C and C++ built with AddressSanitizer (+ LeakSanitizer); every test, and every facecrop the
#          CLI tests start, must end without a report (an ASan report aborts the process: the test fails).
#   ubsan  the C and C++ shims built with UndefinedBehaviorSanitizer (swiftc has no -sanitize=undefined; Swift
#          traps on overflow and bounds by itself); any report aborts.
#   leaks  the ASan facecrop on crops, detect --quality, batch, best-frame, stability and failing inputs with LeakSanitizer and
#          libvips' VIPS_LEAK=1 (images, regions and memory still alive when libvips shuts down).
# Exits 0 when everything is clean.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(asan ubsan leaks)
quiet() { grep -v -e 'ld.gold: warning: Cannot export local symbol' -e 'prohibited flag(s): -pthread' || true; }
export VIPS_WARNING=1 OPENCV_LOG_LEVEL=ERROR
# Leaks outside facecrop's code (x265, the toolchain's Foundation in the test process), each explained there.
export LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp:print_suppressions=0

asan() {
    echo "== AddressSanitizer + LeakSanitizer: build and test (.build-asan)"
    swift build --build-tests --sanitize=address --scratch-path .build-asan 2>&1 | quiet
    ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 swift test --skip-build --disable-xctest --scratch-path .build-asan 2>&1 \
        | tee .build-asan/test.log | grep -E '^(✔ Test run|✘)|Sanitizer' || true
    ! grep -q Sanitizer .build-asan/test.log && grep -q '^✔ Test run' .build-asan/test.log
}

ubsan() {
    echo "== UndefinedBehaviorSanitizer (C and C++ targets): build and test (.build-ubsan)"
    local flags=(-Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined -Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined)
    swift build --build-tests --scratch-path .build-ubsan "${flags[@]}" 2>&1 | quiet
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 swift test --skip-build --disable-xctest --scratch-path .build-ubsan 2>&1 \
        | tee .build-ubsan/test.log | grep -E '^(✔ Test run|✘)|runtime error' || true
    ! grep -q 'runtime error' .build-ubsan/test.log && grep -q '^✔ Test run' .build-ubsan/test.log
}

leaks() {
    echo "== Leaks: LeakSanitizer and VIPS_LEAK=1 on facecrop runs (.build-asan)"
    swift build --sanitize=address --scratch-path .build-asan --product facecrop 2>&1 | quiet
    local bin=$PWD/.build-asan/debug/facecrop dir failed=0
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' RETURN
    mkdir "$dir/in"
    cp Samples/group.jpg Samples/portrait.png Golden/cmyk/input.jpg "$dir/in/" 
    cp Fuzz/seeds/group.heic Fuzz/seeds/exif6.jpg Fuzz/seeds/alpha.webp Fuzz/regressions/* "$dir/"
    head -c 20000 Samples/group.jpg >"$dir/truncated.jpg"
    # A short H.264 clip with a face, and the same cut in half (FFmpeg's libraries through the CVideo shim).
    ffmpeg -nostdin -hide_banner -loglevel error -loop 1 -framerate 10 -t 1.5 -i Samples/portrait.png -vf scale=256:256 \
        -c:v libx264 -pix_fmt yuv420p -g 5 -movflags +faststart "$dir/clip.mp4"
    head -c $(($(stat -c %s "$dir/clip.mp4") / 2)) "$dir/clip.mp4" >"$dir/cut.mp4"
    echo "not an image" >"$dir/text.jpg"
    # expected status | arguments
    local runs=(
        "0|in/group.jpg -o out.jpg"
        "0|in/group.jpg --aspect 16:9 --size 640x360 --strip -o out.webp"
        "0|in/portrait.png --detector haar --aspect 4:5 -o out.png"
        "0|in/input.jpg --aspect original -o cmyk.tif"
        "0|exif6.jpg --margin 40% -o exif.jpg"
        "0|group.heic --width 100 -o heic.jpg"
        "0|alpha.webp --no-face center -o alpha.png"
        "0|in/portrait.png --aspect 1:1 -o portrait.heic"
        "0|detect --quality --json in/group.jpg"
        "0|best-frame clip.mp4 -o best.jpg --contact-sheet sheet.jpg"
        "0|best-frame clip.mp4 --every-frame --aspect 1:1 -o best.png"
        "0|stability clip.mp4 --json"
        "65|best-frame cut.mp4 -o best.jpg"
        "0|batch in --output-dir out --size 320x180 --aspect 1:1 --jobs 2 --report out/report.jsonl"
        "0|batch in --output-dir out --size 320x180 --aspect 1:1 --jobs 2"
        "2|in/input.jpg --no-face fail --threshold 0.999 -o none.jpg"
        "65|truncated.jpg -o out.jpg"
        "65|text.jpg -o out.jpg"
        "65|in/group.jpg --max-pixels 1000 -o out.jpg"
        "66|missing.jpg -o out.jpg"
        "73|in/group.jpg -o no-such-folder/out.jpg"
    )
    for f in Fuzz/regressions/*; do runs+=("0,65|$(basename "$f") -o regression.jpg"); done
    for run in "${runs[@]}"; do
        local want=${run%%|*} args=${run#*|} status=0
        # shellcheck disable=SC2086 # the arguments are split on purpose
        (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 VIPS_LEAK=1 "$bin" $args >/dev/null 2>"$dir/stderr") || status=$?
        # VIPS_LEAK=1 reports "N objects alive", "N regions alive", "memory: N allocations ..." at shut-down.
        if grep -qE 'Sanitizer|objects alive|regions alive|buffers alive|allocations' "$dir/stderr" || [[ ",$want," != *",$status,"* ]]; then
            echo "FAIL (exit $status, expected $want): facecrop $args"
            grep -vE '^(memory: high-water mark|vips_threadset_free|error buffer:)' "$dir/stderr" | head -40
            failed=1
        else
            echo "clean (exit $status): facecrop $args"
        fi
    done
    return $failed
}

status=0
for step in "${steps[@]}"; do
    case $step in
    asan | ubsan | leaks) "$step" || { echo "== $step: FAILED"; status=1; } ;;
    *) echo "unknown step '$step' (asan, ubsan or leaks)" >&2; exit 64 ;;
    esac
done
[ $status -eq 0 ] && echo "== sanitizers: clean"
exit $status
