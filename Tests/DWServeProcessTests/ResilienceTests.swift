// What production throws at `dwfetch serve` from outside, and the request after it: a host name that does not
// resolve, then good sources, each against the built binary.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ResilienceTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)

    /// One unresolvable source took every later plain-http fetch down until restart (curl error 43 from the pooled
    /// handle the failed resolve left behind). Now it is one quiet 502, and the next sources, one by one and four at
    /// once, are 200.
    func testAnUnresolvableSourceDoesNotBreakTheNextRequests() throws {
        for i in 0..<8 { origin.setRoute("/ok\(i).png", .ok(png)) }
        let server = try serve(["--workers", "1", "--jobs", "1", "--queue", "8"])
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/ok0.png"))).status, 200)
        for attempt in 0..<2 {
            let failed = try server.get(ProxyPath.plain("http://nonexistent.invalid/x\(attempt).png"))
            XCTAssertEqual(failed.status, 502, failed.text)
            XCTAssertEqual(
                failed.text.trimmingCharacters(in: .whitespacesAndNewlines), "502 Bad Gateway: origin unreachable",
                "the class only, never libcurl's text")
        }
        for i in 1..<4 {
            let response = try server.get(ProxyPath.plain(origin.url("/ok\(i).png")))
            XCTAssertEqual(response.status, 200, "ok\(i): \(response.text)")
        }
        let statuses = Recorder<Int>()
        let paths = (4..<8).map { ProxyPath.plain(origin.url("/ok\($0).png")) }
        DispatchQueue.concurrentPerform(iterations: paths.count) { i in
            statuses.append((try? server.get(paths[i]).status) ?? -1)
        }
        XCTAssertEqual(statuses.values, [200, 200, 200, 200])
    }
}
