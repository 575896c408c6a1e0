#!/usr/bin/env bash
# Runs the whole test suite: installs missing Debian packages, builds with zero warnings allowed in our own
# code, then runs every test (real libcurl against loopback servers).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
scripts/setup.sh

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
swift test --skip-build "$@"
