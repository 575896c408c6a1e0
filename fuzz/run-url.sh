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
# FUZZ_WORK_DIR=DIR (CI: fuzz/run-ci.sh): the seeds are copied to DIR/corpus and fuzzed from there, crashes go
# to DIR/artifacts/, and nothing is written under fuzz/.
if [[ -n "${FUZZ_WORK_DIR:-}" ]]; then
    work="$FUZZ_WORK_DIR" artifacts="$FUZZ_WORK_DIR/artifacts/" seeds=()
    mkdir -p "$work/corpus" "$artifacts"
    cp -R "$here/corpus-url/." "$work/corpus/"
else
    work="$here/work-url" artifacts="$here/artifacts-url/" seeds=("$here/corpus-url")
    mkdir -p "$work/corpus" "$artifacts"
fi
cd "$work"
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
exec nice -n 10 "$here/build/url-fuzzer" "$work/corpus" "${seeds[@]}" \
    -dict="$here/url.dict" -max_total_time="$duration" -jobs=1 -workers=1 -max_len=1024 \
    -rss_limit_mb=2048 -timeout="${FUZZ_UNIT_TIMEOUT:-20}" -artifact_prefix="$artifacts" -print_final_stats=1
