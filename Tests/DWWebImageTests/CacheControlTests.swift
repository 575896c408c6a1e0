// Cache-Control, honoured only when asked: no-store, no-cache and max-age against the test server.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class CacheControlTests: XCTestCase {
    private let v1 = SampleImages.png(width: 20, height: 10, seed: 1)

    func testTheParserReadsTheDirectivesAPrivateCacheActsOn() {
        XCTAssertEqual(CacheControl(nil), CacheControl(""))
        XCTAssertEqual(CacheControl("max-age=60").maxAge, 60)
        let mixed = CacheControl("public, No-Cache=\"Set-Cookie, X-A\", MAX-AGE=\"30\", no-store")
        XCTAssertTrue(mixed.noCache, "qualified no-cache is treated as unqualified")
        XCTAssertTrue(mixed.noStore)
        XCTAssertEqual(mixed.maxAge, 30, "the comma inside the quoted field list does not split it")
        XCTAssertEqual(CacheControl("max-age=10, max-age=999").maxAge, 10, "the first of repeated directives")
        XCTAssertEqual(CacheControl("max-age=abc").maxAge, 0, "unparsable: stale")
        XCTAssertEqual(CacheControl("max-age=-5").maxAge, 0)
        XCTAssertEqual(CacheControl("max-age=99999999999999999999").maxAge, 2_147_483_648, "too large: 2^31")
        XCTAssertEqual(CacheControl("s-maxage=5, private, immutable"), CacheControl(nil))
        XCTAssertEqual(CacheControl("max-age=600").freshnessLifetime(cappedAt: 60), 60, "never past expirationTime")
        XCTAssertEqual(CacheControl("max-age=600, no-cache").freshnessLifetime(cappedAt: 3600), 0)
        XCTAssertEqual(CacheControl("private").freshnessLifetime(cappedAt: 3600), 3600)
        XCTAssertEqual(CacheControl("no-store").freshnessLifetime(cappedAt: 3600), 0, "stored while ignored: stale")
    }

    func testTheHeaderIsStoredButIgnoredByDefault() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute(
            "/a.png", .ok(v1, contentType: "image/png", headers: [("Cache-Control", "no-store, no-cache")]))
        XCTAssertFalse(h.cache.configuration.honorsCacheControl, "off by default")
        XCTAssertEqual(try h.fetch(h.server.url("/a.png")).get().source, .network)
        _ = h.cache.waitForPendingWrites()
        let entry = try XCTUnwrap(entry(h, "/a.png"), "stored despite no-store")
        XCTAssertEqual(entry.metadata.cacheControl, "no-store, no-cache", "recorded for when it is turned on")
        let (manager, _) = freshManager(h, honors: false)
        defer { manager.invalidate() }
        XCTAssertEqual(try fetch(manager, h.server.url("/a.png")).source, .disk)
        XCTAssertEqual(h.server.requestCount(path: "/a.png"), 1, "no-cache ignored: no request")
    }

    func testNoStoreIsDeliveredButNotWrittenAndReplacesNothing() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/b.png", .ok(v1, contentType: "image/png"))
        _ = try h.fetch(h.server.url("/b.png")).get()
        _ = h.cache.waitForPendingWrites()
        XCTAssertNotNil(entry(h, "/b.png"), "an entry from before the server said no-store")
        h.server.setRoute("/b.png", .ok(v1, contentType: "image/png", headers: [("Cache-Control", "no-store")]))
        let (manager, cache) = freshManager(h, honors: true)
        defer { manager.invalidate() }
        XCTAssertEqual(try fetch(manager, h.server.url("/b.png"), options: [.refreshCached]).source, .network)
        _ = cache.waitForPendingWrites()
        XCTAssertNil(entry(h, "/b.png"), "not written, and the older entry is gone")
        let (next, _) = freshManager(h, honors: true)
        defer { next.invalidate() }
        XCTAssertEqual(try fetch(next, h.server.url("/b.png")).source, .network)
        XCTAssertEqual(h.server.requestCount(path: "/b.png"), 3)
    }

    func testMaxAgeShortensFreshnessAndA304RenewsItWithTheNewHeader() throws {
        let h = try Harness()
        defer { h.close() }
        let url = h.server.url("/c.png")
        // Stored two minutes ago with max-age=60: stale when honoured, fresh (7 days) when not.
        try h.cache.store(
            v1, forKey: url,
            metadata: DWCacheEntryMetadata(
                storedAt: Date().addingTimeInterval(-120), etag: "\"e1\"", contentType: "image/png",
                cacheControl: "max-age=60"), policy: [.disk])
        h.server.setHandler("/c.png") { request in
            request.header("If-None-Match") == "\"e1\""
                ? .status(304, headers: [("ETag", "\"e1\""), ("Cache-Control", "max-age=600")]) : .ok(Data())
        }
        let (ignoring, _) = freshManager(h, honors: false)
        defer { ignoring.invalidate() }
        XCTAssertEqual(try fetch(ignoring, url).source, .disk, "off: max-age does not shorten anything")
        XCTAssertEqual(h.server.requestCount(path: "/c.png"), 0)

        let (honouring, cache) = freshManager(h, honors: true)
        defer { honouring.invalidate() }
        let image = try fetch(honouring, url)
        XCTAssertEqual(image.source, .revalidated, "on: two minutes past max-age=60 is stale")
        XCTAssertEqual(image.data, v1)
        XCTAssertEqual(h.server.requestLog.last?.header("If-None-Match"), "\"e1\"")
        _ = cache.waitForPendingWrites()
        XCTAssertEqual(entry(h, "/c.png")?.metadata.cacheControl, "max-age=600", "the 304's Cache-Control is kept")
        let (next, _) = freshManager(h, honors: true)
        defer { next.invalidate() }
        XCTAssertEqual(try fetch(next, url).source, .disk, "fresh again for ten minutes")
        XCTAssertEqual(h.server.requestCount(path: "/c.png"), 1)
    }

    func testNoCacheRevalidatesEveryUseAndStaleEntriesWithoutValidatorsAreRefetched() throws {
        let h = try Harness()
        defer { h.close() }
        let v1 = self.v1
        h.server.setHandler("/d.png") { request in
            request.header("If-None-Match") == "\"d1\""
                ? .status(304, headers: [("ETag", "\"d1\"")])
                : .ok(v1, contentType: "image/png", headers: [("ETag", "\"d1\""), ("Cache-Control", "no-cache")])
        }
        h.server.setRoute("/e.png", .ok(v1, contentType: "image/png", headers: [("Cache-Control", "max-age=0")]))
        let (manager, cache) = freshManager(h, honors: true)
        defer { manager.invalidate() }
        XCTAssertEqual(try fetch(manager, h.server.url("/d.png")).source, .network)
        XCTAssertEqual(try fetch(manager, h.server.url("/e.png")).source, .network)
        _ = cache.waitForPendingWrites()
        for round in 1...2 {
            let (again, againCache) = freshManager(h, honors: true)
            defer { again.invalidate() }
            XCTAssertEqual(try fetch(again, h.server.url("/d.png")).source, .revalidated, "no-cache, round \(round)")
            XCTAssertEqual(try fetch(again, h.server.url("/e.png")).source, .network, "stale, nothing to revalidate")
            let plain = try XCTUnwrap(h.server.requestLog.last { $0.path == "/e.png" })
            XCTAssertNil(plain.header("If-None-Match"))
            XCTAssertNil(plain.header("If-Modified-Since"))
            _ = againCache.waitForPendingWrites()
        }
        XCTAssertEqual(
            DWWebImageCache(rootDirectory: h.root, memoryCountLimit: 0).objCache(forKey: h.server.url("/e.png")),
            v1, "a cache that does not honour the header serves the max-age=0 entry")
        let honouringCache = DWWebImageCache(rootDirectory: h.root, memoryCountLimit: 0)
        honouringCache.configuration.honorsCacheControl = true
        XCTAssertNil(honouringCache.objCache(forKey: h.server.url("/d.png")), "objCache cannot revalidate: a miss")
        XCTAssertNotNil(entry(h, "/d.png"), "but the entry stays, for the manager to revalidate")
    }

    // MARK: - Helpers

    private func freshManager(_ h: Harness, honors: Bool) -> (DWWebImageManager, DWWebImageCache) {
        h.anotherManager { $0.configuration.honorsCacheControl = honors }
    }

    private func fetch(_ manager: DWWebImageManager, _ url: String, options: DWWebImageOptions = []) throws -> DWImage {
        try Harness.fetch(manager, url, options: options)
    }

    private func entry(_ h: Harness, _ path: String) -> DiskEntryCodec.Entry? {
        (try? Data(contentsOf: h.cache.fileURL(forKey: h.server.url(path)))).flatMap(DiskEntryCodec.decode)
    }
}
