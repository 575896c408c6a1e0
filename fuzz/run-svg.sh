#!/usr/bin/env bash
# Usage: fuzz/run-svg.sh [SECONDS]   (default 60) — builds, then fuzzes the SVG path (SVGGuard's scan, the size
# without a render, the sanitiser, the render in the helper process under the server's limits) from the seeds in
# fuzz/corpus-svg. New inputs go to fuzz/work-svg/corpus, crashes to fuzz/artifacts-svg/ (gitignored). One job,
# niced. Leak detection is off: libvips and GLib keep process-lifetime allocations LeakSanitizer reports.
set -euo pipefail
source "$(dirname "$0")/common.sh"
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
run_fuzzer svg corpus-svg "-svg" "${1:-60}" -dict="$(cd "$(dirname "$0")" && pwd)/svg.dict" -max_len=65536
