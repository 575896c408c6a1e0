// dwfetch and animated APNG / WebP / GIF: the --json facts (frames, loop count, duration) and processing that
// keeps animating (--resize on an APNG gives an animated WebP, --format gif an animated GIF) — real dwfetch,
// loopback server, files made by Pillow (DWWebImageProcessingTests/Fixtures/make_animations.py).
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class AnimatedFetchTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var root: URL!
    private static let fixtures = SourceTree.processingFixtures

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-anim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // make_animations.py needs Pillow (scripts/setup.sh installs it)
        _ = try Python.system.run(
            ["-W", "ignore", Self.fixtures.appendingPathComponent("make_animations.py").path, root.path])
        server.setRoute(
            "/a.png",
            .ok(
                try Data(contentsOf: root.appendingPathComponent("apng_rgba.png")),
                contentType: "image/png"))
        server.setRoute(
            "/a.webp",
            .ok(
                try Data(contentsOf: root.appendingPathComponent("webp_anim.webp")),
                contentType: "image/webp"))
        server.setRoute(
            "/a.gif",
            .ok(
                try Data(contentsOf: Self.fixtures.appendingPathComponent("anim12.gif")),
                contentType: "image/gif"))
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    private func fetch(_ args: [String]) throws -> [String: Any] {
        let run = try DWFetchProcess.run(
            ["--cache-dir", root.appendingPathComponent("cache").path, "--retries", "0"] + args)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json().first)
    }

    /// Pillow's delays (ms), with browsers' rule: 10 ms or less is 100 ms.
    private func pillowDuration(_ name: String) throws -> Int {
        let facts = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: root.appendingPathComponent("\(name).json"))) as? [String: Any])
        return Int((facts["delays_ms"] as? [Double] ?? []).reduce(0) { $0 + ($1 <= 10 ? 100 : $1) })
    }

    func testJSONReportsFramesLoopCountAndDurationOfAllThreeFormats() throws {
        let gifDelays = try XCTUnwrap(
            (JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixtures.appendingPathComponent("expected.json")))
                as? [String: [String: Any]])?["anim12.gif"]?["delays_ms"] as? [Int])
        let cases: [(String, String, Int, Int, Int)] = [
            ("/a.png", "png", 6, 3, try pillowDuration("apng_rgba")),
            ("/a.webp", "webp", 6, 2, try pillowDuration("webp_anim")),
            ("/a.gif", "gif", 12, 3, gifDelays.reduce(0) { $0 + ($1 <= 10 ? 100 : $1) })
        ]
        for (path, format, frames, loops, duration) in cases {
            let line = try fetch(["--json", server.url(path)])
            XCTAssertEqual(line["format"] as? String, format, path)
            XCTAssertEqual(line["frames"] as? Int, frames, path)
            XCTAssertEqual(line["loop_count"] as? Int, loops, path)
            XCTAssertEqual(line["duration_ms"] as? Int, duration, path)
        }
    }

    func testResizeKeepsAnimatingAPNGAsWebPAndWebPAsWebP() throws {
        for (path, loops) in [("/a.png", 3), ("/a.webp", 2)] {
            let out = root.appendingPathComponent("out\(loops)")
            let line = try fetch(["--json", "-o", out.path, "--resize", "20x", server.url(path)])
            XCTAssertEqual(line["format"] as? String, "webp", path)
            XCTAssertEqual(line["source_format"] as? String, path.hasSuffix("png") ? "png" : "webp", path)
            XCTAssertEqual([line["width"] as? Int, line["height"] as? Int], [20, 15], path)
            XCTAssertEqual(line["frames"] as? Int, 6, path)
            XCTAssertEqual(line["loop_count"] as? Int, loops, path)
            XCTAssertEqual(
                line["duration_ms"] as? Int, try pillowDuration(path.hasSuffix("png") ? "apng_rgba" : "webp_anim"))
            let written = try XCTUnwrap(line["path"] as? String)
            XCTAssertTrue(written.hasSuffix(".webp"), written)
        }
        let gif = try fetch(["--json", "--resize", "20x", "--format", "gif", server.url("/a.png")])
        XCTAssertEqual(gif["format"] as? String, "gif")
        XCTAssertEqual(gif["frames"] as? Int, 6)
        XCTAssertEqual(gif["loop_count"] as? Int, 2, "3 plays: NETSCAPE2.0 value 2, which browsers play 3 times")
    }
}
