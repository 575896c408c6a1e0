// The callback array: one transfer per URL however many callers, and cancellation per caller or per URL.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class CoalescingAndCancelTests: XCTestCase {
    func testTwentyConcurrentCallersShareOneRequest() throws {
        let h = try Harness()
        defer { h.close() }
        let png = SampleImages.png(width: 40, height: 30)
        h.server.setRoute("/cat.png", .delayed(0.3, .ok(png, contentType: "image/png")))
        let box = ResultBox()
        let url = h.server.url("/cat.png")
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            h.manager.downloadImage(withURL: url, options: [.noCache]) { box.set($0) }
        }
        XCTAssertTrue(box.waitFor(count: 20, timeout: 10))
        h.drainCallbacks()
        XCTAssertEqual(box.count, 20, "every caller gets exactly one completion")
        XCTAssertEqual(h.server.requestCount(path: "/cat.png"), 1)
        for result in box.all {
            let image = try XCTUnwrap(result.value)
            XCTAssertEqual(image.data, png)
            XCTAssertEqual(image.pixelWidth, 40)
            XCTAssertEqual(image.source, .network)
        }
    }

    func testCancellingOneOfTwoWaitersKeepsTheDownloadForTheOther() throws {
        let h = try Harness()
        defer { h.close() }
        let png = SampleImages.png(width: 8, height: 8)
        h.server.setRoute("/slow.png", .delayed(0.5, .ok(png)))
        let url = h.server.url("/slow.png")
        let first = ResultBox(), second = ResultBox()
        let token = h.manager.downloadImage(withURL: url) { first.set($0) }
        h.manager.downloadImage(withURL: url) { second.set($0) }
        XCTAssertTrue(h.server.waitForActiveRequests(1, timeout: 5))
        // Both callers are on the download (the second's disk lookup may still be running otherwise: cancelling
        // the only caller then stops the transfer, and the second starts a new one).
        XCTAssertTrue(eventually(timeout: 5) { h.manager.waiterCount(forURL: url) == 2 })
        h.manager.cancel(token)
        XCTAssertEqual(first.wait(timeout: 2)?.error?.code, .cancelled, "the cancelled caller hears 10007 at once")
        XCTAssertEqual(try XCTUnwrap(second.wait(timeout: 5)).value?.data, png)
        h.drainCallbacks()
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(second.count, 1)
        XCTAssertEqual(h.server.requestCount(path: "/slow.png"), 1)
    }

    func testCancellingTheLastWaiterStopsTheTransferAndPostsStop() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/hang.png", .hang)
        let url = h.server.url("/hang.png")
        let stop = expectation(forNotification: .DWWebImageDownloadStop, object: nil, notificationCenter: h.center) {
            n in
            n.userInfo?["url"] as? String == url && n.object is DWWebImageDownloader
        }
        let finish = expectation(forNotification: .DWWebImageDownloadFinish, object: nil, notificationCenter: h.center)
        finish.isInverted = true
        let box = ResultBox()
        let token = h.manager.downloadImage(withURL: url) { box.set($0) }
        XCTAssertTrue(h.server.waitForActiveRequests(1, timeout: 5))
        token.cancel()
        XCTAssertEqual(box.wait(timeout: 10)?.error?.code, .cancelled)
        wait(for: [stop], timeout: 10)
        wait(for: [finish], timeout: 0.5)  // inverted: a window for a wrong Finish after Stop
        XCTAssertTrue(eventually { h.manager.activeDownloadCount == 0 })
        // The slot is free again: a new request runs.
        h.server.setRoute("/ok.png", .ok(SampleImages.png(width: 2, height: 2)))
        XCTAssertNotNil(h.fetch(h.server.url("/ok.png")).value)
    }

    func testRemoveOperationCancelsEveryWaiter() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/hang.png", .hang)
        let url = h.server.url("/hang.png")
        let stop = expectation(forNotification: .DWWebImageDownloadStop, object: nil, notificationCenter: h.center)
        let box = ResultBox()
        for _ in 0..<5 { h.manager.downloadImage(withURL: url) { box.set($0) } }
        XCTAssertTrue(h.server.waitForActiveRequests(1, timeout: 5))
        // Callers pass the disk lookup one by one: remove the download once all five hold a place in it (on a
        // loaded machine the first can reach the server while the last is still looking up).
        XCTAssertTrue(eventually { h.manager.waiterCount(forURL: url) == 5 })
        h.manager.removeOperation(byURL: url)
        XCTAssertTrue(box.waitFor(count: 5, timeout: 10))
        wait(for: [stop], timeout: 10)
        h.drainCallbacks()
        XCTAssertEqual(box.count, 5)
        XCTAssertTrue(box.all.allSatisfy { $0.error?.code == .cancelled })
    }

    func testCancelWhileWaitingForASlotNeverStartsTheTransfer() throws {
        let h = try Harness(slots: 1)
        defer { h.close() }
        h.server.setRoute("/busy.png", .delayed(0.5, .ok(SampleImages.png(width: 2, height: 2))))
        h.server.setRoute("/queued.png", .ok(SampleImages.png(width: 2, height: 2)))
        let busy = ResultBox(), queued = ResultBox()
        let started = Recorder<String>()
        let observer = h.center.addObserver(forName: .DWWebImageDownloadStart, object: nil, queue: nil) { note in
            started.append(note.userInfo?[DWWebImageNotificationKey.url] as? String ?? "")
        }
        defer { h.center.removeObserver(observer) }
        h.manager.downloadImage(withURL: h.server.url("/busy.png")) { busy.set($0) }
        XCTAssertTrue(h.server.waitForActiveRequests(1, timeout: 5))
        let token = h.manager.downloadImage(withURL: h.server.url("/queued.png")) { queued.set($0) }
        h.manager.cancel(token)
        XCTAssertEqual(queued.wait(timeout: 10)?.error?.code, .cancelled)
        XCTAssertNotNil(busy.wait(timeout: 5)?.value)
        // Once the manager holds no download, nothing can start any more.
        XCTAssertTrue(eventually { h.manager.activeDownloadCount == 0 && h.manager.scheduledCounts == (0, 0) })
        h.drainCallbacks()  // Start notifications are posted there
        XCTAssertEqual(started.values, [h.server.url("/busy.png")], "the queued download never started")
        XCTAssertEqual(h.server.requestCount(path: "/queued.png"), 0)
    }

    func testAsyncAPIReturnsTheImageAndTaskCancellationCancels() async throws {
        let h = try Harness()
        defer { h.close() }
        let png = SampleImages.png(width: 5, height: 4)
        h.server.setRoute("/a.png", .ok(png))
        h.server.setRoute("/hang.png", .hang)
        let image = try await h.manager.image(withURL: h.server.url("/a.png"))
        XCTAssertEqual(image.data, png)

        let manager = h.manager
        let url = h.server.url("/hang.png")
        let task = Task { () throws(DWWebImageError) -> DWImage in try await manager.image(withURL: url) }
        XCTAssertTrue(h.server.waitForActiveRequests(1, timeout: 5))
        task.cancel()
        let result = await task.result
        XCTAssertEqual((result.error as? DWWebImageError)?.code, .cancelled)
    }

    func testAnExhaustedDownloadIsNotJoinedByLaterCallers() throws {
        // After a download ends, the next caller for the same URL gets a new transfer (or the cache), never a
        // stale callback array.
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/a.png", .ok(SampleImages.png(width: 3, height: 3)))
        let url = h.server.url("/a.png")
        XCTAssertNotNil(h.fetch(url, options: [.noCache]).value)
        XCTAssertNotNil(h.fetch(url, options: [.noCache]).value)
        XCTAssertEqual(h.server.requestCount(path: "/a.png"), 2)
    }
}
