// Demo: `dwfetch --demo` (in dwfetch-demo) — an embedded loopback server with sample images, fetched cold and then
// warm.
import DWFetchCLI
import DWTestServer
import DWWebImage
import DWFileIO
import Foundation

/// Runs on the main thread; results are printed by the fetch runners' own queues.
struct Demo {
    let command: DWFetch
    /// The pixel stage and previewer of dwfetch-pixels (the demo honours --preview and the pixel flags too).
    let engines: DWFetchEngines

    /// The sample set: every format the library sniffs, an animation, and two that must fail cleanly.
    static func routes() -> [(path: String, route: Route, note: String)] {
        [
            (
                "/photos/cat.png", .ok(SampleImages.png(width: 640, height: 480, seed: 7), contentType: "image/png"),
                "PNG"
            ),
            ("/photos/dog.jpg", .ok(SampleImages.jpeg, contentType: "image/jpeg"), "JPEG"),
            ("/icons/still.gif", .ok(SampleImages.gif(width: 48, height: 48), contentType: "image/gif"), "static GIF"),
            (
                "/icons/spinner.gif",
                .ok(
                    SampleImages.gif(width: 64, height: 64, frames: 8, delayCentiseconds: 5, loopCount: 0),
                    contentType: "image/gif"), "animated GIF, loops forever"
            ),
            ("/photos/lossy.webp", .ok(SampleImages.webp, contentType: "image/webp"), "WebP (VP8)"),
            ("/photos/lossless.webp", .ok(SampleImages.webpLossless, contentType: "image/webp"), "WebP (VP8L)"),
            ("/scans/page.tiff", .ok(SampleImages.tiff(width: 120, height: 80), contentType: "image/tiff"), "TIFF"),
            (
                "/slow/banner.png",
                .throttled(
                    chunk: 64 * 1024, interval: 0.05,
                    .ok(SampleImages.png(width: 600, height: 400, seed: 3), contentType: "image/png")),
                "PNG, served slowly"
            ),
            (
                "/broken/not-an-image.png", .ok(SampleImages.notAnImage, contentType: "image/png"),
                "HTML served as PNG → 10000"
            ),
            ("/missing.png", .status(404), "404 → 10004")
        ]
    }

    func run() throws -> Int32 {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let samples = Self.routes()
        for sample in samples { server.setRoute(sample.path, sample.route) }
        let urls = samples.map { server.url($0.path) } + [server.url("/photos/cat.png")]  // named twice: fetched once

        let root =
            command.cacheDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-demo-\(getpid())")
        let cache = DWWebImageCache.shared
        cache.configuration.rootDirectory = root
        cache.cacheSpace = "demo"
        defer { if command.cacheDir == nil { try? FileManager.default.removeItem(at: root) } }
        var demoCommand = command
        demoCommand.retries = 0  // the failures here are permanent; don't wait for retries

        say("dwfetch demo: \(samples.count) samples served by an embedded HTTP server on \(server.baseURL)")
        say("cache: \(cache.directory.path)\n")
        say("1) cold: every image comes from the network (one URL is named twice and fetched once)")
        let cold = FetchRunner(command: demoCommand, manager: DWWebImageManager.shared, engines: engines).run(urls)
        let coldRequests = server.requestLog.count
        server.resetStatistics()

        say("\n2) warm: a new manager over the same cache directory — served from disk, no request sent")
        let warmManager = DWWebImageManager(cache: DWWebImageCache(rootDirectory: root, cacheSpace: "demo"))
        defer { warmManager.invalidate() }
        let warm = FetchRunner(command: demoCommand, manager: warmManager, engines: engines).run(urls)
        let warmRequests = server.requestLog.count

        say(
            String(
                format: "\ncold: %d requests, %.0f ms   warm: %d requests (failures are not cached), %.0f ms",
                coldRequests, cold.elapsed * 1000, warmRequests, warm.elapsed * 1000))
        // Two samples fail on purpose; the demo succeeds when exactly those fail, cold and warm, and the warm
        // run sends no request but theirs.
        let asExpected = cold.failed == 2 && warm.failed == 2 && warm.fetched == cold.fetched && warmRequests == 2
        say(
            asExpected
                ? "demo: everything behaved as expected (the two failures are deliberate)"
                : "demo: something did not behave as expected (see above)")
        return asExpected ? 0 : 1
    }

    private func say(_ text: String) {
        StandardStream.error.write(text + "\n")
    }
}
