// `dwfetch serve --no-disk-cache`: the memory cache only, as thumbor and imgproxy run without result storage.
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
