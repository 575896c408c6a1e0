#!/usr/bin/env bash
# Usage: fuzz/run-ci.sh [SECONDS]   (default 60) — CI's fuzzing (scripts/test.sh): builds every target
# (fuzz/build.sh), then runs each — gif (fuzz/run.sh), pixels, url, and svg when fuzz/run-svg.sh exists — for
# SECONDS, one after another, each from a copy of its committed corpus in a fresh directory under ${TMPDIR:-/tmp}
# (FUZZ_WORK_DIR; the fuzz tree gets only its build). A crash, an ASan report, a hang (FUZZ_UNIT_TIMEOUT, default 60 s
# a unit) or an out-of-memory input fails the run: the target's last log lines and its artifact (kept under $TMPDIR) are printed. One line per target.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
duration="${1:-60}"
# A unit slower than this fails the run as a hang. Not libFuzzer's 20 s of the by-hand runs: the URL corpus's
# pd:2000:2000:2000:2000 makes a 16 MP result, 14-23 s under ASan on 2 shared cores (fuzz/README.md).
export FUZZ_UNIT_TIMEOUT="${FUZZ_UNIT_TIMEOUT:-60}"
start=$SECONDS
"$here/build.sh" all
echo "fuzz: built in $((SECONDS - start)) s"
export FUZZ_BUILT=1  # each run script would otherwise build its target again (an up-to-date check of ~10-20 s)
targets=(gif:run.sh pixels:run-pixels.sh url:run-url.sh)
[[ -f "$here/run-svg.sh" ]] && targets+=(svg:run-svg.sh)
failed=0
for entry in "${targets[@]}"; do
    name=${entry%%:*} script=${entry#*:}
    dir="$(mktemp -d "${TMPDIR:-/tmp}/dwfuzz-$name.XXXXXX")"
    if FUZZ_WORK_DIR="$dir" bash "$here/$script" "$duration" > "$dir/run.log" 2>&1; then
        # -jobs=1: the fuzzing itself logs to fuzz-0.log in the work directory.
        stats=$(grep -hE "stat::number_of_executed_units|^#[0-9]+.*DONE" "$dir"/fuzz-*.log 2>/dev/null | tail -1)
        echo "fuzz: PASS $name ${duration}s ${stats:-}"
        rm -rf "$dir"
    else
        failed=1
        echo "fuzz: FAIL $name (logs and artifacts in $dir):"
        tail -n 40 "$dir/run.log" "$dir"/fuzz-*.log 2>/dev/null || true
        ls -l "$dir/artifacts" 2>/dev/null || true
    fi
done
exit $failed
