// Animations by budget through the built `dwfetch serve`: without --max-animation-frames an animation keeps every
// frame while frames × result pixels fit --max-result-pixels, else its first frame with `X-Frames-Dropped: N`, from
// whichever cache the variant comes; --max-animation-frames (or its variable) is imgproxy's rule, with no header.
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class AnimationBudgetTests: ServeTestCase {
    func testAnAnimationWithinTheBudgetKeepsEveryFrameByDefault() throws {
        origin.setRoute("/a.gif", .ok(SampleImages.gif(width: 40, height: 20, frames: 3, delayCentiseconds: 20)))
        let server = try serve()
        for (options, expected) in [("w:20", "GIF 20x10 3"), ("w:20/f:webp", "WEBP 20x10 3"), ("", "GIF 40x20 3")] {
            let response = try server.get(ProxyPath.plain(origin.url("/a.gif"), options: options))
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(try frames(response.body), expected, "options '\(options)': every frame")
            XCTAssertNil(response.header("X-Frames-Dropped"), "options '\(options)': nothing dropped")
        }
    }

    /// The budget is judged on the result: 5 frames of 8×8 (320 pixels) are over a 200-pixel budget, 5 frames of 4×4
    /// (80) within it. The count is known on every later answer: from memory, and from the disk after a restart.
    func testOverTheBudgetTheFirstFrameAndTheDroppedCountFromEveryCache() throws {
        origin.setRoute("/b.gif", .ok(SampleImages.gif(width: 8, height: 8, frames: 5)))
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("dwserve-fb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let args = ["--allow-network", "127.0.0.1/32", "--max-result-pixels", "200"]
        let first = try ServeProcess(args, cacheDir: cache)
        defer { first.stop(signal: SIGKILL) }
        let over = ProxyPath.plain(origin.url("/b.gif"), options: "w:8"),
            within = ProxyPath.plain(origin.url("/b.gif"), options: "w:4")
        for answer in ["made", "from memory"] {
            let response = try first.get(over)
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(try frames(response.body), "GIF 8x8 1", answer)
            XCTAssertEqual(response.header("X-Frames-Dropped"), "4", answer)
        }
        let small = try first.get(within)
        XCTAssertEqual(try frames(small.body), "GIF 4x4 5", "within the budget at 4×4")
        XCTAssertNil(small.header("X-Frames-Dropped"))
        XCTAssertEqual(first.stop(), 0)
        let second = try ServeProcess(args, cacheDir: cache)
        defer { second.stop(signal: SIGKILL) }
        let fromDisk = try second.get(over)
        XCTAssertEqual(try frames(fromDisk.body), "GIF 8x8 1")
        XCTAssertEqual(fromDisk.header("X-Frames-Dropped"), "4", "from the disk cache")
        XCTAssertNil(try second.get(within).header("X-Frames-Dropped"))
        XCTAssertEqual(origin.requestCount(path: "/b.gif"), 1, "the restarted server answered from its disk cache")
        XCTAssertEqual(second.stop(), 0)
        // Another budget is another cache policy: nothing made under the old one is served.
        let larger = try ServeProcess(
            ["--allow-network", "127.0.0.1/32", "--max-result-pixels", "1000"], cacheDir: cache)
        defer { larger.stop(signal: SIGKILL) }
        let remade = try larger.get(over)
        XCTAssertEqual(try frames(remade.body), "GIF 8x8 5", "320 pixels fit 1000")
        XCTAssertNil(remade.header("X-Frames-Dropped"))
        XCTAssertEqual(origin.requestCount(path: "/b.gif"), 2, "the cache space was emptied")
    }

    /// Through `--result-storage` (moto's S3): an instance that never saw the source answers with the count too.
    func testTheDroppedCountIsSharedThroughResultStorage() throws {
        origin.setRoute("/d.gif", .ok(SampleImages.gif(width: 8, height: 8, frames: 5)))
        let moto = try MotoS3(bucket: "images", objects: [:])
        defer { moto.stop() }
        let flags = [
            "--s3-endpoint", moto.endpoint, "--result-storage", "s3://images/variants", "--max-result-pixels", "200"
        ]
        let a = try serve(flags, environment: moto.environment)
        let b = try serve(flags, environment: moto.environment)
        let path = ProxyPath.plain(origin.url("/d.gif"), options: "w:8")
        let made = try a.get(path)
        XCTAssertEqual(made.header("X-Frames-Dropped"), "4", made.text)
        XCTAssertTrue(
            try eventually(timeout: 10, interval: 0.05) {
                try a.metric(#"dwserve_result_storage_total{outcome="stored"}"#) == 2
            }, "A stored the variant and its count: \(a.stderr)")
        let shared = try b.get(path)
        XCTAssertEqual(shared.status, 200, shared.text)
        XCTAssertEqual(shared.body, made.body)
        XCTAssertEqual(shared.header("X-Frames-Dropped"), "4", "from the result storage")
        XCTAssertEqual(try b.metric("dwserve_transforms_total"), 0, "B made nothing")
        XCTAssertEqual(origin.requestCount(path: "/d.gif"), 1, "only A fetched the source")
        XCTAssertEqual(try b.get(path).header("X-Frames-Dropped"), "4", "then from B's own cache")
    }

    /// `dwfetch warm` stores the count beside the variant it writes: serve's first answer (a store hit) says it.
    func testWarmStoresTheDroppedCount() throws {
        origin.setRoute("/e.gif", .ok(SampleImages.gif(width: 8, height: 8, frames: 5)))
        let moto = try MotoS3(bucket: "results")
        defer { moto.stop() }
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("warm-\(UUID().uuidString).txt")
        try (origin.url("/e.gif") + "\n").write(to: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        let flags = [
            "--allow-network", "127.0.0.1/32", "--s3-endpoint", moto.endpoint, "--result-storage",
            "s3://results/variants", "--preset", "thumb=w:8", "--max-result-pixels", "200"
        ]
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("dwwarm-fb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let warm = try ProcessRun.run(
            ServeProcess.binary.path, ["warm", "--cache-dir", cache.path, "-i", list.path] + flags,
            environment: moto.environment)
        XCTAssertEqual(warm.status, 0, warm.output + warm.errors)
        XCTAssertEqual(try moto.objects(prefix: "variants/").count, 2, "the variant and its count")
        let server = try serve(flags, allowOrigin: false, environment: moto.environment)
        let answer = try server.get(ProxyPath.plain(origin.url("/e.gif"), options: "pr:thumb"))
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.header("X-Frames-Dropped"), "4")
        XCTAssertEqual(origin.requestCount(path: "/e.gif"), 1, "only warm fetched the source")
    }

    /// `--max-animation-frames 1` (and `IMGPROXY_MAX_ANIMATION_FRAMES=1`) is imgproxy's default: the first frame,
    /// however small the animation, and no header (imgproxy sends none).
    func testMaxAnimationFramesOneKeepsTheFirstFrameWithoutTheHeader() throws {
        origin.setRoute("/c.gif", .ok(SampleImages.gif(width: 8, height: 8, frames: 3)))
        let flag = try serve(["--max-animation-frames", "1"])
        let variable = try serve(environment: ["IMGPROXY_MAX_ANIMATION_FRAMES": "1"])
        let two = try serve(["--max-animation-frames", "2"])
        for (server, expected) in [(flag, "GIF 8x8 1"), (variable, "GIF 8x8 1"), (two, "GIF 8x8 2")] {
            let response = try server.get(ProxyPath.plain(origin.url("/c.gif"), options: "w:8"))
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(try frames(response.body), expected)
            XCTAssertNil(response.header("X-Frames-Dropped"), "imgproxy's rule: no header")
        }
    }

    /// "FORMAT WxH frames" as Pillow reads an animation.
    private func frames(_ data: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwfb-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try python(
            "from PIL import Image; im = Image.open('\(file.path)'); "
                + "print(im.format, '%dx%d' % im.size, getattr(im, 'n_frames', 1))")
    }
}
