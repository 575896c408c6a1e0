#!/usr/bin/env bash
# Usage: fuzz/run-pixels.sh [SECONDS]   (default 60) — builds, then fuzzes the processing path from the seeds in
# fuzz/corpus-pixels. New inputs go to fuzz/work-pixels/corpus, crashes to fuzz/artifacts-pixels/ (gitignored).
# One job, niced. Leak detection is off: libvips and GLib keep process-lifetime allocations LeakSanitizer reports.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
duration="${1:-60}"
"$here/build.sh" pixels
mkdir -p "$here/work-pixels/corpus" "$here/artifacts-pixels"
cd "$here/work-pixels"
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
exec nice -n 10 "$here/build/pixels-fuzzer" "$here/work-pixels/corpus" "$here/corpus-pixels" \
    -max_total_time="$duration" -jobs=1 -workers=1 -max_len=16384 \
    -rss_limit_mb=2048 -timeout=20 -artifact_prefix="$here/artifacts-pixels/" -print_final_stats=1
