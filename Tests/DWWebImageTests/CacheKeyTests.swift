// Cache keys: a manager's key filter (signed URLs that differ only in signature/expiry share one entry and one
// download) and a request's .cacheKey (another URL, the same image); variants are keyed from it.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class CacheKeyTests: XCTestCase {
    private let png = SampleImages.png(width: 4, height: 3)

    func testSignedURLsDifferingOnlyInAFilteredItemMakeOneDownload() throws {
        let h = try Harness {
            $0.cacheKeyFilter = .droppingQueryItems(["X-Amz-Signature", "X-Amz-Expires"])
        }
        defer { h.close() }
        let gate = Gate()
        gate.hold(h.server, "/signed.png", .ok(png))
        let first = h.server.url("/signed.png?w=4&X-Amz-Expires=3600&X-Amz-Signature=aaa")
        let second = h.server.url("/signed.png?w=4&X-Amz-Expires=7200&X-Amz-Signature=bbb")
        let box = ResultBox()
        h.manager.downloadImage(withURL: first) { box.set($0) }
        h.manager.downloadImage(withURL: second) { box.set($0) }
        XCTAssertTrue(
            eventually { h.manager.waiterCount(forURL: h.server.url("/signed.png?w=4")) == 2 },
            "both callers joined one download")
        gate.open()
        XCTAssertTrue(box.waitFor(count: 2, timeout: 10))
        XCTAssertTrue(box.all.allSatisfy { $0.value?.data == png })
        XCTAssertEqual(h.server.requestCount(path: "/signed.png"), 1)
        // An hour later, a third signature: served from the cache.
        let third = h.server.url("/signed.png?X-Amz-Signature=ccc&w=4")
        XCTAssertEqual(h.fetch(third).value?.source, .memory)
        // Items not filtered still tell images apart.
        gate.open()
        XCTAssertEqual(h.fetch(h.server.url("/signed.png?w=8&X-Amz-Signature=aaa")).value?.source, .network)
        XCTAssertEqual(h.server.requestCount(path: "/signed.png"), 2)
        XCTAssertEqual(
            DWCacheKeyFilter.droppingQueryItems(["sig"]).key(for: "http://h/a?sig=1#frag"), "http://h/a#frag")
    }

    func testRequestCacheKeyNamesTheImageAndItsVariants() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/cdn-a/cat.png", .ok(png))
        h.server.setRoute("/cdn-b/cat.png", .ok(png))
        let cached = expectation(
            forNotification: .DWWebImageCacheComplete, object: h.cache, notificationCenter: h.center)
        XCTAssertEqual(h.fetch(h.server.url("/cdn-a/cat.png"), options: .cacheKey("cat")).value?.source, .network)
        wait(for: [cached], timeout: 5)
        XCTAssertEqual(h.fetch(h.server.url("/cdn-b/cat.png"), options: .cacheKey("cat")).value?.source, .memory)
        XCTAssertEqual(h.server.requestCount(path: "/cdn-b/cat.png"), 0)
        XCTAssertEqual(h.cache.objCache(forKey: "cat"), png, "on disk under the key")
        XCTAssertNil(h.cache.objCache(forKey: h.server.url("/cdn-a/cat.png")))
        // A variant is made from the keyed original, and cached under the length-prefixed "<n>:<key>@<m>:<identifier>".
        let variant = try h.fetch(h.server.url("/cdn-b/cat.png"), options: [.cacheKey("cat"), .processors([Stamp()])])
            .get()
        XCTAssertEqual(variant.data, Stamp.mark)
        XCTAssertEqual(h.server.requestCount(path: "/cdn-b/cat.png"), 0)
        XCTAssertTrue(h.cache.waitForPendingWrites())
        XCTAssertEqual(h.cache.objCache(forKey: "3:cat@5:stamp"), Stamp.mark)
        XCTAssertEqual(
            h.cache.objCache(forKey: DWImageProcessors.cacheKey(url: "cat", processors: [Stamp()])), Stamp.mark)
    }
}

/// A processor whose output is a fixed PNG (what it was made from is checked by the cache key, not the pixels).
private struct Stamp: DWImageProcessor {
    static let mark = SampleImages.png(width: 1, height: 1, seed: 9)
    var identifier: String { "stamp" }
    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage { try DWImage(data: Self.mark) }
}
