// Configuration.requestsPerSecond(PerHost) and requestBurst, counted at the server: when each request arrived.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class RateLimitTests: XCTestCase {
    private let png = SampleImages.png(width: 2, height: 2)

    /// Eight downloads asked at once under 10 requests a second with a burst of 2: the server sees two at once, then
    /// the rest spread at the rate, so the eighth arrives at least (8 − 2) / 10 s after the first. Slots stay free
    /// meanwhile: a file loader's request is answered at once.
    func testABurstIsHeldToTheRateAndWaitingHoldsNoSlot() throws {
        let h = try Harness(slots: 2) {
            $0.requestsPerSecond = 10
            $0.requestBurst = 2
        }
        defer { h.close() }
        for i in 0..<8 { h.server.setRoute("/r\(i).png", .ok(png)) }
        let box = ResultBox()
        for i in 0..<8 {
            h.manager.downloadImage(withURL: h.server.url("/r\(i).png"), options: [.noCache]) { box.set($0) }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rate-\(UUID().uuidString).png")
        try png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(h.fetch(file.path, options: [.noCache]).value?.data, png, "a loader is not rate limited")
        XCTAssertTrue(box.waitFor(count: 8, timeout: 20))
        XCTAssertTrue(box.all.allSatisfy { $0.value != nil })
        let arrivals = h.server.requestLog.map(\.receivedAt).sorted()
        XCTAssertEqual(arrivals.count, 8)
        let spread = arrivals[7].timeIntervalSince(arrivals[0])
        XCTAssertGreaterThanOrEqual(spread, 0.55, "six requests beyond the burst at 10/s: at least ~0.6 s")
        XCTAssertLessThan(arrivals[1].timeIntervalSince(arrivals[0]), 0.09, "the burst's two go at once")
    }

    /// The per-host bucket holds one host to its rate while another host's requests are not held by it.
    func testThePerHostRateHoldsOneHostOnly() throws {
        let h = try Harness(slots: 6) { $0.requestsPerSecondPerHost = 5 }
        defer { h.close() }
        let other = try LoopbackHTTPServer()
        defer { other.shutdown() }
        for i in 0..<4 {
            h.server.setRoute("/a\(i).png", .ok(png))
            other.setRoute("/b\(i).png", .ok(png))
        }
        let box = ResultBox()
        for i in 0..<4 {
            h.manager.downloadImage(withURL: h.server.url("/a\(i).png"), options: [.noCache]) { box.set($0) }
            h.manager.downloadImage(withURL: other.url("/b\(i).png"), options: [.noCache]) { box.set($0) }
        }
        XCTAssertTrue(box.waitFor(count: 8, timeout: 20))
        for log in [h.server.requestLog, other.requestLog] {
            let arrivals = log.map(\.receivedAt).sorted()
            XCTAssertEqual(arrivals.count, 4)
            XCTAssertGreaterThanOrEqual(arrivals[3].timeIntervalSince(arrivals[0]), 0.5, "3 beyond the burst at 5/s")
        }
    }
}
