// The request options that steer the cache (refreshCached, cacheMemoryOnly, noCache) and how options keep their
// headers through set operations, against a real server.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class CachePolicyOptionsTests: XCTestCase {
    func testOptionsKeepHeadersThroughSetOperations() {
        var options: DWWebImageOptions = [.refreshCached, .headers(["A": "1"])]
        options.insert(.headers(["B": "2"]))
        options.formUnion(.highPriority)
        XCTAssertTrue(options.contains(.refreshCached))
        XCTAssertTrue(options.contains(.highPriority))
        XCTAssertEqual(options.requestHeaders, ["A": "1", "B": "2"])
        options.remove(.refreshCached)
        XCTAssertFalse(options.contains(.refreshCached))
        XCTAssertEqual(options.requestHeaders.count, 2)
    }

    func testRefreshCachedDownloadsAgainAndStores() throws {
        let h = try Harness()
        defer { h.close() }
        let v1 = SampleImages.png(width: 2, height: 2), v2 = SampleImages.png(width: 3, height: 3)
        h.server.setRoute("/v.png", .ok(v1))
        XCTAssertEqual(h.fetch(h.server.url("/v.png")).value?.data, v1)
        h.server.setRoute("/v.png", .ok(v2))
        XCTAssertEqual(h.fetch(h.server.url("/v.png")).value?.data, v1, "cached")
        XCTAssertEqual(h.fetch(h.server.url("/v.png"), options: [.refreshCached]).value?.data, v2)
        XCTAssertEqual(h.fetch(h.server.url("/v.png")).value?.data, v2, "the refreshed bytes were stored")
        XCTAssertEqual(h.server.requestCount(path: "/v.png"), 2)
    }

    func testMemoryOnlyAndNoCacheOptions() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/m.png", .ok(SampleImages.png(width: 2, height: 2)))
        h.server.setRoute("/x.png", .ok(SampleImages.png(width: 2, height: 2)))
        XCTAssertNotNil(h.fetch(h.server.url("/m.png"), options: [.cacheMemoryOnly]).value)
        XCTAssertNotNil(h.fetch(h.server.url("/x.png"), options: [.noCache]).value)
        h.drainCallbacks()
        XCTAssertTrue(h.cache.waitForPendingWrites(timeout: 10), "every disk write the pipeline started is done")
        XCTAssertFalse(FileManager.default.fileExists(atPath: h.cache.fileURL(forKey: h.server.url("/m.png")).path))
        XCTAssertEqual(h.fetch(h.server.url("/m.png")).value?.source, .memory)
        XCTAssertNil(h.cache.objCache(forKey: h.server.url("/x.png")))
    }
}
