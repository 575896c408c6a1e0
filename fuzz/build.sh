#!/usr/bin/env bash
# Usage: fuzz/build.sh [gif|pixels|url|svg|all]   (default all) — builds the libFuzzer targets of fuzz/Package.swift with
# SwiftPM: release, AddressSanitizer on every module (Swift and C), libFuzzer's coverage on every Swift module,
# -enable-testing so the targets can reach internal API (@testable import). The binaries land in fuzz/build/
# (gif-fuzzer, pixels-fuzzer, url-fuzzer, svg-fuzzer); SwiftPM's own build folder is fuzz/.build, apart from the product's .build.
# Nothing lists library files here: the fuzz package links the library's modules as SwiftPM builds them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="/opt/swift/usr/bin:$PATH"
case "${1:-all}" in
    gif) products=(gif-fuzzer) ;;
    pixels) products=(pixels-fuzzer) ;;
    url) products=(url-fuzzer) ;;
    svg) products=(svg-fuzzer) ;;
    all) products=(gif-fuzzer pixels-fuzzer url-fuzzer svg-fuzzer) ;;
    *) echo "usage: $0 [gif|pixels|url|svg|all]" >&2; exit 2 ;;
esac
flags=(--package-path "$here" --build-path "$here/.build" -c release --sanitize=address
       -Xswiftc -sanitize=fuzzer -Xswiftc -enable-testing -Xswiftc -use-ld=lld)
mkdir -p "$here/build"
for product in "${products[@]}"; do
    nice -n 10 swift build "${flags[@]}" --product "$product"
    cp "$(swift build "${flags[@]}" --show-bin-path)/$product" "$here/build/$product"
    echo "built $here/build/$product"
done
