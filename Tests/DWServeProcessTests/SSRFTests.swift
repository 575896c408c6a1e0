// The SSRF guard seen from outside: refused addresses answer 403 and nothing reaches them, however they are spelled.
import DWTestServer
import Foundation
import XCTest

final class SSRFTests: ServeTestCase {
    let png = SampleImages.png(width: 8, height: 8)

    func testLoopbackOriginIsRefusedWithoutAllowNetwork() throws {
        origin.setRoute("/a.png", .ok(png))
        let server = try serve(allowOrigin: false)
        let response = try server.get(ProxyPath.plain(origin.url("/a.png")))
        XCTAssertEqual(response.status, 403, response.text)
        XCTAssertFalse(response.text.contains("127.0.0.1"), "the body names no address: \(response.text)")
        XCTAssertTrue(response.text.contains("source address not allowed"), response.text)
        XCTAssertEqual(origin.acceptedConnections, 0, "no connection was opened to the origin")
    }

    func testRedirectToAForbiddenAddressIsRefused() throws {
        // 127.0.0.2 is loopback too (the whole 127/8), outside the allowed 127.0.0.1/32.
        let forbidden = try ConnectionCounter(address: "127.0.0.2")
        defer { forbidden.stop() }
        origin.setRoute("/r", .redirect(to: "http://127.0.0.2:\(forbidden.port)/secret.png"))
        let server = try serve()
        let response = try server.get(ProxyPath.plain(origin.url("/r")))
        XCTAssertEqual(response.status, 403, response.text)
        XCTAssertEqual(origin.requestCount(path: "/r"), 1, "the allowed origin was asked")
        XCTAssertEqual(forbidden.count, 0, "nothing reached the forbidden address")
    }

    func testOtherSpellingsOfLoopbackAreRefused() throws {
        origin.setRoute("/a.png", .ok(png))
        let port = origin.port
        let server = try serve(allowOrigin: false)
        for host in [
            "[::ffff:127.0.0.1]", "2130706433", "0177.0.0.1", "0x7f.0.0.1", "127.1", "localhost", "[::1]",
            "[::ffff:7f00:1]", "0.0.0.0"
        ] {
            let response = try server.get(ProxyPath.plain("http://\(host):\(port)/a.png"))
            XCTAssertEqual(response.status, 403, "\(host): \(response.text)")
        }
        XCTAssertEqual(origin.acceptedConnections, 0)
    }

    func testIPv4MappedFormIsRefusedEvenWhenTheIPv4NetworkIsAllowed() throws {
        origin.setRoute("/a.png", .ok(png))
        let server = try serve()  // --allow-network 127.0.0.1/32
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/a.png"))).status, 200)
        let mapped = try server.get(ProxyPath.plain("http://[::ffff:127.0.0.1]:\(origin.port)/a.png"))
        XCTAssertEqual(mapped.status, 403, mapped.text)
        XCTAssertEqual(origin.acceptedConnections, 1, "only the allowed IPv4 connection")
    }

    func testAllowHostRestrictsSources() throws {
        origin.setRoute("/a.png", .ok(png))
        let server = try serve(["--allow-host", "images.example.com"])
        let response = try server.get(ProxyPath.plain(origin.url("/a.png")))
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(origin.acceptedConnections, 0)
        let allowed = try serve(["--allow-host", "127.0.0.1"])
        XCTAssertEqual(try allowed.get(ProxyPath.plain(origin.url("/a.png"))).status, 200)
    }
}
