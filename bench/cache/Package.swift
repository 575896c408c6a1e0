// swift-tools-version:6.0
// cachebench: DWWebImageCache hit latency and disk-hit throughput, for bench/cache/run.
// A separate package (depending on the library by path) so the library's Package.swift stays untouched.
import PackageDescription

let package = Package(
    name: "cachebench",
    dependencies: [.package(name: "DWWebImage", path: "../..")],
    targets: [
        .executableTarget(name: "cachebench", dependencies: [.product(name: "DWWebImage", package: "DWWebImage")]),
    ],
    swiftLanguageModes: [.v6]
)
