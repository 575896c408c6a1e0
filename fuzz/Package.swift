// swift-tools-version:6.0
// The libFuzzer targets, as a package of their own beside the product (never part of the normal build): they
// link the library's real modules through SwiftPM, so a moved or new file needs no change here. Built by
// fuzz/build.sh with AddressSanitizer and libFuzzer's coverage over every module (see fuzz/README.md).
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (this checkout's, whatever it is called).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let product = root.lastPathComponent.lowercased()

let package = Package(
    name: "DWWebImageFuzz",
    dependencies: [.package(path: root.path)],
    targets: [
        // libFuzzer's driver entry (LLVMFuzzerRunDriver), which each target's main.swift calls.
        .target(name: "CFuzzerDriver"),
        // ImageSniffer and the giflib GIF decoder (structure walk, compositing, buffered random access).
        .executableTarget(name: "gif-fuzzer", dependencies: ["CFuzzerDriver", .product(name: "DWWebImage", package: product)]),
        // The processing path: DWImage's checks, libvips' loaders, the BMP/ICO reader, frame sources, a transform chain.
        .executableTarget(
            name: "pixels-fuzzer",
            dependencies: [
                "CFuzzerDriver",
                .product(name: "DWWebImage", package: product),
                .product(name: "DWWebImageProcessing", package: product),
            ]
        ),
        // What `dwfetch serve` does with a request path before a fetch: the imgproxy URL parser, the signature check,
        // the result limits and the variant plan rendered on tiny images.
        .executableTarget(
            name: "url-fuzzer",
            dependencies: [
                "CFuzzerDriver",
                .product(name: "DWWebImage", package: product),
                .product(name: "DWWebImageProcessing", package: product),
                .product(name: "DWWebImageServer", package: product),
            ]
        ),
        // The SVG path with the server's limits: SVGGuard's scan, the size without a render, the sanitiser, and the
        // render in the helper process (this binary is its own helper).
        .executableTarget(
            name: "svg-fuzzer",
            dependencies: [
                "CFuzzerDriver",
                .product(name: "DWWebImage", package: product),
                .product(name: "DWWebImageProcessing", package: product),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
