// Freshness through the built `dwfetch serve`: `--revalidate-after` (one conditional GET for an unchanged source, the
// new image for a changed one) and stale-if-error (an expired copy answers, marked, when the origin fails).
import DWTestServer
import Foundation
import XCTest

final class FreshnessTests: ServeTestCase {
    /// An origin route that answers 304 to its own ETag and the image with the ETag otherwise.
    private func setVersion(_ path: String, _ image: Data, etag: String) {
        origin.setHandler(path) { request in
            request.header("If-None-Match") == etag
                ? .status(304, headers: [("ETag", etag)])
                : .ok(image, contentType: "image/png", headers: [("ETag", etag)])
        }
    }

    /// Within SEC nothing reaches the origin; past it, an unchanged source costs exactly one conditional GET (and no
    /// transform), for every variant; a changed one is seen by the next request, and every variant is made again.
    func testRevalidateAfterAsksTheOriginOnceAndSeesAChange() throws {
        setVersion("/v.png", SampleImages.png(width: 64, height: 48, seed: 1), etag: "\"one\"")
        let server = try serve(["--revalidate-after", "1", "--negative-ttl", "0"])
        let source = origin.url("/v.png")
        func get(_ options: String) throws -> HTTPResult {
            let answer = try server.get(ProxyPath.plain(source, options: options))
            XCTAssertEqual(answer.status, 200, answer.text)
            return answer
        }
        let first = try get("w:10"), wide = try get("w:20"), original = try get("")
        XCTAssertEqual(try get("w:10").body, first.body)
        XCTAssertEqual(origin.requestCount(path: "/v.png"), 1, "within SEC: no origin request")

        Thread.sleep(forTimeInterval: 1.5)
        let transforms = try server.metric("dwserve_transforms_total")
        XCTAssertEqual(try get("w:10").body, first.body)
        XCTAssertEqual(try get("w:20").body, wide.body)
        XCTAssertEqual(try get("").body, original.body)
        XCTAssertEqual(origin.requestCount(path: "/v.png"), 2, "unchanged: one request for the source and its variants")
        XCTAssertEqual(origin.requestLog.last?.header("If-None-Match"), "\"one\"", "a conditional GET")
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), transforms, "a 304 keeps every variant")

        setVersion("/v.png", SampleImages.png(width: 48, height: 64, seed: 2), etag: "\"two\"")
        XCTAssertEqual(try get("w:10").body, first.body, "within SEC of the check: the cached variant")
        Thread.sleep(forTimeInterval: 1.5)
        let changed = try get("w:10")
        XCTAssertNotEqual(changed.body, first.body, "the new image, past SEC")
        XCTAssertNotEqual(try get("w:20").body, wide.body, "every variant of the old bytes dropped")
        XCTAssertEqual(origin.requestCount(path: "/v.png"), 3, "one request for the change")
        XCTAssertEqual(try get("w:10").body, changed.body)
        XCTAssertEqual(origin.requestCount(path: "/v.png"), 3)
    }

    /// With no original on disk to ask about (`--no-disk-cache`), past SEC the original is fetched in full and the
    /// variants made again from it: a change is seen all the same.
    func testRevalidateAfterWithoutTheDiskCacheFetchesTheOriginalAgain() throws {
        setVersion("/m.png", SampleImages.png(width: 64, height: 48, seed: 7), etag: "\"m1\"")
        let server = try serve(["--revalidate-after", "1", "--no-disk-cache"])
        let path = ProxyPath.plain(origin.url("/m.png"), options: "w:10")
        let first = try server.get(path)
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(try server.get(path).body, first.body)
        XCTAssertEqual(origin.requestCount(path: "/m.png"), 1)
        setVersion("/m.png", SampleImages.png(width: 48, height: 64, seed: 8), etag: "\"m2\"")
        Thread.sleep(forTimeInterval: 1.5)
        let changed = try server.get(path)
        XCTAssertEqual(changed.status, 200, changed.text)
        XCTAssertNotEqual(changed.body, first.body, "the new image, past SEC")
        XCTAssertEqual(origin.requestCount(path: "/m.png"), 2, "one full fetch, the variant made from it")
        XCTAssertNil(origin.requestLog.last?.header("If-None-Match"), "no original kept: nothing to ask about")
    }

    /// An expired copy answers while the origin fails (5xx, then killed) — 200, `X-Stale: 1`, a short Cache-Control
    /// with stale-if-error — after the origin was tried; fresh copies answer unmarked without it; stale beats the
    /// fallback image, which still answers what no copy covers (a 404: the source is gone).
    func testAnExpiredCopyAnswersWhenTheOriginFails() throws {
        let image = SampleImages.png(width: 64, height: 48, seed: 5)
        setVersion("/s.png", image, etag: "\"s\"")
        setVersion("/g.png", SampleImages.png(width: 40, height: 40, seed: 6), etag: "\"g\"")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwstale-\(UUID().uuidString).png")
        try SampleImages.png(width: 8, height: 8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try serve(["--cache-max-age", "2", "--negative-ttl", "0", "--fallback-image", file.path])
        let source = origin.url("/s.png")
        let fresh = try server.get(ProxyPath.plain(source, options: "w:10"))
        XCTAssertEqual(fresh.status, 200, fresh.text)
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/g.png"), options: "w:10")).status, 200)

        origin.setRoute("/s.png", .status(503))
        let hit = try server.get(ProxyPath.plain(source, options: "w:10"))
        XCTAssertEqual(hit.status, 200)
        XCTAssertNil(hit.header("X-Stale"), "a fresh copy is not stale")
        XCTAssertEqual(origin.requestCount(path: "/s.png"), 1)

        Thread.sleep(forTimeInterval: 2.5)
        origin.setRoute("/g.png", .status(404))
        for options in ["w:10", "w:10", "w:30", ""] {
            let before = origin.requestCount(path: "/s.png")
            let stale = try server.get(ProxyPath.plain(source, options: options))
            XCTAssertEqual(stale.status, 200, stale.text)
            XCTAssertEqual(stale.header("X-Stale"), "1", options)
            XCTAssertNil(stale.header("X-Fallback"), "stale beats the fallback")
            XCTAssertEqual(stale.header("Cache-Control"), "max-age=60, stale-if-error=2")
            XCTAssertGreaterThan(origin.requestCount(path: "/s.png"), before, "the origin is tried first")
            if options == "w:10" { XCTAssertEqual(stale.body, fresh.body) }
        }
        let gone = try server.get(ProxyPath.plain(origin.url("/g.png"), options: "w:10"))
        XCTAssertEqual(gone.header("X-Fallback"), "1", "a 404 is the source's answer: the fallback, not a stale copy")
        XCTAssertNil(gone.header("X-Stale"))

        setVersion("/s.png", image, etag: "\"s\"")
        let back = try server.get(ProxyPath.plain(source, options: "w:10"))
        XCTAssertEqual(back.status, 200)
        XCTAssertNil(back.header("X-Stale"), "the origin back: a fresh answer")

        Thread.sleep(forTimeInterval: 2.5)
        origin.shutdown()
        let killed = try server.get(ProxyPath.plain(source, options: "w:10"))
        XCTAssertEqual(killed.status, 200, killed.text)
        XCTAssertEqual(killed.header("X-Stale"), "1", "the origin killed: the expired copy")
    }
}
