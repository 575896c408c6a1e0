// swift-tools-version:6.0
// gifbench: decodes every frame of GIF files to RGBA with DWWebImage's giflib decoder, for bench/gif/run.
// A separate package (depending on the library by path) so the library's Package.swift stays untouched.
import PackageDescription

let package = Package(
    name: "gifbench",
    dependencies: [.package(name: "DWWebImage", path: "../..")],
    targets: [
        .executableTarget(name: "gifbench", dependencies: [.product(name: "DWWebImage", package: "DWWebImage")]),
    ],
    swiftLanguageModes: [.v6]
)
