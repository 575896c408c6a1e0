// Scheduling end to end: the order the server sees, with the one busy slot held by a gate (no delays raced).
// The rules themselves are tested on the value type in DownloadSchedulerTests.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class SchedulingTests: XCTestCase {
    private let png = SampleImages.png(width: 2, height: 2)

    /// A manager with one slot, taken by `/busy` until `gate` opens.
    private func busy(slots: Int = 1) throws -> (Harness, ResultBox, Gate) {
        let h = try Harness(slots: slots)
        let gate = Gate()
        gate.hold(h.server, "/busy", .ok(png))
        let box = ResultBox()
        h.manager.downloadImage(withURL: h.server.url("/busy"), options: [.noCache]) { box.set($0) }
        XCTAssertTrue(h.server.waitForActiveRequests(1, timeout: 10))
        return (h, box, gate)
    }

    private func assertNewestFirst(options: DWWebImageOptions) throws {
        let (h, box, gate) = try busy()
        defer { h.close() }
        for i in 2...6 { h.server.setRoute("/u\(i)", .ok(png)) }
        for i in 2...6 { h.manager.downloadImage(withURL: h.server.url("/u\(i)"), options: options) { box.set($0) } }
        XCTAssertTrue(h.waitForScheduled(waiting: 5, running: 1), "all five wait (after their disk lookups)")
        gate.open()
        XCTAssertTrue(box.waitFor(count: 6, timeout: 10))
        XCTAssertEqual(h.server.requestedPaths, ["/busy", "/u6", "/u5", "/u4", "/u3", "/u2"])
    }

    func testNewestWaitingOperationStartsFirst() throws {
        try assertNewestFirst(options: [.noCache])
    }

    func testNewestFirstHoldsWithDiskLookups() throws {
        try assertNewestFirst(options: [])
    }

    func testPriorityLanes() throws {
        // High-priority work waiting for a slot starts before normal work, and low after it.
        let (h, box, gate) = try busy()
        defer { h.close() }
        for name in ["n1", "n2", "l1", "h1"] { h.server.setRoute("/\(name)", .ok(png)) }
        h.manager.downloadImage(withURL: h.server.url("/n1"), options: [.noCache]) { box.set($0) }
        h.manager.downloadImage(withURL: h.server.url("/l1"), options: [.noCache, .lowPriority]) { box.set($0) }
        h.manager.downloadImage(withURL: h.server.url("/n2"), options: [.noCache]) { box.set($0) }
        h.manager.downloadImage(withURL: h.server.url("/h1"), options: [.noCache, .highPriority]) { box.set($0) }
        XCTAssertTrue(h.waitForScheduled(waiting: 4, running: 1))
        gate.open()
        XCTAssertTrue(box.waitFor(count: 5, timeout: 10))
        XCTAssertEqual(h.server.requestedPaths, ["/busy", "/h1", "/n2", "/n1", "/l1"])
    }

    func testEverySlotStaysBusy() throws {
        // 12 held URLs, 3 slots: exactly 3 transfers run, and each freed slot is taken by the next at once —
        // while every other response is still held, so nothing but the freed slot can explain the new start.
        let h = try Harness(slots: 3)
        defer { h.close() }
        let gate = Gate()
        for i in 0..<12 { gate.hold(h.server, "/s\(i)", .ok(png)) }
        let box = ResultBox()
        for i in 0..<12 {
            h.manager.downloadImage(withURL: h.server.url("/s\(i)"), options: [.noCache]) { box.set($0) }
        }
        XCTAssertTrue(h.waitForScheduled(waiting: 9, running: 3))
        XCTAssertTrue(h.server.waitForActiveRequests(3, timeout: 10))
        for done in 1...9 {
            gate.open()
            XCTAssertTrue(box.waitFor(count: done, timeout: 10))
            XCTAssertTrue(h.waitForScheduled(waiting: 9 - done, running: 3), "slot refilled after \(done) done")
            XCTAssertTrue(h.server.waitForActiveRequests(3, timeout: 10))
        }
        gate.open(3)
        XCTAssertTrue(box.waitFor(count: 12, timeout: 10))
        XCTAssertTrue(box.all.allSatisfy { $0.value != nil })
        XCTAssertEqual(h.server.maxConcurrentRequests, 3, "never more than maxConcurrentDownloads")
        XCTAssertEqual(h.manager.maxTransfersInFlight, 3)
    }

    func testMaxConcurrentDownloadsDefaultsToSix() throws {
        let h = try Harness()
        defer { h.close() }
        let manager = DWWebImageManager(cache: h.cache, removeExpiredAtStart: false)
        defer { manager.invalidate() }
        XCTAssertEqual(manager.maxConcurrentDownloads, 6)
    }
}
