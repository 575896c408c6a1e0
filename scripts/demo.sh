#!/usr/bin/env bash
# Builds dwfetch (release) and runs its built-in demo: an embedded loopback server, a cold fetch, then a warm one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
scripts/setup.sh
swift build -c release --product dwfetch 2>&1 | grep -E "error|warning: |Compiling dwfetch|Build complete" || true
exec .build/release/dwfetch --demo "$@"
