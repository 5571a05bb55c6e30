#!/usr/bin/env bash
# Fuzzes facecrop's pipeline (load → detect → plan → crop → write) with libFuzzer and AddressSanitizer for
# SECONDS (default 300), single process. Usage: scripts/fuzz.sh [SECONDS] [EXTRA_SEED_DIR ...]
#   Seeds: Fuzz/seeds (small JPEG/PNG/WebP/TIFF/GIF/HEIC), Fuzz/regressions, the hostile-input corpus of
#   scripts/make-corpus.py (its regular files up to the 64 KiB input length), and any EXTRA_SEED_DIR.
#   The growing corpus is kept in .build-fuzz/corpus between runs.
#   An input that crashes (or gets an ASan or UBSan report), times out or runs out of memory is copied to
#   Fuzz/regressions/ and the script exits 1:
#   fix it, give the file a name that says what it was, commit it (Tests/ replays every file there).
# Replay one input: .build-fuzz/debug/FuzzPipeline FILE
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
scratch=.build-fuzz
# AddressSanitizer everywhere, UndefinedBehaviorSanitizer in the C and C++ shims (swiftc has no UBSan).
swift build --package-path Fuzz --scratch-path "$scratch" --sanitize=fuzzer --sanitize=address \
    -Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined -Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined \
    --product FuzzPipeline 2>&1 | grep -v 'ld.gold: warning: Cannot export local symbol' >&2
mkdir -p "$scratch/corpus" "$scratch/artifacts"
max_len=65536
# The hostile corpus as seeds: regular readable files only (its FIFO, its link to /dev/zero and its folders
# would block or never end), and none longer than an input may be.
python3 scripts/make-corpus.py "$scratch/hostile-corpus" >/dev/null
rm -rf "$scratch/hostile" && mkdir "$scratch/hostile"
find "$scratch/hostile-corpus" -type f -perm -u=r -size -$((max_len + 1))c ! -name cases.json -exec cp -t "$scratch/hostile" {} +
log="$scratch/fuzz-$(date -u +%Y%m%dT%H%M%SZ).log"
# libvips' and OpenCV's warnings about damaged files are expected here; keep the log to the fuzzer's lines.
export VIPS_WARNING=1 OPENCV_LOG_LEVEL=ERROR
# Leaks are scripts/sanitize.sh's job (per process, with suppressions and VIPS_LEAK): libFuzzer's per-input check
# (-detect_leaks=0 below) and ASan's check at exit are off. At exit, after a long run, LeakSanitizer once reported
# 4 KB in two GLib allocations with no facecrop frame, which libFuzzer then filed as a "crash" of an empty input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=10:detect_leaks=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
set +e
"$scratch/debug/FuzzPipeline" -max_total_time="$seconds" -max_len=$max_len -timeout=30 -rss_limit_mb=3072 \
    -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$scratch/artifacts/" \
    "$scratch/corpus" Fuzz/seeds Fuzz/regressions "$scratch/hostile" "$@" >"$log" 2>&1 &
pid=$!
wait $pid
status=$?
rm -rf "/dev/shm/facecrop-fuzz-$pid"  # the harness's scratch folder, left behind by a crash or an interrupt
set -e
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
echo "fuzz: ${runs:-?} executions in ${took:-$seconds} s (${rate:-?}/s), corpus $(ls "$scratch/corpus" | wc -l) files, log $log"
if grep -q 'run interrupted' "$log"; then
    echo "fuzz: interrupted, no crash"
    exit 130
fi
if [ "$status" -ne 0 ]; then
    grep -E 'ERROR: |runtime error|SUMMARY' "$log" || tail -20 "$log"
    for f in $(sed -n "s/.*Test unit written to \(.*\)$/\1/p" "$log"); do
        cp "$f" Fuzz/regressions/ && echo "fuzz: crasher saved as Fuzz/regressions/$(basename "$f")"
    done
    exit 1
fi
echo "fuzz: no crash"
