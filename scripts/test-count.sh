#!/usr/bin/env bash
# Reads a `swift test` log (argument, or standard input) and prints how many tests ran and how many were skipped,
# for XCTest ("Executed N tests, with K tests skipped and F failures") and Swift Testing ("Test run with N tests",
# "Test X skipped"). Exits 1 if any test was skipped, or if the log shows no test run at all: a skipped test is a
# test that can no longer fail, so scripts/test.sh (and CI) refuse it.
set -euo pipefail
log="${1:-}"
if [ -z "$log" ]; then
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  cat > "$log"
fi
python3 - "$log" <<'PY'
import re, sys

text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
# XCTest: one "Executed" line per suite; the last is the 'All tests' total.
executed = re.findall(r"Executed (\d+) tests?, with (?:(\d+) tests? skipped and )?(\d+) failures?", text)
xc_run, xc_skipped, xc_failed = (int(executed[-1][0]), int(executed[-1][1] or 0), int(executed[-1][2])) if executed \
    else (0, 0, 0)
# Swift Testing: its summary, and one line per skipped test.
st_runs = re.findall(r"Test run with (\d+) tests?", text)
st_run = int(st_runs[-1]) if st_runs else 0
# Its per-test lines start with a symbol ("➜ Test f() skipped." / ': "reason"'); XCTest's start with "Test Case".
st_skipped = len(re.findall(r"^[^\sA-Za-z]\S* Test .+ skipped(?:\.|: .*)?$", text, re.MULTILINE))
run, skipped = xc_run + st_run, xc_skipped + st_skipped
print(f"tests: {run} executed ({xc_run} XCTest, {st_run} Swift Testing), {skipped} skipped, {xc_failed} XCTest failures")
if run == 0:
    print("test-count: no test ran", file=sys.stderr)
    sys.exit(1)
if skipped:
    for line in re.findall(r"^.*(?:skipped|Skipped).*$", text, re.MULTILINE)[:40]:
        print("  " + line.strip(), file=sys.stderr)
    print(f"test-count: {skipped} test(s) skipped; none may be (a test whose subject or peer is missing fails)",
          file=sys.stderr)
    sys.exit(1)
PY
