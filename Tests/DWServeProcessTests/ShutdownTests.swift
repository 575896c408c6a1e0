// SIGTERM and SIGINT on a real `dwfetch serve`: every accepted response arrives in full, the deadline cuts and says
// so, a second signal exits at once. Each signal test runs 20 times in a row: a race seen once in twenty fails it.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ShutdownTests: ServeTestCase {
    static let rounds = 20
    /// A PNG of about 5 MB (noise does not compress), made once.
    // 5 MB of pixels and nothing else (IHDR, IDAT, IEND): served as it is, since there is no metadata to strip.
    static let big = SampleImages.png(width: 1300, height: 1280)

    override func setUpWithError() throws {
        try super.setUpWithError()
        origin.setRoute("/big.png", .ok(Self.big, contentType: "image/png"))
    }

    var bigPath: String { ProxyPath.plain(origin.url("/big.png")) }

    /// A response the client has barely started reading (the rest of the 5 MB still in the server) when SIGTERM
    /// arrives: all of it arrives, and the server exits 0 well within the timeout.
    func testSIGTERMMidBodyDeliversEveryByteAndExitsZero() throws {
        for round in 1...Self.rounds {
            let server = try serve(["--shutdown-timeout", "20"])
            let reader = try SlowReader(port: server.port, target: bigPath)
            let head = try reader.readHead(bodyBytes: 1)
            XCTAssertEqual(head.status, 200)
            XCTAssertEqual(head.contentLength, Self.big.count)
            let signalled = Date()
            kill(server.process.processIdentifier, SIGTERM)
            XCTAssertTrue(server.waitForStderr(containing: "shutting down"), "round \(round): \(server.stderr)")
            let body = reader.readToEnd()
            XCTAssertEqual(body.count, Self.big.count, "round \(round): every byte arrives")
            XCTAssertTrue(body == Self.big, "round \(round): the bytes are the source's")
            XCTAssertEqual(server.waitForExit(timeout: 20), 0, "round \(round): exit 0 after draining")
            XCTAssertLessThan(Date().timeIntervalSince(signalled), 20, "round \(round): within the timeout")
            if body.count != Self.big.count { return }
        }
    }

    /// Ten such responses at once: all ten complete.
    func testTenResponsesInFlightAllComplete() throws {
        for round in 1...Self.rounds {
            let server = try serve(["--shutdown-timeout", "20"])
            let readers = try (0..<10).map { _ in try SlowReader(port: server.port, target: bigPath) }
            for reader in readers { XCTAssertEqual(try reader.readHead(bodyBytes: 1).status, 200) }
            kill(server.process.processIdentifier, SIGTERM)
            XCTAssertTrue(server.waitForStderr(containing: "shutting down"), "round \(round)")
            let complete = readers.map { $0.readToEnd() == Self.big }
            XCTAssertEqual(complete, Array(repeating: true, count: 10), "round \(round): every response complete")
            XCTAssertEqual(server.waitForExit(timeout: 20), 0, "round \(round)")
            if complete.contains(false) { return }
        }
    }

    /// A client that stops reading: at `--shutdown-timeout 1` its response is cut, the cut is logged with its
    /// count, and the server still exits 0, soon after the deadline.
    func testTheDeadlineCutsLogsAndExitsZero() throws {
        for round in 1...Self.rounds {
            let server = try serve(["--shutdown-timeout", "1"])
            let reader = try SlowReader(port: server.port, target: bigPath)
            XCTAssertEqual(try reader.readHead(bodyBytes: 1).status, 200)
            let signalled = Date()
            kill(server.process.processIdentifier, SIGTERM)
            let status = server.waitForExit(timeout: 15)
            XCTAssertEqual(status, 0, "round \(round): exit 0 at the deadline")
            XCTAssertLessThan(Date().timeIntervalSince(signalled), 10, "round \(round): soon after the 1 s deadline")
            XCTAssertTrue(
                server.stderr.contains("shutdown: 1 response(s) cut at the 1.0 s deadline"),
                "round \(round): \(server.stderr)")
            XCTAssertTrue(server.stderr.contains("big.png"), "round \(round): the cut names its request")
            XCTAssertLessThan(reader.readToEnd(timeout: 10).count, Self.big.count, "round \(round): the body was cut")
            if status != 0 { return }
        }
    }

    /// A second SIGTERM during the drain ends the process at once with 143.
    func testASecondSignalExitsAtOnceNonZero() throws {
        for round in 1...Self.rounds {
            let server = try serve(["--shutdown-timeout", "30"])
            let reader = try SlowReader(port: server.port, target: bigPath)
            XCTAssertEqual(try reader.readHead(bodyBytes: 1).status, 200)
            kill(server.process.processIdentifier, SIGTERM)
            XCTAssertTrue(server.waitForStderr(containing: "shutting down"), "round \(round)")
            let second = Date()
            kill(server.process.processIdentifier, round % 2 == 0 ? SIGINT : SIGTERM)
            let status = server.waitForExit(timeout: 5)
            XCTAssertEqual(status, round % 2 == 0 ? 130 : 143, "round \(round): at once, 128 + the signal")
            XCTAssertLessThan(Date().timeIntervalSince(second), 3, "round \(round)")
            if status == nil { return }
        }
    }

    /// A keep-alive request whose answer is written after SIGTERM (its origin answers only once the shutdown has
    /// begun) gets `Connection: close` and its whole body; the server exits 0.
    func testAResponseWrittenDuringShutdownSaysConnectionClose() throws {
        let body = SampleImages.png(width: 100, height: 100)  // 30 kB of pixels, no metadata: served as it is
        let gate = DispatchSemaphore(value: 0)
        origin.setRoute(
            "/gated.png",
            .dynamic { _ in
                gate.wait()
                return .ok(body, contentType: "image/png")
            })
        for round in 1...Self.rounds {
            let server = try serve()
            let reader = try SlowReader(
                port: server.port, target: ProxyPath.plain(origin.url("/gated.png")), keepAlive: true)
            let asked = eventually(timeout: 10) { self.origin.requestCount(path: "/gated.png") >= round }
            if asked { kill(server.process.processIdentifier, SIGTERM) }
            let draining = server.waitForStderr(containing: "shutting down")
            if asked { gate.signal() }
            XCTAssertTrue(asked && draining, "round \(round): the fetch waits at the origin while the shutdown begins")
            let head = try reader.readHead(bodyBytes: 0)
            XCTAssertEqual(head.status, 200, "round \(round)")
            XCTAssertEqual(head.header("Connection")?.lowercased(), "close", "round \(round)")
            XCTAssertEqual(reader.readToEnd(), body, "round \(round)")
            XCTAssertEqual(server.waitForExit(timeout: 20), 0, "round \(round)")
            if !(asked && draining) { return }
        }
    }
}
