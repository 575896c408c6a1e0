#!/usr/bin/env bash
# Builds fuzz/build/pixels-fuzzer: libFuzzer + AddressSanitizer over the processing path (DWWebImageProcessing on
# libvips, with the core's DWImage, sniffer and GIF decoder). The Swift sources are compiled as one module (copies
# without their `import DWWebImage`), the CVips and CTiff shims with clang, libvips and libtiff linked as they are
# (not instrumented).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$here/build"
src="$out/pixels-src"
mkdir -p "$out" "$src"
export PATH="/opt/swift/usr/bin:$PATH"
core="$root/Sources/DWWebImage"

swiftc -parse-as-library -O -g -sanitize=address -module-name DWLocking \
    -emit-module -emit-module-path "$out/DWLocking.swiftmodule" -emit-library -static \
    -o "$out/libDWLocking.a" "$root/Sources/DWLocking/DWLock.swift"

clang -O1 -g -fsanitize=address -c $(pkg-config --cflags vips) -I "$root/Sources/CVips/include" \
    "$root/Sources/CVips/CVips.c" -o "$out/CVips.o"
mkdir -p "$out/cvips-module"
cat > "$out/cvips-module/module.modulemap" <<MAP
module CVips {
    header "$root/Sources/CVips/include/CVips.h"
    export *
}
MAP

# The libtiff shim (CTiff: libtiff's RGBA reader for the TIFFs libvips refuses), the same way.
clang -O1 -g -fsanitize=address -c $(pkg-config --cflags libtiff-4) -I "$root/Sources/CTiff/include" \
    "$root/Sources/CTiff/CTiff.c" -o "$out/CTiff.o"
mkdir -p "$out/ctiff-module"
cat > "$out/ctiff-module/module.modulemap" <<MAP
module CTiff {
    header "$root/Sources/CTiff/include/CTiff.h"
    export *
}
MAP

rm -f "$src"/*.swift
for f in "$core/Image/ImageSniffer.swift" "$core/Image/DWImageFormat.swift" "$core/Image/DWImage.swift" \
         "$core/Image/DWBitmap.swift" "$core/Image/GIF/"*.swift "$core/Image/Animation/"*.swift \
         "$core/General/DWWebImageError.swift" \
         "$core/General/FileBytes.swift" "$core/Download/DWDownloadMetrics.swift" \
         "$core/Processing/DWImageProcessor.swift" \
         $(find "$root/Sources/DWWebImageProcessing" -name '*.swift'); do
    grep -v '^import DWWebImage$' "$f" > "$src/$(basename "$f")"
done
# DWImageSource lives beside the manager's token; the fuzzer needs only the type.
printf 'public enum DWImageSource: String, Sendable { case network, memory, disk, revalidated }\n' > "$src/Stubs.swift"

swiftc -parse-as-library -O -g -sanitize=fuzzer,address -swift-version 6 -module-name DWPixelsFuzz \
    -I "$out" -I "$root/Sources/CGif" -I "$out/cvips-module" -I "$out/ctiff-module" -I "$root/Sources/CWebP" \
    -L "$out" -lDWLocking -lgif -use-ld=lld "$src"/*.swift "$here/FuzzPixels.swift" "$out/CVips.o" "$out/CTiff.o" $(pkg-config --libs vips) \
    -ltiff -lgmodule-2.0 \
    -o "$out/pixels-fuzzer"
echo "built $out/pixels-fuzzer"
