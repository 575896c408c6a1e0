// dwfetch's pixel flags: --resize/--fill/--format/--quality/--blur/--grayscale/--round/--tint/--verify, the -o file,
// the JSON fields of a processed image, and usage errors — real dwfetch, real libvips, loopback server.
import Crypto
import DWTestServer
import DWTestSupport
import DWWebImage
import Foundation
import XCTest

final class DWFetchPixelsTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var root: URL!
    private static let fixtures = SourceTree.processingFixtures

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-pixels-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let jpeg = try Data(contentsOf: Self.fixtures.appendingPathComponent("q.jpg"))  // 64×48
        let gif = try Data(contentsOf: Self.fixtures.appendingPathComponent("anim12.gif"))  // 40×30, 12 frames, loop 3
        server.setRoute("/photo.jpg", .ok(jpeg, contentType: "image/jpeg"))
        server.setRoute("/anim.gif", .ok(gif, contentType: "image/gif"))
        server.setRoute("/cat.png", .ok(SampleImages.png(width: 64, height: 48, seed: 1), contentType: "image/png"))
        // A bigger JPEG cut at 60%: the header is valid, the body is not.
        let big = try Data(contentsOf: Self.fixtures.appendingPathComponent("orient1.jpg"))
        server.setRoute("/cut.jpg", .ok(big.prefix(big.count * 6 / 10), contentType: "image/jpeg"))
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    private func fetch(_ args: [String]) throws -> FetchRun {
        try DWFetchProcess.run(["--cache-dir", root.appendingPathComponent("cache").path, "--retries", "0"] + args)
    }

    func testResizeAndConvertWritesTheProcessedImageAndDescribesIt() throws {
        let out = root.appendingPathComponent("out")
        let run = try fetch([
            "--json", "-o", out.path, "--resize", "32x", "--format", "webp", "--quality", "70",
            server.url("/photo.jpg")
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let line = try XCTUnwrap(run.json().first)
        XCTAssertEqual(line["ok"] as? Bool, true)
        XCTAssertEqual(line["format"] as? String, "webp")
        XCTAssertEqual(line["width"] as? Int, 32)
        XCTAssertEqual(line["height"] as? Int, 24)
        XCTAssertEqual(line["source_format"] as? String, "jpeg")
        XCTAssertEqual(line["source_width"] as? Int, 64)
        XCTAssertEqual(line["source_height"] as? Int, 48)
        XCTAssertEqual(line["variant"] as? String, "plan(w:32/f:webp/q:70)")
        let path = try XCTUnwrap(line["path"] as? String)
        XCTAssertEqual(path, out.appendingPathComponent("photo.webp").path, "the extension follows the format")
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(Array(written.prefix(4)), Array("RIFF".utf8))
        XCTAssertEqual(line["bytes"] as? Int, written.count)
        XCTAssertEqual(
            line["sha256"] as? String, SHA256.hash(data: written).map { String(format: "%02x", $0) }.joined())
    }

    func testFillGivesExactlyTheBoxAndRoundMakesPNG() throws {
        let run = try fetch([
            "--json", "-o", root.appendingPathComponent("o").path, "--resize", "20x20", "--fill",
            "--round", "10", server.url("/photo.jpg")
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let line = try XCTUnwrap(run.json().first)
        XCTAssertEqual([line["width"] as? Int, line["height"] as? Int], [20, 20])
        XCTAssertEqual(line["format"] as? String, "png", "round corners need alpha: JPEG becomes PNG")
        XCTAssertTrue((line["path"] as? String)?.hasSuffix("/photo.png") ?? false)
    }

    func testAnimatedGIFKeepsFramesAndLoopThroughResize() throws {
        let run = try fetch(["--json", "--resize", "20x", "--grayscale", server.url("/anim.gif")])
        XCTAssertEqual(run.status, 0, run.stderr)
        let line = try XCTUnwrap(run.json().first)
        XCTAssertEqual(line["format"] as? String, "gif")
        XCTAssertEqual(line["frames"] as? Int, 12)
        XCTAssertEqual(line["loop_count"] as? Int, 3)
        XCTAssertEqual([line["width"] as? Int, line["height"] as? Int], [20, 15])
    }

    func testEveryFlagTogether() throws {
        let run = try fetch([
            "--json", "--resize", "x24", "--blur", "1.5", "--grayscale", "--tint", "ff000080",
            "--round", "4", "--format", "avif", "--quality", "50", server.url("/cat.png")
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let line = try XCTUnwrap(run.json().first)
        XCTAssertEqual(line["format"] as? String, "avif")
        XCTAssertEqual([line["width"] as? Int, line["height"] as? Int], [32, 24])
        XCTAssertEqual(
            line["variant"] as? String,
            "plan(h:24/bl:1.5/grayscale/tint:1:0:0:0.5019607843137255/round:4/f:avif/q:50)")
    }

    /// A JPEG cut after a valid header is "ok" without --verify (the header is all that is checked) and 10000 with
    /// it, and with any processing.
    func testVerifyRejectsATruncatedBody() throws {
        let plain = try XCTUnwrap(fetch(["--json", "--no-cache", server.url("/cut.jpg")]).json().first)
        XCTAssertEqual(plain["ok"] as? Bool, true)
        for flags in [["--verify"], ["--resize", "16x"]] {
            let run = try fetch(["--json", "--no-cache"] + flags + [server.url("/cut.jpg")])
            XCTAssertEqual(run.status, 1, "\(flags)")
            let line = try XCTUnwrap(run.json().first)
            XCTAssertEqual(line["ok"] as? Bool, false, "\(flags)")
            let error = try XCTUnwrap(line["error"] as? [String: Any])
            XCTAssertEqual(error["code"] as? Int, 10000, "\(flags)")
            XCTAssertTrue((error["message"] as? String)?.contains("Premature end") ?? false, "\(error)")
        }
        let whole = try fetch(["--json", "--verify", server.url("/photo.jpg")])
        XCTAssertEqual(whole.status, 0, whole.stderr)
    }

    /// Netpbm through the real dwfetch: sniffed (--json names it), verified (a cut PPM refused) and resized to PNG.
    func testPPMIsVerifiedAndResized() throws {
        var ppm = Array("P6\n# dwfetch\n8 6\n255\n".utf8)
        for i in 0..<48 { ppm += [UInt8(i * 5), 90, UInt8(255 - i * 5)] }
        server.setRoute("/a.ppm", .ok(Data(ppm)))
        server.setRoute("/cut.ppm", .ok(Data(ppm.dropLast(20))))
        let whole = try fetch(["--json", "--no-cache", "--verify", server.url("/a.ppm")])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        let line = try XCTUnwrap(whole.json().first)
        XCTAssertEqual(line["format"] as? String, "pnm")
        XCTAssertEqual([line["width"] as? Int, line["height"] as? Int], [8, 6])
        let cut = try fetch(["--json", "--no-cache", "--verify", server.url("/cut.ppm")])
        XCTAssertEqual(cut.status, 1, cut.stderr)
        XCTAssertEqual((try XCTUnwrap(cut.json().first)["error"] as? [String: Any])?["code"] as? Int, 10000)
        let small = try XCTUnwrap(fetch(["--json", "--no-cache", "--resize", "4x", server.url("/a.ppm")]).json().first)
        XCTAssertEqual(small["format"] as? String, "png", "libvips does not write PNM")
        XCTAssertEqual([small["width"] as? Int, small["height"] as? Int], [4, 3])
    }

    /// The variant goes through the manager's pipeline: a second run of the same variant makes no request and still
    /// reports the original's facts (from the cached original); another variant of the cached URL makes none either.
    func testVariantsComeFromTheCacheWithoutRequests() throws {
        let first = try XCTUnwrap(fetch(["--json", "--resize", "16x", server.url("/photo.jpg")]).json().first)
        XCTAssertEqual(first["source"] as? String, "network")
        XCTAssertEqual(server.requestCount(path: "/photo.jpg"), 1)
        for flags in [["--resize", "16x"], ["--resize", "8x", "--format", "png"]] {
            let line = try XCTUnwrap(fetch(["--json"] + flags + [server.url("/photo.jpg")]).json().first)
            XCTAssertEqual(line["ok"] as? Bool, true, "\(flags)")
            XCTAssertEqual(line["source"] as? String, "disk", "\(flags)")
            XCTAssertEqual(line["source_format"] as? String, "jpeg", "\(flags)")
            XCTAssertEqual(line["source_width"] as? Int, 64, "\(flags)")
        }
        XCTAssertEqual(server.requestCount(path: "/photo.jpg"), 1, "no request after the first")
    }

    /// A cached variant's JSON line reads only the first bytes of the cached original: a byte flipped far past them
    /// (which reading the entry whole would check and refuse) leaves the original's facts in the line.
    func testACachedVariantReadsOnlyTheOriginalsFirstBytes() throws {
        // 8×8, padded after its pixels (a private chunk before IEND), so that its first 64 KiB tell what it is.
        let base = SampleImages.png(width: 8, height: 8, seed: 3)
        let filler = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        var chunk = Data([0, 0x03, 0x0D, 0x40]) + Data("prVt".utf8) + Data(filler)  // length 200,000, big-endian
        let crc = SampleImages.crc32(Array("prVt".utf8) + filler)
        chunk += Data([24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> UInt32($0)) })
        let original = base.dropLast(12) + chunk + base.suffix(12)
        server.setRoute("/padded.png", .ok(original, contentType: "image/png"))
        let url = server.url("/padded.png")
        XCTAssertEqual(try fetch(["--json", "--resize", "4x", url]).status, 0)
        let file = DWWebImageCache(rootDirectory: root.appendingPathComponent("cache")).fileURL(forKey: url)
        let handle = try FileHandle(forUpdating: file)
        try handle.seek(toOffset: 150_000)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: 150_000)
        handle.write(Data([byte ^ 0xFF]))
        try handle.close()
        let line = try XCTUnwrap(fetch(["--json", "--resize", "4x", url]).json().first)
        XCTAssertEqual(line["source"] as? String, "disk")
        XCTAssertEqual(line["source_format"] as? String, "png")
        XCTAssertEqual([line["source_width"] as? Int, line["source_height"] as? Int], [8, 8])
        XCTAssertEqual(server.requestCount(path: "/padded.png"), 1)
    }

    func testBadPixelValuesAreUsageErrors() throws {
        let u = server.url("/photo.jpg")
        let cases: [[String]] = [
            ["--resize", "0x5"], ["--resize", "abc"], ["--resize", "x"], ["--resize", "10x10x10"],
            ["--fill"], ["--fill", "--resize", "20x"], ["--format", "bmp"], ["--quality", "0"],
            ["--quality", "101"], ["--blur", "0"], ["--blur", "-1"], ["--round", "-2"],
            ["--tint", "12345"], ["--tint", "gg0000"]
        ]
        for args in cases {
            let run = try fetch(args + [u])
            XCTAssertEqual(run.status, 2, "\(args): \(run.stderr)")
            XCTAssertFalse(run.stderr.isEmpty, "\(args) says what is wrong")
        }
    }

    func testHelpListsThePixelFlags() throws {
        let run = try DWFetchProcess.run(["--help"])
        for flag in [
            "--resize", "--fill", "--format", "--quality", "--blur", "--grayscale", "--round", "--tint", "--verify"
        ] {
            XCTAssertTrue(run.stdout.contains(flag), "--help mentions \(flag)")
        }
    }
}
