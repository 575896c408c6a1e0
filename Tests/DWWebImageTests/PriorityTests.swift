// Priorities, the prefetcher, per-host caps and metrics: what someone is waiting for goes first.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class PriorityTests: XCTestCase {
    private let png = SampleImages.png(width: 4, height: 4)

    /// One slot, occupied by `/busy` (held by a gate) while the test queues work behind it.
    private func busyHarness() throws -> (Harness, ResultBox, Gate) {
        let h = try Harness(slots: 1)
        let gate = Gate()
        gate.hold(h.server, "/busy", .ok(png))
        let box = ResultBox()
        h.manager.downloadImage(withURL: h.server.url("/busy"), options: [.noCache]) { box.set($0) }
        XCTAssertTrue(h.server.waitForActiveRequests(1, timeout: 10))
        return (h, box, gate)
    }

    func testNormalBeatsWaitingLowsAndLowsGoNewestFirst() throws {
        let (h, box, gate) = try busyHarness()
        defer { h.close() }
        for name in ["l1", "l2", "l3", "l4", "l5", "n1"] { h.server.setRoute("/\(name)", .ok(png)) }
        for i in 1...5 {
            h.manager.downloadImage(withURL: h.server.url("/l\(i)"), options: [.noCache, .lowPriority]) { box.set($0) }
        }
        h.manager.downloadImage(withURL: h.server.url("/n1"), options: [.noCache]) { box.set($0) }
        XCTAssertTrue(h.waitForScheduled(waiting: 6, running: 1))
        gate.open()
        XCTAssertTrue(box.waitFor(count: 7, timeout: 10))
        XCTAssertEqual(h.server.requestedPaths, ["/busy", "/n1", "/l5", "/l4", "/l3", "/l2", "/l1"])
    }

    func testFiveLevelsInOrder() throws {
        let (h, box, gate) = try busyHarness()
        defer { h.close() }
        let levels: [DWWebImagePriority] = [.normal, .veryLow, .high, .low, .veryHigh]
        for level in levels {
            h.server.setRoute("/\(level)", .ok(png))
            h.manager.downloadImage(withURL: h.server.url("/\(level)"), options: [.noCache, .priority(level)]) {
                box.set($0)
            }
        }
        XCTAssertTrue(h.waitForScheduled(waiting: 5, running: 1))
        gate.open()
        XCTAssertTrue(box.waitFor(count: 6, timeout: 10))
        XCTAssertEqual(h.server.requestedPaths, ["/busy", "/veryHigh", "/high", "/normal", "/low", "/veryLow"])
    }

    func testRaisingAWaitingRequestTakesEffectAtTheNextFreeSlot() throws {
        let (h, box, gate) = try busyHarness()
        defer { h.close() }
        var tokens: [DWWebImageToken] = []
        for i in 1...4 {
            h.server.setRoute("/l\(i)", .ok(png))
            tokens.append(
                h.manager.downloadImage(withURL: h.server.url("/l\(i)"), options: [.noCache, .lowPriority]) {
                    box.set($0)
                })
        }
        XCTAssertEqual(tokens[1].priority, .low)
        tokens[1].priority = .high  // l2: the second oldest
        XCTAssertTrue(h.waitForScheduled(waiting: 4, running: 1))
        gate.open()
        XCTAssertTrue(box.waitFor(count: 5, timeout: 10))
        XCTAssertEqual(h.server.requestedPaths, ["/busy", "/l2", "/l4", "/l3", "/l1"])
    }

    func testASharedDownloadRunsAtItsMostUrgentCallersPriorityUntilThatCallerCancels() throws {
        let (h, box, gate) = try busyHarness()
        defer { h.close() }
        for name in ["shared", "n1", "n2"] { h.server.setRoute("/\(name)", .ok(png)) }
        h.manager.downloadImage(withURL: h.server.url("/shared"), options: [.noCache, .lowPriority]) { box.set($0) }
        h.manager.downloadImage(withURL: h.server.url("/n1"), options: [.noCache]) { box.set($0) }
        let urgent = h.manager.downloadImage(withURL: h.server.url("/shared"), options: [.noCache, .highPriority]) {
            box.set($0)
        }
        XCTAssertTrue(h.waitForScheduled(waiting: 2, running: 1))
        gate.open()
        XCTAssertTrue(box.waitFor(count: 4, timeout: 10))
        XCTAssertEqual(
            h.server.requestedPaths, ["/busy", "/shared", "/n1"], "the high caller lifted the shared download")
        _ = urgent

        // The same, but the urgent caller cancels while waiting: the download falls back to low.
        h.server.resetStatistics()
        let (h2, box2, gate2) = try busyHarness()
        defer { h2.close() }
        for name in ["shared", "n1"] { h2.server.setRoute("/\(name)", .ok(png)) }
        h2.manager.downloadImage(withURL: h2.server.url("/shared"), options: [.noCache, .lowPriority]) { box2.set($0) }
        h2.manager.downloadImage(withURL: h2.server.url("/n1"), options: [.noCache]) { box2.set($0) }
        let urgent2 = h2.manager.downloadImage(withURL: h2.server.url("/shared"), options: [.noCache, .highPriority]) {
            box2.set($0)
        }
        h2.manager.cancel(urgent2)
        XCTAssertTrue(h2.waitForScheduled(waiting: 2, running: 1))
        gate2.open()
        XCTAssertTrue(box2.waitFor(count: 4, timeout: 10))
        XCTAssertEqual(h2.server.requestedPaths, ["/busy", "/n1", "/shared"], "its priority stopped counting")
        XCTAssertEqual(box2.all.filter { $0.error?.code == .cancelled }.count, 1)
    }

    func testPrefetcherReportsEachAndCounts() throws {
        let h = try Harness()
        defer { h.close() }
        for i in 0..<5 { h.server.setRoute("/p\(i).png", .ok(SampleImages.png(width: 3, height: 3, seed: UInt8(i)))) }
        h.server.setRoute("/missing.png", .status(404))
        h.cache.cacheObj(png, forKey: h.server.url("/cached.png"))
        _ = h.cache.waitForPendingWrites()
        let urls =
            (0..<5).map { h.server.url("/p\($0).png") } + [h.server.url("/missing.png"), h.server.url("/cached.png")]
        let prefetcher = DWWebImagePrefetcher(manager: h.manager)
        let each = Recorder<(String, Bool)>()
        let done = expectation(description: "completion")
        let counts = Recorder<(Int, Int, Int)>()
        prefetcher.prefetchURLs(urls, each: { url, result in each.append((url, result.value != nil)) }) { f, x, s in
            counts.append((f, x, s))
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(each.values.count, urls.count, "each URL reported once")
        XCTAssertEqual(Set(each.values.map(\.0)), Set(urls))
        let c = try XCTUnwrap(counts.values.first)
        XCTAssertEqual(c.0, 5, "finished: fetched from the network")
        XCTAssertEqual(c.1, 1, "failed")
        XCTAssertEqual(c.2, 1, "skipped: already cached")
        XCTAssertNil(h.server.requestLog.first { $0.path == "/cached.png" })
        for i in 0..<5 {
            XCTAssertNotNil(h.cache.objCache(forKey: h.server.url("/p\(i).png")), "prefetched into the cache")
        }
    }

    func testPrefetchNeverUsesMoreThanItsCapAndAWaiterLiftsAPrefetchAtOnce() throws {
        let h = try Harness()  // 6 slots
        defer { h.close() }
        let gate = Gate()
        for i in 0..<12 { gate.hold(h.server, "/p\(i).png", .ok(png)) }
        let prefetcher = DWWebImagePrefetcher(manager: h.manager)
        let done = expectation(description: "prefetch done")
        let urls = (0..<12).map { h.server.url("/p\($0).png") }
        prefetcher.prefetchURLs(urls, completion: { _, _, _ in done.fulfill() })
        XCTAssertTrue(
            h.waitForScheduled(waiting: 10, running: 2), "the prefetch cap (2) holds although 4 slots are free")
        XCTAssertTrue(h.server.waitForActiveRequests(2, timeout: 10))

        // Someone wants p10 (deep in the prefetch list): it starts while both prefetches are still held, so it
        // did not wait for them.
        let box = ResultBox()
        h.manager.downloadImage(withURL: urls[10]) { box.set($0) }
        XCTAssertTrue(h.waitForScheduled(waiting: 9, running: 3))
        XCTAssertTrue(h.server.waitForActiveRequests(3, timeout: 10))
        XCTAssertEqual(h.server.requestLog.filter { $0.path == "/p10.png" }.count, 1)
        gate.open(12)
        XCTAssertNotNil(box.wait(timeout: 10)?.value)
        wait(for: [done], timeout: 20)
        XCTAssertLessThanOrEqual(h.server.maxConcurrentRequests, 3, "two prefetches plus the lifted one")
        XCTAssertEqual(h.server.requestLog.filter { $0.path == "/p10.png" }.count, 1, "joined, not fetched twice")
    }

    func testCancelPrefetchingCompletesWithCancelledCountedAsFailed() throws {
        let h = try Harness()
        defer { h.close() }
        let gate = Gate()
        defer { gate.open(6) }
        for i in 0..<6 { gate.hold(h.server, "/p\(i).png", .ok(png)) }
        let prefetcher = DWWebImagePrefetcher(manager: h.manager)
        let done = expectation(description: "done")
        let counts = Recorder<(Int, Int, Int)>()
        prefetcher.prefetchURLs(
            (0..<6).map { h.server.url("/p\($0).png") },
            completion: { f, x, s in
                counts.append((f, x, s))
                done.fulfill()
            })
        XCTAssertTrue(h.server.waitForActiveRequests(2, timeout: 10))
        prefetcher.cancelPrefetching()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(
            counts.values.first?.1, 6, "\(String(describing: counts.values.first)) log \(h.server.requestedPaths)")
    }

    func testPerHostCapHoldsWhileAnotherHostProceeds() throws {
        let h = try Harness()  // 6 slots
        defer { h.close() }
        h.manager.maxConcurrentDownloadsPerHost = 2
        let other = try LoopbackHTTPServer()
        defer { other.shutdown() }
        let gate = Gate()
        for i in 0..<6 { gate.hold(h.server, "/a\(i).png", .ok(png)) }
        for i in 0..<2 { other.setRoute("/b\(i).png", .ok(png)) }
        let box = ResultBox()
        for i in 0..<6 { h.manager.downloadImage(withURL: h.server.url("/a\(i).png")) { box.set($0) } }
        XCTAssertTrue(h.server.waitForActiveRequests(2, timeout: 10))
        XCTAssertTrue(h.waitForScheduled(waiting: 4, running: 2))
        for i in 0..<2 { h.manager.downloadImage(withURL: other.url("/b\(i).png")) { box.set($0) } }
        // Host B's two finish while host A's two are still held: B did not wait behind A's queue.
        XCTAssertTrue(box.waitFor(count: 2, timeout: 10))
        XCTAssertEqual(other.requestLog.count, 2)
        XCTAssertEqual(h.server.activeRequests, 2)
        gate.open(6)
        XCTAssertTrue(box.waitFor(count: 8, timeout: 20))
        XCTAssertEqual(h.server.maxConcurrentRequests, 2, "never more than 2 at host A")
    }

    func testMetricsRecordWhatTheServerSent() throws {
        let h = try Harness()
        defer { h.close() }
        let body = SampleImages.png(approximateSize: 300_000, seed: 3)
        h.server.setRoute("/m.png", .delayed(0.1, .ok(body)))
        h.server.setRoute("/gone.png", .status(404, body: Data("nope".utf8)))
        let records = Recorder<DWDownloadMetrics>()
        h.manager.metricsHandler = { records.append($0) }
        let finish = expectation(forNotification: .DWWebImageDownloadFinish, object: nil, notificationCenter: h.center)
        { note in
            (note.userInfo?["metrics"] as? DWDownloadMetrics)?.url == h.server.url("/m.png")
        }
        let image = try h.fetch(h.server.url("/m.png")).get()
        wait(for: [finish], timeout: 5)
        _ = h.fetch(h.server.url("/gone.png"))
        _ = try h.fetch(h.server.url("/m.png")).get()  // memory hit
        h.drainCallbacks()
        let all = records.values
        XCTAssertEqual(all.count, 3)
        let network = try XCTUnwrap(all.first { $0.url == h.server.url("/m.png") && $0.source == .network })
        XCTAssertEqual(network.bytesReceived, Int64(h.server.bodyBytesSent(path: "/m.png")))
        XCTAssertEqual(network.bytesReceived, Int64(body.count))
        XCTAssertEqual(network.attempts, 1)
        XCTAssertEqual(network.httpStatus, 200)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(network.timeToFirstByte), 0.09, "the server waited 0.1 s")
        XCTAssertGreaterThanOrEqual(network.total, network.elapsed)
        XCTAssertEqual(image.metrics, network)
        let failed = try XCTUnwrap(all.first { $0.url == h.server.url("/gone.png") })
        XCTAssertEqual(failed.errorCode, .httpStatus)
        XCTAssertEqual(failed.httpStatus, 404)
        XCTAssertEqual(all.last?.source, .memory)
        XCTAssertEqual(all.last?.bytesReceived, 0)
    }
}
