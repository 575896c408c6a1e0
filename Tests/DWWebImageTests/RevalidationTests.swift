// 304 revalidation: an expired entry with a validator is revalidated, not fetched again.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class RevalidationTests: XCTestCase {
    private let v1 = SampleImages.png(width: 20, height: 10, seed: 1)
    private let v2 = SampleImages.png(width: 30, height: 15, seed: 2)

    /// A second manager over the same cache directory, with a fresh memory cache and entries expiring at once.
    private func expiringManager(_ h: Harness) -> (DWWebImageManager, DWWebImageCache) {
        h.anotherManager { $0.expirationTime = 0 }
    }

    private func fetch(_ manager: DWWebImageManager, _ url: String, options: DWWebImageOptions = []) throws -> DWImage {
        try Harness.fetch(manager, url, options: options)
    }

    func testA304RefreshesTheEntryAndServesIt() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/a.png", .resource(v1, contentType: "image/png", etag: "\"e1\""))
        XCTAssertEqual(try h.fetch(h.server.url("/a.png")).get().source, .network)
        _ = h.cache.waitForPendingWrites()
        let storedBefore = try XCTUnwrap(storedAt(h, "/a.png"))

        h.server.setHandler("/a.png") { request in
            request.header("If-None-Match") == "\"e1\"" ? .status(304, headers: [("ETag", "\"e1\"")]) : .ok(Data())
        }
        let (manager, cache) = expiringManager(h)
        defer { manager.invalidate() }
        let image = try fetch(manager, h.server.url("/a.png"))
        XCTAssertEqual(image.source, .revalidated)
        XCTAssertEqual(image.data, v1, "the cached bytes, confirmed current")
        let request = try XCTUnwrap(h.server.requestLog.last)
        XCTAssertEqual(request.header("If-None-Match"), "\"e1\"")
        XCTAssertNil(request.header("Range"))
        XCTAssertEqual(image.metrics?.httpStatus, 304)
        _ = cache.waitForPendingWrites()
        XCTAssertGreaterThan(try XCTUnwrap(storedAt(h, "/a.png")), storedBefore, "the entry's date was refreshed")
    }

    func testA200ReplacesTheExpiredEntry() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/b.png", .resource(v1, contentType: "image/png", etag: "\"e1\""))
        _ = try h.fetch(h.server.url("/b.png")).get()
        _ = h.cache.waitForPendingWrites()
        h.server.setRoute("/b.png", .resource(v2, contentType: "image/png", etag: "\"e2\""))
        let (manager, cache) = expiringManager(h)
        defer { manager.invalidate() }
        let image = try fetch(manager, h.server.url("/b.png"))
        XCTAssertEqual(image.source, .network)
        XCTAssertEqual(image.data, v2)
        XCTAssertEqual(h.server.requestLog.last?.header("If-None-Match"), "\"e1\"")
        _ = cache.waitForPendingWrites()
        cache.expirationTime = 3600
        XCTAssertEqual(cache.objCache(forKey: h.server.url("/b.png")), v2, "the new version replaced the entry")
    }

    func testLastModifiedIsUsedWithoutAnETagAndEntriesWithoutValidatorsAreRefetched() throws {
        let h = try Harness()
        defer { h.close() }
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        h.server.setRoute("/c.png", .resource(v1, contentType: "image/png", lastModified: date))
        h.server.setRoute("/d.png", .ok(v1, contentType: "image/png"))
        _ = try h.fetch(h.server.url("/c.png")).get()
        _ = try h.fetch(h.server.url("/d.png")).get()
        _ = h.cache.waitForPendingWrites()
        h.server.setHandler("/c.png") { request in
            request.header("If-Modified-Since") == date ? .status(304) : .ok(Data())
        }
        let (manager, _) = expiringManager(h)
        defer { manager.invalidate() }
        XCTAssertEqual(try fetch(manager, h.server.url("/c.png")).source, .revalidated)
        let plain = try fetch(manager, h.server.url("/d.png"))
        XCTAssertEqual(plain.source, .network)
        let request = try XCTUnwrap(h.server.requestLog.last { $0.path == "/d.png" })
        XCTAssertNil(request.header("If-None-Match"))
        XCTAssertNil(request.header("If-Modified-Since"), "no validator: an ordinary request")
    }

    func testOfflineServesAnExpiredEntry() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/e.png", .resource(v1, contentType: "image/png", etag: "\"e1\""))
        _ = try h.fetch(h.server.url("/e.png")).get()
        _ = h.cache.waitForPendingWrites()
        let (manager, _) = expiringManager(h)
        defer { manager.invalidate() }
        let image = try fetch(manager, h.server.url("/e.png"), options: [.fromCacheOnly])
        XCTAssertEqual(image.source, .disk)
        XCTAssertEqual(h.server.requestCount(path: "/e.png"), 1, "offline: no request")
    }

    private func storedAt(_ h: Harness, _ path: String) throws -> Date? {
        let file = try Data(contentsOf: h.cache.fileURL(forKey: h.server.url(path)))
        return DiskEntryCodec.decode(file)?.metadata.storedAt
    }
}
