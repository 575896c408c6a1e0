// `dwfetch serve --no-disk-cache` (the memory cache only, as thumbor and imgproxy run without result storage) and
// `--source-min-uses` (sources fetched once kept off the disk).
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ServeDiskCacheTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)

    func testNoDiskCacheWritesNothingAndServesHotVariantsFromMemory() throws {
        origin.setRoute("/m.png", .ok(png))
        let server = try serve(["--no-disk-cache"])
        let variant = ProxyPath.plain(origin.url("/m.png"), options: "rs:fit:32:32")
        let first = try server.get(variant)
        XCTAssertEqual(first.status, 200)
        let again = try server.get(variant)  // the variant from memory: no second fetch
        XCTAssertEqual(again.body, first.body)
        XCTAssertEqual(again.header("ETag"), first.header("ETag"))
        XCTAssertEqual(origin.requestCount(path: "/m.png"), 1)
        // Another variant of the same source: the original was kept nowhere, so it is fetched again.
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/m.png"), options: "rs:fit:16:16")).status, 200)
        XCTAssertEqual(origin.requestCount(path: "/m.png"), 2)
        XCTAssertLessThan(try Self.fileBytes(under: server.cacheDir), png.count, "no entry on disk")

        origin.setRoute("/d.png", .ok(png))
        let withDisk = try serve()
        XCTAssertEqual(try withDisk.get(ProxyPath.plain(origin.url("/d.png"), options: "rs:fit:32:32")).status, 200)
        // The default keeps the original and the variant on disk (written in the background: wait for them).
        _ = try eventually(timeout: 10, interval: 0.02) { try Self.fileBytes(under: withDisk.cacheDir) >= png.count }
        XCTAssertGreaterThanOrEqual(try Self.fileBytes(under: withDisk.cacheDir), png.count)
    }

    /// `--source-min-uses 2`: a source fetched once leaves only its variant on disk; fetched a second time (another
    /// variant) its original is written, and the next variant is made from it without the origin.
    func testSourceMinUsesKeepsAOnceFetchedSourceOffTheDisk() throws {
        let big = SampleImages.png(width: 640, height: 480)
        origin.setRoute("/o.png", .ok(big))
        let server = try serve(["--source-min-uses", "2"])
        func variant(_ size: Int) -> String { ProxyPath.plain(origin.url("/o.png"), options: "rs:fit:\(size):\(size)") }
        let first = try server.get(variant(32))
        XCTAssertEqual(first.status, 200)
        // The variant's entry lands in the background: once it is there, nothing else is.
        _ = try eventually(timeout: 10, interval: 0.02) {
            try Self.fileBytes(under: server.cacheDir) >= first.body.count
        }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertLessThan(try Self.fileBytes(under: server.cacheDir), big.count, "the original is not on disk")
        XCTAssertEqual(origin.requestCount(path: "/o.png"), 1)

        XCTAssertEqual(try server.get(variant(16)).status, 200)  // a second fetch of the source: now kept
        XCTAssertEqual(origin.requestCount(path: "/o.png"), 2)
        _ = try eventually(timeout: 10, interval: 0.02) { try Self.fileBytes(under: server.cacheDir) >= big.count }
        XCTAssertEqual(try server.get(variant(24)).status, 200)
        XCTAssertEqual(origin.requestCount(path: "/o.png"), 2, "the third variant is made from the original on disk")

        // Refused where it would be ignored: without a disk cache, or with the flags that read the original's entry.
        for flags in [["--no-disk-cache"], ["--use-last-modified"], ["--cache-control-passthrough"]] {
            let (status, text) = try ServeProcess.startFailure(["--source-min-uses", "2"] + flags)
            XCTAssertEqual(status, 2, text)
            XCTAssertTrue(text.contains("--source-min-uses"), text)
        }
    }

    /// Bytes of every regular file below `dir` (0 when it does not exist).
    static func fileBytes(under dir: URL) throws -> Int {
        guard let walker = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: [.fileSizeKey]) else {
            return 0
        }
        var total = 0
        for case let url as URL in walker {
            let values = try url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values.isRegularFile == true { total += values.fileSize ?? 0 }
        }
        return total
    }
}
