// thumbor's watermark() under attack: the host allow-list, the SSRF guard, the size limits, a failing and a slow
// watermark origin, and the cache key following the watermark's bytes.
import DWTestServer
import Foundation
import XCTest

final class ThumborWatermarkSecurityTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)
    let mark = SampleImages.png(width: 16, height: 12)

    /// The source `a.png` and the watermark `wm.png` on the origin; `host:port/name` as thumbor URLs carry them.
    private func routes() -> (source: String, mark: String) {
        origin.setRoute("/a.png", .ok(png, contentType: "image/png"))
        origin.setRoute("/wm.png", .ok(mark, contentType: "image/png"))
        return ("127.0.0.1:\(origin.port)/a.png", "127.0.0.1:\(origin.port)/wm.png")
    }

    private func path(_ mark: String, _ source: String, args: String = "0,0,0") -> String {
        "/unsafe/32x24/filters:watermark(\(mark),\(args))/\(source)"
    }

    /// Without `--watermark-allow-host` the filter is refused; a host not listed is a 400 naming it, and so is a
    /// URL with credentials; none of them reaches the watermark's origin. A listed host (or `*.` pattern) is served.
    func testOnlyAllowedHostsAreFetched() throws {
        let (source, wm) = routes()
        let off = try serve(["--thumbor-allow-unsafe"])
        let refused = try off.get(path(wm, source))
        XCTAssertEqual(refused.status, 400, refused.text)
        XCTAssertTrue(refused.text.contains("--watermark-allow-host"), refused.text)
        let listed = try serve([
            "--thumbor-allow-unsafe", "--watermark-allow-host", "marks.example.com",
            "--watermark-allow-host", "*.cdn.example.com"
        ])
        let other = try listed.get(path(wm, source))
        XCTAssertEqual(other.status, 400, other.text)
        XCTAssertTrue(other.text.contains("'127.0.0.1'"), other.text)
        let credentials = try listed.get(path("user:pw@marks.example.com/wm.png", source))
        XCTAssertEqual(credentials.status, 400, credentials.text)
        XCTAssertEqual(try listed.get(path("ftp://marks.example.com/wm.png", source)).status, 400)
        XCTAssertEqual(origin.requestCount(path: "/wm.png"), 0, "no refused watermark reached its origin")
        let allowed = try serve(["--thumbor-allow-unsafe", "--watermark-allow-host", "127.0.0.1"])
        let served = try allowed.get(path(wm, source))
        XCTAssertEqual(served.status, 200, served.text)
        XCTAssertEqual(origin.requestCount(path: "/wm.png"), 1)
        let twice = try allowed.get(path(wm, source, args: "0,0,0:watermark(\(wm),1,1,0)"))
        XCTAssertEqual(twice.status, 400, twice.text)
    }

    /// A host allowed by name is still fetched through the SSRF guard: loopback without `--allow-network`, the
    /// metadata address and private addresses are refused (403 naming the watermark), nothing connects.
    func testSSRFGuardOnTheWatermark() throws {
        let (source, wm) = routes()
        let guarded = try serve(["--thumbor-allow-unsafe", "--watermark-allow-host", "127.0.0.1"], allowOrigin: false)
        let loopback = try guarded.get(path(wm, source))
        XCTAssertEqual(loopback.status, 403, loopback.text)
        XCTAssertTrue(loopback.text.contains("thumbor watermark"), loopback.text)
        XCTAssertEqual(origin.acceptedConnections, 0, "nothing reached the origin")
        let hosts = ["169.254.169.254", "10.1.2.3", "192.168.1.1", "172.16.0.1"]
        let server = try serve(
            ["--thumbor-allow-unsafe", "--timeout", "3"]
                + hosts.flatMap { ["--watermark-allow-host", $0] })
        for host in hosts {
            let started = Date()
            let response = try server.get(path("\(host)/latest/meta-data/", source))
            XCTAssertEqual(response.status, 403, "\(host): \(response.text)")
            XCTAssertTrue(response.text.contains("address not allowed"), "\(host): \(response.text)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 2.5, "\(host): refused before any connection")
        }
        XCTAssertEqual(origin.requestCount(path: "/a.png"), 0, "the source was not fetched for a refused watermark")
    }

    /// A listed host redirecting to a host not listed is refused at that hop (403), the target never asked; a
    /// redirect that stays on a listed host is followed.
    func testRedirectsStayOnWatermarkHosts() throws {
        let (source, _) = routes()
        origin.setRoute("/away.png", .redirect(to: "http://localhost:\(origin.port)/wm2.png"))
        origin.setRoute("/stay.png", .redirect(to: "http://127.0.0.1:\(origin.port)/wm.png"))
        origin.setRoute("/wm2.png", .ok(mark, contentType: "image/png"))
        let server = try serve(["--thumbor-allow-unsafe", "--watermark-allow-host", "127.0.0.1"])
        let away = try server.get(path("127.0.0.1:\(origin.port)/away.png", source))
        XCTAssertEqual(away.status, 403, away.text)
        XCTAssertTrue(away.text.contains("thumbor watermark: redirect"), away.text)
        XCTAssertEqual(origin.requestCount(path: "/wm2.png"), 0, "the redirect's target was never asked")
        let stay = try server.get(path("127.0.0.1:\(origin.port)/stay.png", source))
        XCTAssertEqual(stay.status, 200, stay.text)
    }

    /// A watermarked variant already made is a cache hit like any other: answered from memory, never charged to
    /// the client's `--cold-rate` budget.
    func testWatermarkedHitsAreFreeUnderTheColdBudget() throws {
        let (source, wm) = routes()
        let server = try serve([
            "--thumbor-allow-unsafe", "--watermark-allow-host", "127.0.0.1", "--cold-rate", "1/m",
            "--cold-burst", "1"
        ])
        let first = try server.get(path(wm, source))
        XCTAssertEqual(first.status, 200, first.text)
        for attempt in 0..<3 {
            let again = try server.get(path(wm, source))
            XCTAssertEqual(again.status, 200, "hit #\(attempt): \(again.text)")
            XCTAssertEqual(again.body, first.body)
        }
        XCTAssertEqual(try server.get(path(wm, source, args: "5,5,0")).status, 429, "a new variant is cold")
    }

    /// A watermark over `--max-pixels` (from its header, before a decode) or over `--max-size` is a 422; the source
    /// alone still serves.
    func testHugeWatermarkIsRefusedByTheLimits() throws {
        let (source, _) = routes()
        origin.setRoute("/huge.png", .ok(SampleImages.png(width: 1500, height: 1000), contentType: "image/png"))
        let server = try serve([
            "--thumbor-allow-unsafe", "--watermark-allow-host", "127.0.0.1", "--max-pixels", "1000000"
        ])
        let huge = try server.get(path("127.0.0.1:\(origin.port)/huge.png", source))
        XCTAssertEqual(huge.status, 422, huge.text)
        XCTAssertTrue(huge.text.contains("thumbor watermark"), huge.text)
        XCTAssertEqual(try server.get("/unsafe/32x24/\(source)").status, 200)
        let small = try serve(["--thumbor-allow-unsafe", "--watermark-allow-host", "127.0.0.1", "--max-size", "2K"])
        let large = try small.get(path("127.0.0.1:\(origin.port)/huge.png", source))
        XCTAssertEqual(large.status, 422, large.text)
    }

    /// A watermark that fails — a 404, bytes that are no image, an origin that hangs past `--timeout` — is a clear
    /// error naming the watermark (never the image without it), asked again as an error, and the server serves on.
    func testFailingAndSlowWatermarks() throws {
        let (source, _) = routes()
        origin.setRoute("/missing.png", .status(404))
        origin.setRoute("/text.png", .ok(Data("not an image".utf8), contentType: "image/png"))
        origin.setRoute("/hang.png", .hang)
        let server = try serve(["--thumbor-allow-unsafe", "--watermark-allow-host", "127.0.0.1", "--timeout", "1"])
        for (name, status) in [("missing.png", 404), ("text.png", 422), ("hang.png", 504)] {
            for attempt in 0..<2 {
                let started = Date()
                let response = try server.get(path("127.0.0.1:\(origin.port)/\(name)", source))
                XCTAssertEqual(response.status, status, "\(name) #\(attempt): \(response.text)")
                XCTAssertTrue(response.text.contains("thumbor watermark"), "\(name): \(response.text)")
                XCTAssertLessThan(Date().timeIntervalSince(started), 8, "\(name): bounded by --timeout")
            }
        }
        XCTAssertEqual(try server.get(path("127.0.0.1:\(origin.port)/wm.png", source)).status, 200, "still serving")
    }

    /// Other watermark arguments are another variant, and `--revalidate-after` checks the watermark as it checks a
    /// source: a changed watermark is drawn (the key naming its bytes: ThumborWatermarkPlanTests).
    func testCacheKeyFollowsTheWatermark() throws {
        let (source, wm) = routes()
        origin.setRoute("/a.png", .resource(png, contentType: "image/png", etag: "\"a1\""))
        origin.setRoute("/wm.png", .resource(mark, contentType: "image/png", etag: "\"w1\""))
        let server = try serve([
            "--thumbor-allow-unsafe", "--watermark-allow-host", "127.0.0.1", "--revalidate-after", "1"
        ])
        let first = try server.get(path(wm, source))
        XCTAssertEqual(first.status, 200, first.text)
        let moved = try server.get(path(wm, source, args: "10,10,0"))
        XCTAssertNotEqual(moved.body, first.body, "other arguments: another variant")
        origin.setRoute(
            "/wm.png",
            .resource(
                SampleImages.png(width: 20, height: 20, seed: 99), contentType: "image/png",
                etag: "\"w2\""))
        sleep(2)
        let changed = try server.get(path(wm, source))
        XCTAssertEqual(changed.status, 200, changed.text)
        XCTAssertNotEqual(changed.body, first.body, "the changed watermark is drawn, not the old variant served")
    }
}
