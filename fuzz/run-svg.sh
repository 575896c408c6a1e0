#!/usr/bin/env bash
# Usage: fuzz/run-svg.sh [SECONDS]   (default 60) — builds, then fuzzes the SVG path (SVGGuard's scan, the size
# without a render, the sanitiser, the render in the helper process under the server's limits) from the seeds in
# fuzz/corpus-svg. New inputs go to fuzz/work-svg/corpus, crashes to fuzz/artifacts-svg/ (gitignored). One job,
# niced. Leak detection is off: libvips and GLib keep process-lifetime allocations LeakSanitizer reports.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
duration="${1:-60}"
"$here/build.sh" svg
mkdir -p "$here/work-svg/corpus" "$here/artifacts-svg"
cd "$here/work-svg"
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
exec nice -n 10 "$here/build/svg-fuzzer" "$here/work-svg/corpus" "$here/corpus-svg" \
    -max_total_time="$duration" -jobs=1 -workers=1 -max_len=65536 -dict="$here/svg.dict" \
    -rss_limit_mb=2048 -timeout=20 -artifact_prefix="$here/artifacts-svg/" -print_final_stats=1
