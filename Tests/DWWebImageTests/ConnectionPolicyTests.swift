// Configuration.connectionPolicy: the address actually connected is asked about, on the first connection and on
// every redirect; a refusal opens no socket, is not retried, and is a 10003 that says which address it was.
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class ConnectionPolicyTests: XCTestCase {
    func testRefusedAddressOpensNoConnectionAndIsNotRetried() throws {
        let asked = DWLock<[[UInt8]]>([])
        let h = try Harness {
            $0.retryCount = 3
            $0.retryDelay = 0
            $0.connectionPolicy = { ip, _ in
                asked.withLock { $0.append(ip) }; return false
            }
        }
        defer { h.close() }
        h.server.setRoute("/p.png", .ok(SampleImages.png(width: 2, height: 2)))
        let error = try XCTUnwrap(h.fetch(h.server.url("/p.png"), options: [.noCache]).error)
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.refusedAddress, "127.0.0.1")
        XCTAssertEqual(asked.value, [[127, 0, 0, 1]], "asked once: a refusal is not retried")
        XCTAssertEqual(h.server.acceptedConnections, 0)
    }

    func testEveryRedirectHopIsAsked() throws {
        let ports = DWLock<[Int]>([])
        let target = try LoopbackHTTPServer(routes: ["/t.png": .ok(SampleImages.png(width: 2, height: 2))])
        defer { target.shutdown() }
        let h = try Harness {
            $0.connectionPolicy = { _, port in
                ports.withLock { $0.append(port) }; return port != target.port
            }
        }
        defer { h.close() }
        h.server.setRoute("/r", .redirect(to: target.url("/t.png")))
        let error = try XCTUnwrap(h.fetch(h.server.url("/r"), options: [.noCache]).error)
        XCTAssertEqual(error.refusedAddress, "127.0.0.1")
        XCTAssertEqual(ports.value, [h.server.port, target.port])
        XCTAssertEqual(h.server.requestCount(path: "/r"), 1)
        XCTAssertEqual(target.acceptedConnections, 0, "nothing reached the refused redirect target")
    }

    func testAllowedAddressesFetchNormally() throws {
        let h = try Harness { $0.connectionPolicy = { ip, _ in ip == [127, 0, 0, 1] } }
        defer { h.close() }
        h.server.setRoute("/ok.png", .ok(SampleImages.png(width: 3, height: 2)))
        let image = try h.fetch(h.server.url("/ok.png"), options: [.noCache]).get()
        XCTAssertEqual(image.pixelWidth, 3)
    }
}
