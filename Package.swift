// swift-tools-version:6.1
// DWWebImage: image download-and-cache pipeline for Swift on Linux (libcurl multi, giflib, zlib), its processing on
// libvips, `dwfetch`, and `dwfetch serve` on Hummingbird 2.
import PackageDescription

let package = Package(
    name: "DWWebImage",
    products: [
        .library(name: "DWWebImage", targets: ["DWWebImage"]),
        .library(name: "DWWebImagePreview", targets: ["DWWebImagePreview"]),
        .library(name: "DWWebImageProcessing", targets: ["DWWebImageProcessing"]),
        .library(name: "DWWebImageServer", targets: ["DWWebImageServer"]),
        .library(name: "DWImageTransform", targets: ["DWImageTransform"]),
        // One executable per job (docs/design.md, "Executables"): the thin fetcher, and the engines it hands over to with execv.
        .executable(name: "dwfetch", targets: ["dwfetch"]),
        .executable(name: "dwfetch-pixels", targets: ["dwfetch-pixels"]),
        .executable(name: "dwfetch-serve", targets: ["dwfetch-serve"]),
        .executable(name: "dwfetch-svg", targets: ["dwfetch-svg"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        // NIOCore and NIOHTTPTypes: the server's per-connection drain (Lifecycle/DWConnectionDrain.swift, DWConnectionHandler.swift).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        // OpenTelemetry traces over OTLP/HTTP for `dwfetch serve` only (its gRPC trait is off: no gRPC stack to build).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // TOML for `dwfetch serve --origins FILE` only (toml++ behind a C API; linked by dwfetch-serve alone).
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0")
    ],
    targets: [
        // libcurl opened on first use (dlopen: a run answered from the cache maps none of its ~35 libraries) and typed
        // wrappers around its variadic calls; no policy lives in C. Needs libcurl's headers (libcurl4-openssl-dev).
        .target(
            name: "CCurlShim",
            cSettings: [.define("CURL_DISABLE_TYPECHECK")]
        ),
        // CRC-32C for cache entries (SSE4.2 where present, tables elsewhere); no policy lives in C.
        .target(name: "CChecksum"),
        // glibc's malloc tunables (mallopt) as typed calls: dwfetch's fetch runs keep freed memory (HeapTuning).
        .target(name: "CMalloc"),
        // zlib: gzip for cache entries, CRC-32 of version-1 entries.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // One lock type for every module, visible to ThreadSanitizer (see DWLock.swift).
        .target(name: "DWLocking"),
        // Files that appear complete or not at all (O_TMPFILE + linkat, else temp + rename): cache entries, `-o`.
        .target(name: "DWFileIO"),
        // SIGINT/SIGTERM/SIGHUP delivered to a dispatch queue, armed before `init` returns: dwfetch's runs, serve's
        // shutdown.
        .target(name: "DWSignals", dependencies: ["DWLocking"]),
        // giflib (frame decoding from memory through DGifOpen's read callback).
        .systemLibrary(name: "CGif", providers: [.apt(["libgif-dev"])]),
        .target(
            name: "DWWebImage",
            dependencies: [
                "CCurlShim",
                "CChecksum",
                "CZlib",
                "CGif",
                "DWLocking",
                "DWFileIO",
                .product(name: "Crypto", package: "swift-crypto")
            ]
        ),
        // libvips (Debian libvips-dev): its headers sit in /usr/include and need only GLib's include paths, so those come
        // from pkg-config gobject-2.0 (vips.pc also drags in OpenEXR's -pthread, which SwiftPM refuses with a warning);
        // CVips links vips, gobject, glib and gmodule itself. Seen only by the CVips C target.
        .systemLibrary(name: "CVipsSystem", pkgConfig: "gobject-2.0", providers: [.apt(["libvips-dev"])]),
        // Typed wrappers around libvips' variadic calls; libvips stays opaque to Swift and no policy lives in C.
        .target(
            name: "CVips", dependencies: ["CVipsSystem"],
            linkerSettings: [
                .linkedLibrary("vips"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0"),
                .linkedLibrary("gmodule-2.0")
            ]),
        // libtiff (Debian libtiff-dev, which libvips-dev pulls in): seen only by the CTiff C target.
        .systemLibrary(name: "CTiffSystem", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        // Typed wrappers around libtiff's RGBA reader over a memory buffer (for TIFFs libvips' tiffload refuses).
        .target(name: "CTiff", dependencies: ["CTiffSystem"], linkerSettings: [.linkedLibrary("tiff")]),
        // Decoding, processors and thumbnails on libvips: the engine behind the core's DWImageProcessor seam.
        // libwebp's WebPAnimDecoder composites animated WebP frames one at a time (DWAnimatedImage's WebP source).
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // libjpeg's compressor (Debian libjpeg-dev, which libvips-dev pulls in), run on the calling thread: the
        // engine's JPEG results in memory (Encoder+JPEG.swift). No policy lives in C.
        .target(name: "CJpeg", linkerSettings: [.linkedLibrary("jpeg")]),
        // imgproxy's vocabulary for a transform (DWTransform and its parts): a value, no engine, no server; shared by
        // the CLI (which parses flags into it without linking libvips), the engine and the server.
        .target(name: "DWImageTransform", dependencies: ["DWWebImage"]),
        .target(
            name: "DWWebImageProcessing",
            dependencies: ["DWWebImage", "DWImageTransform", "CVips", "CWebP", "CTiff", "CJpeg", "DWLocking"]
        ),
        // libchafa (pkg-config); only CChafa includes it.
        .systemLibrary(name: "CChafaSystem", pkgConfig: "chafa", providers: [.apt(["libchafa-dev"])]),
        // Typed wrappers over libchafa (config, symbols, modes, drawing, printing); no policy lives in C.
        .target(name: "CChafa", dependencies: ["CChafaSystem"]),
        // Images as terminal output (Unicode symbols in 24-bit/256/16 colours, sixels, kitty, iTerm2) on libchafa.
        .target(name: "DWWebImagePreview", dependencies: ["DWWebImage", "DWWebImageProcessing", "CChafa"]),
        // A programmable HTTP/1.1 server on 127.0.0.1: test fixtures, fault injection and `dwfetch --demo`.
        // Not a product: only this package's tests and dwfetch-demo (not a product either) link it.
        .target(name: "DWTestServer", dependencies: ["DWLocking"]),
        // Real peers for tests: Apache, lighttpd, Caddy, Python's http.server, nginx over TLS with a CA made by
        // openssl, tinyproxy, each started on 127.0.0.1 with a generated config; and a proxy that cuts downloads.
        .target(name: "DWTestPeers", dependencies: ["DWLocking"]),
        // openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) for serve's local:// files (glibc has no wrapper, Swift cannot
        // call the variadic syscall()); no policy lives in C.
        .target(name: "COpenBeneath"),
        // `dwfetch serve`: an imgproxy-compatible image proxy on Hummingbird 2 over the pipeline.
        .target(
            name: "DWWebImageServer",
            dependencies: [
                "CMalloc",
                "DWFileIO",
                "DWImageTransform",
                "COpenBeneath",
                "DWWebImage",
                "DWWebImageProcessing",
                "DWLocking",
                "DWSignals",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),  // connection limits (MaximumAvailableConnections)
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing")  // spans; a no-op unless bootstrapped
            ]
        ),
        // The version libvips' headers declare (a macro only: nothing links libvips), for the thin dwfetch's --version.
        .target(name: "CVipsVersion"),
        // Everything the dwfetch executables share: the whole argument tree (fetch flags, pixel and preview flags,
        // `serve`'s options), the fetch runner, output, signals and the hand-over to the engine executables. It links
        // only the core (libcurl, giflib, zlib): no libvips, libchafa, NIO or test server.
        .target(
            name: "DWFetchCLI",
            dependencies: [
                "DWWebImage",
                "DWImageTransform",
                "DWLocking",
                "DWFileIO",
                "DWSignals",
                "CVipsVersion",
                "CMalloc",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]
        ),
        // `dwfetch`: plain fetches; pixel flags, --preview and --demo execv dwfetch-pixels, `serve` dwfetch-serve.
        // Release links with lld: the functions a fetch and --version run (startup.order, made by bench/startup/order)
        // first and together (a cached fetch 3.9 MiB less resident, docs/performance.md, "Start-up"), and relocations
        // packed (DT_RELR). --no-warn-symbol-ordering: each rename of a start-up function leaves a name the link
        // lacks, one lld warning each (a list a few months old lacks a hundred or more), and
        // scripts/demo.sh's release build stays warning-free; a missing name costs pages, never a wrong binary.
        // bench/startup/run and bench/run say how many names the built binary lacks and ask for bench/startup/order
        // above 1 %.
        // Unsafe flags bar only the product holding them (this executable) from other packages, not the libraries.
        .executableTarget(
            name: "dwfetch", dependencies: ["DWFetchCLI"], exclude: ["startup.order"],
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker",
                        "--symbol-ordering-file=\(Context.packageDirectory)/Sources/dwfetch/startup.order",
                        "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"
                    ], .when(configuration: .release))
            ]),
        // The pixel engines of dwfetch: libvips (pixel flags, --verify) and libchafa (--preview).
        .target(
            name: "DWFetchPixels",
            dependencies: [
                "DWFileIO", "DWFetchCLI", "DWWebImage", "DWWebImageProcessing", "DWWebImagePreview", "DWLocking"
            ]
        ),
        // `dwfetch` with the pixel engines.
        .executableTarget(name: "dwfetch-pixels", dependencies: ["DWFetchCLI", "DWFetchPixels"]),
        // `dwfetch --demo`: the pixel engines and the loopback test server with sample images. Not a product, so the
        // test server never ships; `swift build --product dwfetch-demo` builds it (scripts/demo.sh does).
        .executableTarget(
            name: "dwfetch-demo",
            dependencies: ["DWFileIO", "DWFetchCLI", "DWFetchPixels", "DWTestServer", "DWWebImage"]),
        // The serve engine of dwfetch: `serve` and `warm` on DWWebImageServer (Hummingbird, libvips), with the flags
        // mapped onto its configuration, OpenTelemetry traces and the --origins file.
        .target(
            name: "DWFetchServe",
            dependencies: [
                "DWFileIO",
                "DWFetchCLI",
                "DWLocking",
                "DWWebImage",
                "DWWebImageServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OTel", package: "swift-otel"),  // traces, bootstrapped only when asked for
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "TOMLKit", package: "TOMLKit")  // --origins FILE
            ]
        ),
        // `dwfetch serve` and `dwfetch warm`.
        .executableTarget(name: "dwfetch-serve", dependencies: ["DWFetchCLI", "DWFetchServe"]),
        // The helper executable (DWHelperProcess): one librsvg render per process, under a CPU budget and a memory
        // limit (DWSVGRenderer), or one put-off AVIF/JPEG XL save at SCHED_IDLE (DWIdleEncoder).
        .executableTarget(name: "dwfetch-svg", dependencies: ["DWWebImageProcessing"]),
        // A QOI decoder and encoder registered through DWImageCodecs by the tests (not shipped in any product).
        .target(name: "DWTestCodecs", dependencies: ["DWWebImage", "DWLocking"], path: "Tests/DWTestCodecs"),
        // `dwfetch` with that QOI codec registered and every engine in one process (a hand-over to dwfetch-pixels
        // or dwfetch-serve would lose the codec): what an app embedding dwfetch with its own codec builds. For the
        // tests only: not a product, so no package that depends on this one can build it.
        .executableTarget(
            name: "dwfetch-qoi", dependencies: ["DWFetchCLI", "DWFetchPixels", "DWFetchServe", "DWTestCodecs"],
            path: "Tests/dwfetch-qoi"
        ),
        // What every test target shares: eventually, Result's value and error, the built executables' location.
        .target(name: "DWTestSupport", dependencies: ["DWLocking"], path: "Tests/DWTestSupport"),
        // Fixtures/ holds the format corpus; tests read it by path (#filePath), so it is not a resource bundle.
        .testTarget(
            name: "DWWebImageTests",
            dependencies: [
                "DWTestSupport", "DWWebImage", "DWTestServer", "DWTestPeers", "DWFileIO", "CChecksum", "DWTestCodecs"
            ],
            exclude: ["Fixtures"]
        ),
        // Real libchafa output, parsed back; sixels decoded by libsixel's tools.
        .testTarget(
            name: "DWWebImagePreviewTests",
            dependencies: ["DWTestSupport", "DWWebImagePreview", "DWWebImage", "DWWebImageProcessing", "DWTestServer"]),
        // Real libvips on real files (made in the tests, or with Pillow where it is installed).
        .testTarget(
            name: "DWWebImageProcessingTests",
            dependencies: [
                "DWTestSupport", "DWWebImageProcessing", "DWWebImage", "DWTestServer", "DWLocking", "DWTestCodecs"
            ],
            exclude: ["Fixtures"]
        ),
        // Spawns the built `dwfetch` against the in-process server (build it first: scripts/test.sh does).
        .testTarget(
            name: "DWFetchTests",
            // DWSignals: SignalWatchTests run the signal watch in-process; the rest spawn the built executables.
            dependencies: [
                "DWTestSupport", "DWFetchCLI", "DWSignals", "DWTestServer", "DWTestPeers", "DWTestCodecs",
                .product(name: "Crypto", package: "swift-crypto")
            ]
        ),
        // The server in-process: its pure logic (URL parsers of both dialects, signer, CIDR, address policy, negotiation,
        // status mapping, result limits, the work gate), imgproxy's options through the plan into real libvips pixels,
        // and the routes through HummingbirdTesting's router framework: no process, no socket.
        .testTarget(
            name: "DWWebImageServerTests",
            dependencies: [
                "DWTestSupport", "DWWebImageServer", "DWWebImage", "DWWebImageProcessing", "DWTestServer",
                "DWTestPeers",
                "DWLocking", "DWTestCodecs",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird")
            ]
        ),
        // Spawns the built `dwfetch serve` and talks HTTP to it, with DWTestServer as the origin.
        .testTarget(
            name: "DWServeProcessTests",
            dependencies: [
                "DWTestSupport", "DWTestServer", "DWTestPeers", "DWLocking",
                .product(name: "Crypto", package: "swift-crypto")
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
