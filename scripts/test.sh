#!/usr/bin/env bash
# Runs the whole test suite: installs missing Debian packages, builds with zero warnings allowed in our own
# code, then runs every test (real libcurl against loopback servers).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
scripts/setup.sh
scripts/check-size.sh  # no Swift file over 500 lines, no function over 80 (every target under Sources/, Tests/)
scripts/format.sh --check  # .swift-format's rules everywhere, swift-format's layout where formatted

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift build --build-tests 2>&1 | tee "$log" | grep -E "error:|Build complete" ; then :; fi
if grep -q "error:" "$log"; then
  echo "test: build failed" >&2
  exit 1
fi
own_warnings=$(grep -E "^$(pwd)/(Sources|Tests)/.*warning:" "$log" | sort -u || true)
if [ -n "$own_warnings" ]; then
  echo "$own_warnings" >&2
  echo "test: the build has warnings in our own code (zero allowed)" >&2
  exit 1
fi
# No test may be skipped: print what ran and fail on any skip (scripts/test-count.sh reads XCTest's and Swift
# Testing's summaries). The exit status of `swift test` itself still decides first.
test_log=$(mktemp)
trap 'rm -f "$log" "$test_log"' EXIT
status=0
swift test --skip-build "$@" 2>&1 | tee "$test_log" || status=$?
scripts/test-count.sh "$test_log" || { [ "$status" -ne 0 ] || status=1; }
# The usage blocks in docs/usage/ are dwfetch's own --help (scripts/gen-usage.sh writes them).
scripts/gen-usage.sh --check || status=1
# The chaos soak (scripts/soak.sh: 2 minutes against misbehaving origins, on the debug dwfetch built above) and
# half a minute of each fuzzer (fuzz/run-ci.sh: builds them, fuzzes copies of the committed corpora under $TMPDIR). A failed
# invariant or a crash fails the run.
DWFETCH_BIN="$(swift build --show-bin-path)/dwfetch" scripts/soak.sh 2 || status=1
fuzz/run-ci.sh 30 || status=1
exit "$status"
