// A failed source through the built `dwfetch serve`: the negative cache (no origin request while it holds, its header
// on the answer), 404s remembered longer, and which failures get the fallback image, marked and without an ETag.
import DWTestServer
import Foundation
import XCTest

final class FailedSourceTests: ServeTestCase {
    /// A source that failed is answered from the failure for `--negative-ttl`, each variant of it too, with no
    /// origin request and `X-Negative-Cache: 1`; with `--negative-ttl 0` every request asks the origin again.
    func testAFailedSourceIsAnsweredFromTheFailureWithoutAnotherOriginRequest() throws {
        origin.setRoute("/down.png", .status(500))
        let server = try serve(["--negative-ttl", "30"])
        let first = try server.get(ProxyPath.plain(origin.url("/down.png"), options: "w:10"))
        XCTAssertEqual(first.status, 502, first.text)
        XCTAssertNil(first.header("X-Negative-Cache"), "the first failure asked the origin")
        let asked = origin.requestCount(path: "/down.png")
        XCTAssertGreaterThan(asked, 0)
        for options in ["w:10", "w:20", ""] {
            let again = try server.get(ProxyPath.plain(origin.url("/down.png"), options: options))
            XCTAssertEqual(again.status, 502, again.text)
            XCTAssertEqual(again.header("X-Negative-Cache"), "1", options)
        }
        XCTAssertEqual(origin.requestCount(path: "/down.png"), asked, "no origin request while the failure holds")

        origin.setRoute("/flaky.png", .status(500))
        let off = try serve(["--negative-ttl", "0"])
        _ = try off.get(ProxyPath.plain(origin.url("/flaky.png")))
        let once = origin.requestCount(path: "/flaky.png")
        let again = try off.get(ProxyPath.plain(origin.url("/flaky.png")))
        XCTAssertNil(again.header("X-Negative-Cache"))
        XCTAssertGreaterThan(origin.requestCount(path: "/flaky.png"), once, "off: the origin is asked again")
    }

    /// A 404 is remembered for `--negative-ttl-gone` even when transient failures are not: one origin request.
    func testA404CostsOneOriginRequest() throws {
        origin.setRoute("/gone.png", .status(404))
        let server = try serve(["--negative-ttl", "0", "--negative-ttl-gone", "60"])
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/gone.png"))).status, 404)
        let again = try server.get(ProxyPath.plain(origin.url("/gone.png")))
        XCTAssertEqual(again.status, 404)
        XCTAssertEqual(again.header("X-Negative-Cache"), "1")
        XCTAssertEqual(origin.requestCount(path: "/gone.png"), 1)
    }

    /// `--fallback-on` picks the failures the fallback answers; a fallback answer says so (`--fallback-header`) and
    /// carries no ETag; other failures keep their error status. A bad list is refused at start.
    func testFallbackOnChoosesTheFailuresAndMarksTheAnswer() throws {
        origin.setRoute("/missing.png", .status(404))
        origin.setRoute("/broken.png", .status(500))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwfallback-\(UUID().uuidString).png")
        try SampleImages.png(width: 40, height: 20).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try serve(["--fallback-image", file.path, "--fallback-on", "404,timeout", "--negative-ttl", "0"])
        let missing = try server.get(ProxyPath.plain(origin.url("/missing.png")))
        XCTAssertEqual(missing.status, 200, missing.text)
        XCTAssertEqual(missing.header("X-Fallback"), "1")
        XCTAssertNil(missing.header("ETag"), "a placeholder never gets a validator a CDN could keep")
        let broken = try server.get(ProxyPath.plain(origin.url("/broken.png")))
        XCTAssertEqual(broken.status, 502, "a 500 is not on the list: its error")
        XCTAssertNil(broken.header("X-Fallback"))
        let named = try serve(["--fallback-image", file.path, "--fallback-header", "X-Placeholder"])
        XCTAssertEqual(try named.get(ProxyPath.plain(origin.url("/missing.png"))).header("X-Placeholder"), "1")
        XCTAssertEqual(try ServeProcess.exitStatus(refusing: ["--fallback-on", "404,teapot"]), 2)
        XCTAssertEqual(try ServeProcess.exitStatus(refusing: ["--negative-ttl", "-1"]), 2)
    }
}
