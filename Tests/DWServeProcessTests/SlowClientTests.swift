// Slow and greedy clients against the built `dwfetch serve`: a client that never reads its response, a client
// holding more connections than its share, silent connections to the metrics listener.
import DWTestServer
import Foundation
import XCTest

final class SlowClientTests: ServeTestCase {
    func testAClientThatNeverReadsIsClosedWithinTheWriteTimeout() throws {
        let big = SampleImages.png(approximateSize: 12_000_000)
        origin.setRoute("/big.png", .ok(big, contentType: "image/png"))
        let server = try serve(["--write-timeout", "2", "--idle-timeout", "30", "--header-timeout", "30"])
        let fd = try RawSocket.connect(port: server.port, from: "127.0.0.1", receiveBuffer: 4096, receiveTimeout: 20)
        defer { close(fd) }
        let request = "GET \(ProxyPath.plain(origin.url("/big.png"), options: "raw:1")) HTTP/1.1\r\nHost: x\r\n\r\n"
        XCTAssertEqual(
            Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }, request.utf8.count)
        sleep(6)  // reads nothing: the server's writes stall
        XCTAssertEqual(try server.get("/health").status, 200, "others are served meanwhile")
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 {
                XCTAssertTrue(
                    n == 0 || errno == ECONNRESET, "ended by the server, not the receive timeout: errno \(errno)")
                break
            }
            received += n
        }
        XCTAssertLessThan(received, big.count, "the connection was closed before the body was written in full")
    }

    func testASlowClientThatKeepsReadingOutlivesTheWriteTimeout() throws {
        let big = SampleImages.png(approximateSize: 12_000_000)
        origin.setRoute("/big.png", .ok(big, contentType: "image/png"))
        let server = try serve(["--write-timeout", "2"])
        let fd = try RawSocket.connect(port: server.port, from: "127.0.0.1", receiveBuffer: 65536, receiveTimeout: 20)
        defer { close(fd) }
        let request =
            "GET \(ProxyPath.plain(origin.url("/big.png"), options: "raw:1")) HTTP/1.1\r\nHost: x\r\n"
            + "Connection: close\r\n\r\n"
        XCTAssertEqual(
            Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }, request.utf8.count)
        let started = ContinuousClock.now
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {  // at most 64 KiB each 50 ms, about 1.3 MB/s: the 12 MB take several write timeouts
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += n
            usleep(50_000)
        }
        XCTAssertGreaterThan(ContinuousClock.now - started, .seconds(4), "the reading outlasted the write timeout")
        XCTAssertGreaterThan(received, big.count, "head and whole body: progress keeps the connection")
    }

    func testAClientOverItsConnectionShareCannotStopAnotherClient() throws {
        let server = try serve(["--max-connections", "8", "--header-timeout", "60", "--idle-timeout", "60"])
        var silent: [Int32] = []
        defer { silent.forEach { close($0) } }
        for _ in 0..<20 {  // more than --max-connections, all from 127.0.0.1, none sending anything
            silent.append(try RawSocket.connect(port: server.port, from: "127.0.0.1", receiveTimeout: 5))
        }
        let other = try RawSocket.connect(port: server.port, from: "127.0.0.2", receiveTimeout: 10)
        defer { close(other) }
        let request = Array("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        XCTAssertEqual(request.withUnsafeBytes { send(other, $0.baseAddress, $0.count, 0) }, request.count)
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = recv(other, &buffer, buffer.count, 0)
        XCTAssertGreaterThan(n, 0, "127.0.0.2 is answered although 127.0.0.1 opened 20 connections: errno \(errno)")
        XCTAssertTrue(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        let closed = Self.closedCount(silent, within: .seconds(3))
        XCTAssertGreaterThanOrEqual(
            closed, 18, "beyond its share of 2 (a quarter of 8) a peer's connections are closed")
    }

    func testTheMetricsListenerClosesSilentConnections() throws {
        let server = try serve(["--header-timeout", "1", "--idle-timeout", "1"])
        let metricsPort = try XCTUnwrap(server.metricsPort)
        var silent: [Int32] = []
        defer { silent.forEach { close($0) } }
        for _ in 0..<70 {  // more than the listener's 64 connections
            silent.append(try RawSocket.connect(port: metricsPort, from: "127.0.0.1", receiveTimeout: 8))
        }
        XCTAssertEqual(Self.closedCount(silent, within: .seconds(5)), silent.count, "closed by the 1 s header timer")
        let scrape = try HTTPClient.request(port: metricsPort, target: "/metrics", timeout: 10)
        XCTAssertEqual(scrape.status, 200)
    }

    /// How many of `fds` the server closed (end of stream or reset) within `limit`; they must not be sent data.
    static func closedCount(_ fds: [Int32], within limit: Duration) -> Int {
        var open = Set(fds), closed = 0
        let deadline = ContinuousClock.now + limit
        while !open.isEmpty, ContinuousClock.now < deadline {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 100) > 0 else { continue }
            for entry in polled where entry.revents != 0 {
                var byte: UInt8 = 0
                let n = recv(entry.fd, &byte, 1, Int32(MSG_DONTWAIT))
                if n == 0 || (n < 0 && errno != EAGAIN) {
                    open.remove(entry.fd)
                    closed += 1
                }
            }
        }
        return closed
    }
}
