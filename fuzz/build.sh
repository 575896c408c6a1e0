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
if [[ "${1:-all}" == all ]]; then
    # Every target in one build: --product builds, one target at a time, plan the package four times and link one
    # product at a time (up to date, the four took 39 s, Hummingbird's modules compiled again); cold, one build took
    # 316 s against 344-367 s.
    nice -n 10 swift build "${flags[@]}"
else
    nice -n 10 swift build "${flags[@]}" --product "${products[0]}"
fi
bin="$(swift build "${flags[@]}" --show-bin-path)"
for product in "${products[@]}"; do
    cp "$bin/$product" "$here/build/$product"
    echo "built $here/build/$product"
done
