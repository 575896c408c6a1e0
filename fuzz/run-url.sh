#!/usr/bin/env bash
# Usage: fuzz/run-url.sh [SECONDS]   (default 60) — builds, then fuzzes what `dwfetch serve` does with a request
# path before any fetch (the imgproxy URL parser, the signature check, the result limits, the served chain on tiny
# images), from the seeds in fuzz/corpus-url with the option names in fuzz/url.dict. New inputs go to
# fuzz/work-url/corpus, crashes to fuzz/artifacts-url/ (gitignored). One job, niced. Leak detection is off, as for
# the pixels target (libvips and GLib keep process-lifetime allocations).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
duration="${1:-60}"
"$here/build.sh" url
mkdir -p "$here/work-url/corpus" "$here/artifacts-url"
cd "$here/work-url"
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
exec nice -n 10 "$here/build/url-fuzzer" "$here/work-url/corpus" "$here/corpus-url" \
    -dict="$here/url.dict" -max_total_time="$duration" -jobs=1 -workers=1 -max_len=1024 \
    -rss_limit_mb=2048 -timeout=20 -artifact_prefix="$here/artifacts-url/" -print_final_stats=1
