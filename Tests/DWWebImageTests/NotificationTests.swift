// Notifications as users observe them: names, object, userInfo, on the callback queue; none for cache hits.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class NotificationTests: XCTestCase {
    func testDownloadPostsStartFinishAndCacheComplete() throws {
        let h = try Harness()
        defer { h.close() }
        let png = SampleImages.png(width: 6, height: 6)
        h.server.setRoute("/n.png", .ok(png, contentType: "image/png", headers: [("ETag", "\"v1\"")]))
        let url = h.server.url("/n.png")
        let queueKey = DispatchSpecificKey<Bool>()
        h.manager.callbackQueue.setSpecific(key: queueKey, value: true)
        let start = expectation(forNotification: .DWWebImageDownloadStart, object: nil, notificationCenter: h.center) {
            n in
            XCTAssertEqual(DispatchQueue.getSpecific(key: queueKey), true, "posted on callbackQueue")
            return n.object is DWWebImageDownloader && (n.object as? DWWebImageDownloader)?.url == url
                && n.userInfo?["url"] as? String == url
        }
        let finish = expectation(forNotification: .DWWebImageDownloadFinish, object: nil, notificationCenter: h.center)
        { n in
            let image = n.userInfo?["image"] as? DWImage
            return n.object is DWWebImageDownloader && n.userInfo?["url"] as? String == url && image?.data == png
                && n.userInfo?["error"] == nil
        }
        let cached = expectation(
            forNotification: .DWWebImageCacheComplete, object: h.cache, notificationCenter: h.center
        ) { n in
            n.userInfo?["url"] as? String == url && n.userInfo?["error"] == nil
        }
        let stop = expectation(forNotification: .DWWebImageDownloadStop, object: nil, notificationCenter: h.center)
        stop.isInverted = true
        XCTAssertNotNil(h.fetch(url).value)
        wait(for: [start, finish, cached], timeout: 10)
        wait(for: [stop], timeout: 0.5)  // inverted: a window for a wrong Stop, which would follow Finish
        // "Durably on disk" means a fresh cache instance can read it now.
        let entryExists = DWWebImageCache(rootDirectory: h.root, notificationCenter: NotificationCenter()).objCache(
            forKey: url)
        XCTAssertEqual(entryExists, png)
    }

    func testFailurePostsFinishWithError() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/missing.png", .status(404))
        let url = h.server.url("/missing.png")
        let finish = expectation(forNotification: .DWWebImageDownloadFinish, object: nil, notificationCenter: h.center)
        { n in
            (n.userInfo?["error"] as? DWWebImageError)?.httpStatus == 404 && n.userInfo?["image"] == nil
        }
        let cached = expectation(forNotification: .DWWebImageCacheComplete, object: nil, notificationCenter: h.center)
        cached.isInverted = true
        XCTAssertEqual(h.fetch(url).error?.code, .httpStatus)
        wait(for: [finish], timeout: 10)
        wait(for: [cached], timeout: 0.5)  // inverted: a window for a wrong CacheComplete after Finish
    }

    func testCacheHitsPostNoStart() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/hit.png", .ok(SampleImages.png(width: 2, height: 2)))
        let url = h.server.url("/hit.png")
        let cached = expectation(forNotification: .DWWebImageCacheComplete, object: nil, notificationCenter: h.center)
        XCTAssertEqual(h.fetch(url).value?.source, .network)
        wait(for: [cached], timeout: 10)

        let start = expectation(forNotification: .DWWebImageDownloadStart, object: nil, notificationCenter: h.center)
        start.isInverted = true
        XCTAssertEqual(h.fetch(url).value?.source, .memory)
        // A second manager over the same directory: a disk hit.
        let other = DWWebImageManager(
            cache: DWWebImageCache(rootDirectory: h.root, notificationCenter: h.center),
            notificationCenter: h.center, removeExpiredAtStart: false)
        defer { other.invalidate() }
        let box = ResultBox()
        other.downloadImage(withURL: url) { box.set($0) }
        XCTAssertEqual(box.wait(timeout: 10)?.value?.source, .disk)
        wait(for: [start], timeout: 0.5)  // inverted: a window for a wrong Start after both hits
        XCTAssertEqual(h.server.requestCount(path: "/hit.png"), 1)
    }

    func testCoalescedCallersPostOneStart() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/c.png", .delayed(0.2, .ok(SampleImages.png(width: 2, height: 2))))
        let starts = Recorder<String>()
        let observer = h.center.addObserver(forName: .DWWebImageDownloadStart, object: nil, queue: nil) { n in
            starts.append(n.userInfo?["url"] as? String ?? "")
        }
        defer { h.center.removeObserver(observer) }
        let box = ResultBox()
        for _ in 0..<5 { h.manager.downloadImage(withURL: h.server.url("/c.png"), options: [.noCache]) { box.set($0) } }
        XCTAssertTrue(box.waitFor(count: 5, timeout: 5))
        h.drainCallbacks()
        XCTAssertEqual(starts.values.count, 1)
    }

    func testProgressIsMonotonicAndEndsAtTotal() throws {
        let h = try Harness { $0.progressInterval = 0 }
        defer { h.close() }
        let big = SampleImages.png(approximateSize: 300_000)
        h.server.setRoute("/big.png", .throttled(chunk: 30_000, interval: 0.01, .ok(big)))
        let progress = Recorder<(Int64, Int64)>()
        let box = ResultBox()
        h.manager.downloadImage(withURL: h.server.url("/big.png"), progress: { progress.append(($0, $1)) }) {
            box.set($0)
        }
        XCTAssertNotNil(box.wait(timeout: 10)?.value)
        let calls = progress.values
        XCTAssertGreaterThan(calls.count, 2)
        XCTAssertEqual(calls.map(\.0), calls.map(\.0).sorted(), "monotonic")
        XCTAssertEqual(calls.last?.0, Int64(big.count))
        XCTAssertEqual(calls.last?.1, Int64(big.count))
    }
}
