// Newest first without serialising: waiting operations start newest first while every slot stays busy.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class SchedulingTests: XCTestCase {
    private func assertNewestFirst(options: DWWebImageOptions) throws {
        let h = try Harness(slots: 1)
        defer { h.close() }
        let png = SampleImages.png(width: 2, height: 2)
        h.server.setRoute("/u1", .delayed(0.6, .ok(png)))
        for i in 2...6 { h.server.setRoute("/u\(i)", .ok(png)) }
        let box = ResultBox()
        h.manager.downloadImage(withURL: h.server.url("/u1"), options: options) { box.set($0) }
        XCTAssertTrue(h.server.waitForActiveRequests(1, timeout: 5))
        for i in 2...6 { h.manager.downloadImage(withURL: h.server.url("/u\(i)"), options: options) { box.set($0) } }
        XCTAssertTrue(box.waitFor(count: 6, timeout: 10))
        XCTAssertEqual(h.server.requestedPaths, ["/u1", "/u6", "/u5", "/u4", "/u3", "/u2"])
    }

    func testNewestWaitingOperationStartsFirst() throws {
        try assertNewestFirst(options: [.noCache])
    }

    func testNewestFirstHoldsWithDiskLookups() throws {
        try assertNewestFirst(options: [])
    }

    func testPriorityLanes() throws {
        // High-priority work waiting for a slot starts before normal work, and low after it.
        let h = try Harness(slots: 1)
        defer { h.close() }
        let png = SampleImages.png(width: 2, height: 2)
        h.server.setRoute("/busy", .delayed(0.6, .ok(png)))
        for name in ["n1", "n2", "l1", "h1"] { h.server.setRoute("/\(name)", .ok(png)) }
        let box = ResultBox()
        h.manager.downloadImage(withURL: h.server.url("/busy"), options: [.noCache]) { box.set($0) }
        XCTAssertTrue(h.server.waitForActiveRequests(1, timeout: 5))
        h.manager.downloadImage(withURL: h.server.url("/n1"), options: [.noCache]) { box.set($0) }
        h.manager.downloadImage(withURL: h.server.url("/l1"), options: [.noCache, .lowPriority]) { box.set($0) }
        h.manager.downloadImage(withURL: h.server.url("/n2"), options: [.noCache]) { box.set($0) }
        h.manager.downloadImage(withURL: h.server.url("/h1"), options: [.noCache, .highPriority]) { box.set($0) }
        XCTAssertTrue(box.waitFor(count: 5, timeout: 10))
        XCTAssertEqual(h.server.requestedPaths, ["/busy", "/h1", "/n2", "/n1", "/l1"])
    }

    func testEverySlotStaysBusy() throws {
        // 30 slow URLs, 3 slots: a chain that released on *finish* would leave one transfer in flight after the
        // first burst. Sample the server's in-flight count over the whole run.
        let h = try Harness(slots: 3)
        defer { h.close() }
        let png = SampleImages.png(width: 2, height: 2)
        for i in 0..<30 { h.server.setRoute("/s\(i)", .delayed(0.25, .ok(png))) }
        let box = ResultBox()
        for i in 0..<30 { h.manager.downloadImage(withURL: h.server.url("/s\(i)"), options: [.noCache]) { box.set($0) } }
        var samples: [Int] = []
        while box.count < 30 {
            samples.append(h.server.activeRequests)
            usleep(10_000)
            if samples.count > 3000 { break }
        }
        XCTAssertEqual(box.count, 30)
        XCTAssertTrue(box.all.allSatisfy { $0.value != nil })
        XCTAssertEqual(h.server.maxConcurrentRequests, 3, "never more than maxConcurrentDownloads")
        let busy = Double(samples.filter { $0 == 3 }.count) / Double(max(1, samples.count))
        XCTAssertGreaterThan(busy, 0.75, "3 transfers in flight for most of the run (got \(Int(busy * 100))%)")
    }

    func testMaxConcurrentDownloadsDefaultsToSix() throws {
        let h = try Harness()
        defer { h.close() }
        XCTAssertEqual(DWWebImageManager(cache: h.cache, removeExpiredAtStart: false).maxConcurrentDownloads, 6)
    }
}
