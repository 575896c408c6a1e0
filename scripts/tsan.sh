#!/usr/bin/env bash
# Usage: scripts/tsan.sh [swift test arguments, e.g. --filter ServeTests]
# ThreadSanitizer over the whole suite (not in CI: a cold build takes most of an hour on 2 shared cores, and the
# instrumented run several times the plain one). Builds every target with -sanitize=thread in its own scratch
# directory (.build-tsan: the plain .build is untouched), runs the tests, then prints each distinct report once with
# how often it came: its kind and the first frames in our code (Sources/ or Tests/) of the accesses that race.
# The test log is kept in .build-tsan/tsan.log, the reports in .build-tsan/reports/. Exits non-zero when the build
# fails, a test fails, or TSan reported anything.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
log=.build-tsan/tsan.log
mkdir -p .build-tsan
if ! nice -n 10 swift build --build-tests --sanitize=thread --scratch-path .build-tsan \
    > .build-tsan/build.log 2>&1; then
    grep -E "error:" .build-tsan/build.log | head -20 >&2
    echo "tsan: the build failed (.build-tsan/build.log)" >&2
    exit 1
fi
grep "Build complete" .build-tsan/build.log || true
# Every instrumented process — the test bundle and each `dwfetch serve` the server tests start (its stderr is a
# temporary file) — writes its reports to .build-tsan/reports/tsan.PID; the process keeps going after one.
reports=.build-tsan/reports
rm -rf "$reports"; mkdir -p "$reports"
export TSAN_OPTIONS="halt_on_error=0:log_path=$(pwd)/$reports/tsan:${TSAN_OPTIONS:-}"
status=0
nice -n 10 swift test --skip-build --sanitize=thread --scratch-path .build-tsan "$@" > "$log" 2>&1 || status=$?
tsan=0
python3 - "$log" "$reports" <<'PY' || tsan=1
import glob, os, re, sys
text = "".join(open(p, errors="replace").read() for p in [sys.argv[1]] + glob.glob(sys.argv[2] + "/tsan.*"))
root = re.escape(os.getcwd())
reports = re.findall(r"WARNING: ThreadSanitizer: (.*?)\n(.*?)\nSUMMARY: ThreadSanitizer: [^\n]*", text, re.S)
seen = {}
for kind, body in reports:
    ours = re.findall(rf"#\d+ (\S+) ({root}/(?:Sources|Tests)/[^\s:]+:\d+)", body)
    key = (kind.split(" (")[0], tuple(p for _, p in ours[:2]))
    seen.setdefault(key, [0, ours[:4]])[0] += 1
for (kind, _), (count, frames) in seen.items():
    where = "; ".join(f"{fn} at {os.path.relpath(path)}" for fn, path in frames) or "no frame in our code"
    print(f"tsan: {kind} x{count}: {where}")
print(f"tsan: {len(reports)} reports, {len(seen)} distinct")
sys.exit(1 if reports else 0)
PY
tail -n 5 "$log"
[[ $status -eq 0 && $tsan -eq 0 ]]
