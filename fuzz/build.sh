#!/usr/bin/env bash
# Builds fuzz/build/gif-fuzzer: libFuzzer + AddressSanitizer over ImageSniffer and the GIF decoder.
# The library's sniffer and GIF files are compiled standalone (no curl, no Crypto): DWLocking as its own module,
# giflib through Sources/CGif's module map.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$here/build"
mkdir -p "$out"
export PATH="/opt/swift/usr/bin:$PATH"
src="$root/Sources/DWWebImage"

swiftc -parse-as-library -O -g -sanitize=address -module-name DWLocking \
    -emit-module -emit-module-path "$out/DWLocking.swiftmodule" -emit-library -static \
    -o "$out/libDWLocking.a" "$root/Sources/DWLocking/DWLock.swift"

swiftc -parse-as-library -O -g -sanitize=fuzzer,address -swift-version 6 -module-name DWGIFFuzz \
    -I "$out" -I "$root/Sources/CGif" -L "$out" -lDWLocking -lgif -use-ld=lld \
    "$src/Image/ImageSniffer.swift" "$src/Image/DWImageFormat.swift" "$src/General/DWWebImageError.swift" \
    "$src"/Image/GIF/GIFSession.swift "$src"/Image/GIF/GIFIndex.swift "$src"/Image/GIF/GIFCanvas.swift \
    "$src"/Image/GIF/GIFFrameSource.swift "$src"/Image/Animation/DWAnimatedImage.swift \
    "$src"/Image/Animation/DWAnimatedFrameSource.swift "$src/General/FileBytes.swift" "$here/FuzzGIF.swift" \
    -o "$out/gif-fuzzer"
echo "built $out/gif-fuzzer"
