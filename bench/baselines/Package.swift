// swift-tools-version:6.0
// Swift baselines for bench/run: the same job as `dwfetch -j 6 -o DIR -i urls` (fetch every URL, write each body
// to DIR/<last path component>, 6 at a time) done with AsyncHTTPClient and with Foundation's URLSession.
// A separate package so the library's own build never pulls in SwiftNIO. Built by bench/run with
// `swift build -c release --scratch-path .build-baselines`.
import PackageDescription

let package = Package(
    name: "dwbaselines",
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
    ],
    targets: [
        .executableTarget(
            name: "dwbaseline",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
