#!/usr/bin/env bash
# Formats Swift code with the toolchain's swift-format and the repository's .swift-format (120 columns, 4 spaces).
#
#   scripts/format.sh [PATH...]          rewrites in place: the given paths, else the formatted folders below
#   scripts/format.sh --check [PATH...]  lints (changes nothing): the given paths, else Sources/ and Tests/;
#                                        exits 1 on any finding (scripts/test.sh runs this)
#
# What --check holds every file under Sources/ and Tests/ to: the rules .swift-format enables and swift-format's
# layout (its pretty printer: indentation, line breaks, spacing, 120 columns). Paths outside FORMATTED given to
# --check (bench/, fuzz/) are held to the rules only: swift-format cannot switch its layout findings off in the
# configuration (swiftlang/swift-format#764).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

FORMATTED=(Sources Tests)
# Files inside the formatted folders whose layout is not held yet (other branches were editing them when a folder
# was formatted, so it joined later). Empty now; add a file here only for the length of one merge.
PENDING=()
LAYOUT='AddLines|EndOfLineComment|Indentation|LineLength|RemoveLine|Spacing|TrailingComma|TrailingWhitespace'

check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
command -v swift-format >/dev/null || { echo "format: swift-format not found (it ships with the Swift toolchain)" >&2; exit 1; }

if [ "$check" -eq 0 ]; then
  paths=("$@")
  if [ ${#paths[@]} -eq 0 ]; then
    # The formatted folders' files, less the pending ones.
    mapfile -t paths < <(find "${FORMATTED[@]}" -name '*.swift' | grep -vxF -f <(printf '%s\n' "${PENDING[@]}") | sort)
  fi
  exec swift-format format --configuration .swift-format --in-place --parallel "${paths[@]}"
fi

paths=("$@")
[ ${#paths[@]} -eq 0 ] && paths=(Sources Tests)
findings=$(swift-format lint --configuration .swift-format --parallel --recursive "${paths[@]}" 2>&1 || true)
formatted_re=$(printf '%s/|' "${FORMATTED[@]}")
formatted_re="^(\./)?(${formatted_re%|})"
pending_re=$(printf '%s:|' "${PENDING[@]}")
pending_re="^(\./)?(${pending_re%|})"
kept=$(printf '%s\n' "$findings" | awk -v layout="\\[(${LAYOUT})\\]" -v formatted="$formatted_re" \
  -v pending="$pending_re" '
  /: (warning|error): / { if ($0 ~ layout && ($0 !~ formatted || $0 ~ pending)) next; print }')
if [ -n "$kept" ]; then
  printf '%s\n' "$kept"
  echo "format: $(printf '%s\n' "$kept" | wc -l) finding(s). Layout ones: run scripts/format.sh (it rewrites the" \
    "formatted folders, less the pending files) and commit; rule ones: fix by hand, or scripts/format.sh FILE" >&2
  exit 1
fi
echo "format: clean (rules over ${paths[*]}; layout over ${FORMATTED[*]}, less ${#PENDING[@]} pending files)"
