#!/usr/bin/env bash
# Usage: fuzz/run-pixels.sh [SECONDS]   (default 60) — builds, then fuzzes the processing path from the seeds in
# fuzz/corpus-pixels. New inputs go to fuzz/work-pixels/corpus, crashes to fuzz/artifacts-pixels/ (gitignored).
# One job, niced. Leak detection is off: libvips and GLib keep process-lifetime allocations LeakSanitizer reports.
set -euo pipefail
source "$(dirname "$0")/common.sh"
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
run_fuzzer pixels corpus-pixels "-pixels" "${1:-60}" -max_len=16384
