#!/usr/bin/env bash
# Usage: fuzz/run.sh [SECONDS]   (default 60) — builds, then fuzzes with the seed corpus in fuzz/corpus.
# New inputs go to fuzz/work/corpus, crashes to fuzz/artifacts/ (both gitignored). One job, niced: the machine is shared.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
duration="${1:-60}"
"$here/build.sh" gif
# FUZZ_WORK_DIR=DIR (CI: fuzz/run-ci.sh): the seeds are copied to DIR/corpus and fuzzed from there, crashes go
# to DIR/artifacts/, and nothing is written under fuzz/.
if [[ -n "${FUZZ_WORK_DIR:-}" ]]; then
    work="$FUZZ_WORK_DIR" artifacts="$FUZZ_WORK_DIR/artifacts/" seeds=()
    mkdir -p "$work/corpus" "$artifacts"
    cp -R "$here/corpus/." "$work/corpus/"
else
    work="$here/work" artifacts="$here/artifacts/" seeds=("$here/corpus")
    mkdir -p "$work/corpus" "$artifacts"
fi
cd "$work"
exec nice -n 10 "$here/build/gif-fuzzer" "$work/corpus" "${seeds[@]}" \
    -dict="$here/gif.dict" -max_total_time="$duration" -jobs=1 -workers=1 -max_len=8192 \
    -rss_limit_mb=2048 -timeout="${FUZZ_UNIT_TIMEOUT:-20}" -artifact_prefix="$artifacts" -print_final_stats=1
