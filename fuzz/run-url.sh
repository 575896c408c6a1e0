#!/usr/bin/env bash
# Usage: fuzz/run-url.sh [SECONDS]   (default 60) — builds, then fuzzes what `dwfetch serve` does with a request
# path before any fetch (the imgproxy URL parser, the signature check, the result limits, the variant plan on tiny
# images), from the seeds in fuzz/corpus-url with the option names in fuzz/url.dict. New inputs go to
# fuzz/work-url/corpus, crashes to fuzz/artifacts-url/ (gitignored). One job, niced. Leak detection is off, as for
# the pixels target (libvips and GLib keep process-lifetime allocations).
set -euo pipefail
source "$(dirname "$0")/common.sh"
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
run_fuzzer url corpus-url "-url" "${1:-60}" -dict="$(cd "$(dirname "$0")" && pwd)/url.dict" -max_len=1024
