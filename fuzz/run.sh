#!/usr/bin/env bash
# Usage: fuzz/run.sh [SECONDS]   (default 60) — builds, then fuzzes with the seed corpus in fuzz/corpus.
# New inputs go to fuzz/work/corpus, crashes to fuzz/artifacts/ (both gitignored). One job, niced: the machine is shared.
set -euo pipefail
source "$(dirname "$0")/common.sh"
run_fuzzer gif corpus "" "${1:-60}" -dict="$(cd "$(dirname "$0")" && pwd)/gif.dict" -max_len=8192
