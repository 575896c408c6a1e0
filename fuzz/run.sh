#!/usr/bin/env bash
# Usage: fuzz/run.sh [SECONDS]   (default 60) — builds, then fuzzes with the seed corpus in fuzz/corpus.
# New inputs go to fuzz/work/corpus, crashes to fuzz/artifacts/ (both gitignored). One job, niced: the machine is shared.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
duration="${1:-60}"
"$here/build.sh" gif
mkdir -p "$here/work/corpus" "$here/artifacts"
cd "$here/work"
exec nice -n 10 "$here/build/gif-fuzzer" "$here/work/corpus" "$here/corpus" \
    -dict="$here/gif.dict" -max_total_time="$duration" -jobs=1 -workers=1 -max_len=8192 \
    -rss_limit_mb=2048 -timeout=20 -artifact_prefix="$here/artifacts/" -print_final_stats=1
