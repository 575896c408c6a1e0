// Memory hits answered on the caller's thread: DWWebImageManager.imageFromMemory and the async API built on it.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

/// Records every metrics record with whether it arrived on the manager's callback queue.
private final class MetricsLog: Sendable {
    private let records = Recorder<(DWImageSource, Bool)>()
    func add(_ metrics: DWDownloadMetrics, onCallbackQueue: Bool) { records.append((metrics.source, onCallbackQueue)) }
    var all: [(DWImageSource, Bool)] { records.values }
}

final class MemoryHitTests: XCTestCase {
    private let png = SampleImages.png(width: 24, height: 16, seed: 3)

    func testAsyncMemoryHitIsAnsweredInPlaceAndCountedOnTheCallbackQueue() async throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/m.png", .ok(png))
        let url = h.server.url("/m.png")
        let key = DispatchSpecificKey<Bool>()
        h.manager.callbackQueue.setSpecific(key: key, value: true)
        let log = MetricsLog()
        h.manager.metricsHandler = { log.add($0, onCallbackQueue: DispatchQueue.getSpecific(key: key) == true) }

        XCTAssertNil(h.manager.imageFromMemory(withURL: url), "nothing in memory yet, and nothing started")
        XCTAssertEqual(h.server.requestLog.count, 0)
        let first = try await h.manager.image(withURL: url)
        XCTAssertEqual(first.source, .network)
        for _ in 0..<3 {
            let hit = try await h.manager.image(withURL: url)
            XCTAssertEqual(hit.source, .memory)
            XCTAssertEqual(hit.data, first.data)
        }
        XCTAssertEqual(h.manager.imageFromMemory(withURL: url)?.source, .memory)
        XCTAssertNil(h.manager.imageFromMemory(withURL: url, options: .refreshCached), "refresh never reads memory")
        XCTAssertNil(h.manager.imageFromMemory(withURL: url, options: .noCache))
        XCTAssertNil(
            h.manager.imageFromMemory(withURL: "ftp://example.invalid/x.png"), "refused URLs are the callback API's")
        XCTAssertEqual(h.server.requestLog.count, 1)
        // The hits' records are handed over in one block on the callback queue, memoryHitReportDelay after the first.
        let delivered = await waitUntil { log.all.filter { $0.0 == .memory }.count == 4 }
        XCTAssertTrue(delivered)
        h.drainCallbacks()
        let records = log.all
        XCTAssertEqual(records.filter { $0.0 == .memory }.count, 4, "every hit is counted")
        XCTAssertEqual(records.filter { $0.0 == .network }.count, 1)
        XCTAssertTrue(records.allSatisfy(\.1), "metrics only on the callback queue")
    }

    func testABurstOfHitsIsHandedToTheCallbackQueueInFewBlocks() async throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/b.png", .ok(png))
        let url = h.server.url("/b.png")
        _ = try await h.manager.image(withURL: url)
        h.drainCallbacks()
        // Each hit is followed by a marker block on the callback queue; a record sees how many markers ran before
        // the block that delivered it, so the records of one block share a count.
        let markers = Recorder<Int>(), seenAt = Recorder<Int>()
        h.manager.metricsHandler = { record in
            if record.source == .memory { seenAt.append(markers.values.count) }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<200 {
            XCTAssertNotNil(h.manager.imageFromMemory(withURL: url))
            h.manager.callbackQueue.async { markers.append(index) }
        }
        let milliseconds = Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
        let delivered = await waitUntil { seenAt.values.count == 200 }
        XCTAssertTrue(delivered, "\(seenAt.values.count) of 200 records")
        // A block is scheduled 2 ms after the first record it takes, so the hits' window holds at most one a 2 ms.
        let blocks = Set(seenAt.values).count
        XCTAssertLessThanOrEqual(blocks, milliseconds / 2 + 1, "\(blocks) blocks for 200 hits in \(milliseconds) ms")
    }

    func testTheCallbackAPIStillDeliversMemoryHitsOnTheCallbackQueue() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/c.png", .ok(png))
        let url = h.server.url("/c.png")
        _ = try h.fetch(url).get()
        let key = DispatchSpecificKey<Bool>()
        h.manager.callbackQueue.setSpecific(key: key, value: true)
        let box = ResultBox()
        let onQueue = Recorder<Bool>()
        h.manager.downloadImage(withURL: url) { result in
            onQueue.append(DispatchQueue.getSpecific(key: key) == true)
            box.set(result)
        }
        let result = try XCTUnwrap(box.wait(timeout: 10))
        XCTAssertEqual(try result.get().source, .memory)
        XCTAssertEqual(onQueue.values, [true])
    }
}
