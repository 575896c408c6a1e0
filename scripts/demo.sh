#!/usr/bin/env bash
# Builds dwfetch (release) and runs its built-in demo: an embedded loopback server, a cold fetch, then a warm one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
scripts/setup.sh
# --demo runs in dwfetch-demo (the pixel engines and the loopback sample server, not a shipped product), which
# dwfetch execs: build both. The Swift runtime is
# linked in (--static-swift-stdlib, how Swift tools ship on Linux): half the start-up pages and instructions of the
# shared runtime's (docs/performance.md, "Start-up").
for product in dwfetch dwfetch-demo; do
  swift build -c release --static-swift-stdlib --product "$product" 2>&1 | grep -E "error|warning: |Build of product" || true
done
exec .build/release/dwfetch --demo "$@"
