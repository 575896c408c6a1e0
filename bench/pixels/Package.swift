// swift-tools-version:6.0
// pixbench: DWWebImageProcessing alone (no HTTP, no cache) for bench/pixels/run — one thumbnail, or a directory of
// images on N threads. A separate package (depending on the library by path) so the library's Package.swift stays
// untouched.
import PackageDescription

let package = Package(
    name: "pixbench",
    dependencies: [.package(name: "DWWebImage", path: "../..")],
    targets: [
        .executableTarget(name: "pixbench",
                          dependencies: [.product(name: "DWWebImageProcessing", package: "DWWebImage")]),
    ],
    swiftLanguageModes: [.v6]
)
