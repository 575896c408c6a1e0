#!/usr/bin/env bash
# Usage: fuzz/run-svg.sh [SECONDS]   (default 60) — builds, then fuzzes the SVG path (SVGGuard's scan, the size
# without a render, the sanitiser, the render in the helper process under the server's limits) from the seeds in
# fuzz/corpus-svg. New inputs go to fuzz/work-svg/corpus, crashes to fuzz/artifacts-svg/ (gitignored). One job,
# niced. Leak detection is off: libvips and GLib keep process-lifetime allocations LeakSanitizer reports.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
duration="${1:-60}"
"$here/build.sh" svg
# FUZZ_WORK_DIR=DIR (CI: fuzz/run-ci.sh): the seeds are copied to DIR/corpus and fuzzed from there, crashes go
# to DIR/artifacts/, and nothing is written under fuzz/.
if [[ -n "${FUZZ_WORK_DIR:-}" ]]; then
    work="$FUZZ_WORK_DIR" artifacts="$FUZZ_WORK_DIR/artifacts/" seeds=()
    mkdir -p "$work/corpus" "$artifacts"
    cp -R "$here/corpus-svg/." "$work/corpus/"
else
    work="$here/work-svg" artifacts="$here/artifacts-svg/" seeds=("$here/corpus-svg")
    mkdir -p "$work/corpus" "$artifacts"
fi
cd "$work"
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
exec nice -n 10 "$here/build/svg-fuzzer" "$work/corpus" "${seeds[@]}" \
    -max_total_time="$duration" -jobs=1 -workers=1 -max_len=65536 -dict="$here/svg.dict" \
    -rss_limit_mb=2048 -timeout="${FUZZ_UNIT_TIMEOUT:-20}" -artifact_prefix="$artifacts" -print_final_stats=1
