#!/usr/bin/env bash
# Writes docs/usage/*.txt from the built dwfetch's own help: `dwfetch --help` into docs/usage/dwfetch.txt and, for
# every subcommand `dwfetch --help` lists, `dwfetch SUB --help` into docs/usage/SUB.txt. The docs show these files
# instead of hand-copied flag lists, so a flag added in Sources/DWFetchCLI reaches the docs by running this script.
#
#   scripts/gen-usage.sh            regenerate docs/usage/ (builds the dwfetch product first when it is missing)
#   scripts/gen-usage.sh --check    regenerate into a temporary directory and fail (exit 1) when the committed
#                                   files differ, printing the diff; nothing in docs/ is changed
#
# DWFETCH=path/to/dwfetch picks the binary (default .build/debug/dwfetch). Help is rendered at COLUMNS=120 so the
# text does not depend on the terminal it is run in.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "gen-usage: unknown argument '$1' (only --check)" >&2; exit 2 ;;
esac

dwfetch="${DWFETCH:-.build/debug/dwfetch}"
if [ ! -x "$dwfetch" ]; then
  if [ -n "${DWFETCH:-}" ]; then
    echo "gen-usage: DWFETCH=$DWFETCH is not an executable" >&2
    exit 1
  fi
  swift build --product dwfetch 2>&1 | grep -E "error|Build of product" || true
  [ -x "$dwfetch" ] || { echo "gen-usage: could not build $dwfetch" >&2; exit 1; }
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Help text as the user sees it, at a fixed width, trailing spaces removed (ArgumentParser pads some lines).
render() { COLUMNS=120 "$dwfetch" "$@" --help | sed 's/[[:space:]]*$//'; }

render >"$out/dwfetch.txt"
# The names under SUBCOMMANDS: in the root's help ("  serve   Serve images ..."), whatever they are.
# Only lines shaped like a subcommand entry (lower-case name, then two spaces or the end), so ArgumentParser's
# trailing "See 'dwfetch help <subcommand>'" note is not taken for one.
subcommands=$(awk '/^SUBCOMMANDS:/ { on = 1; next } on && /^[^ ]/ { on = 0 }
                   on && /^  [a-z][a-z0-9-]*(  |$)/ { print $1 }' "$out/dwfetch.txt")
for sub in $subcommands; do
  case "$sub" in help) continue ;; esac  # ArgumentParser's own `help` subcommand, if listed, says nothing new
  render "$sub" >"$out/$sub.txt"
done

if [ "$check" -eq 1 ]; then
  if diff -ru docs/usage "$out" >&2; then
    echo "gen-usage: docs/usage is up to date" >&2
    exit 0
  fi
  echo "gen-usage: docs/usage differs from the built dwfetch's --help; run scripts/gen-usage.sh and commit" >&2
  exit 1
fi

mkdir -p docs/usage
rm -f docs/usage/*.txt
cp "$out"/*.txt docs/usage/
echo "gen-usage: wrote $(ls docs/usage | tr '\n' ' ')" >&2
