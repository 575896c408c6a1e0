// The package tuning dwfetch's runner uses: cache writes in the callback block, no download notifications, and disk
// probes where a request is asked. Real libcurl against the loopback server; the hops are the ones the pipeline
// notes.
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class DeliveryTuningTests: XCTestCase {
    /// A download's completion is delivered on the callback queue.
    func testByDefaultCompletionsRunOnTheCallbackQueue() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/q.png", .ok(SampleImages.png(width: 4, height: 4)))
        let key = DispatchSpecificKey<Bool>()
        h.manager.callbackQueue.setSpecific(key: key, value: true)
        let onQueue = DWLock<Bool?>(nil)
        let box = ResultBox()
        h.manager.downloadImage(withURL: h.server.url("/q.png")) { result in
            onQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) == true }
            box.set(result)
        }
        XCTAssertNotNil(box.wait(timeout: 10)?.value)
        XCTAssertEqual(onQueue.withLock { $0 }, true)
    }

    /// With `postsDownloadNotifications` off, a download (written to disk in the callback block, as dwfetch does)
    /// posts neither Start, Finish nor CacheComplete, and still stores its entry.
    func testNoDownloadNotificationsWhenTurnedOff() throws {
        let h = try Harness()
        defer { h.close() }
        h.manager.postsDownloadNotifications = false
        h.manager.writesCacheInCallbacks = true
        let png = SampleImages.png(width: 5, height: 5)
        h.server.setRoute("/quiet.png", .ok(png))
        let url = h.server.url("/quiet.png")
        var silent: [XCTestExpectation] = []
        for name in [Notification.Name.DWWebImageDownloadStart, .DWWebImageDownloadFinish, .DWWebImageCacheComplete] {
            let posted = expectation(forNotification: name, object: nil, notificationCenter: h.center)
            posted.isInverted = true
            silent.append(posted)
        }
        XCTAssertEqual(h.fetch(url).value?.data, png)
        h.cache.waitForPendingWrites()
        wait(for: silent, timeout: 0.5)
        XCTAssertEqual(h.cache.objCache(forKey: url), png)
    }

    /// One request through `manager`, traced: its result and the places its work arrived at.
    private func tracedFetch(
        _ manager: DWWebImageManager, _ url: String, options: DWWebImageOptions = []
    ) async -> (Result<DWImage, DWWebImageError>, [String]) {
        var result: Result<DWImage, DWWebImageError>?
        let path = await DWHopTrace.record {
            result = await withCheckedContinuation { continuation in
                manager.downloadImage(withURL: url, options: options) { continuation.resume(returning: $0) }
            }
        }
        return (result ?? .failure(DWWebImageError(.cancelled, "no result")), path)
    }

    /// With `probesDiskWhereAsked`, a request whose image is not on disk goes to the network from the asking
    /// thread: its work never arrives at the lookup queue. Once the image is on disk, another manager over the
    /// same directory (empty memory, as another process) finds the file where it asks and reads it on the lookup
    /// queue: a disk hit, the same bytes, no second request to the origin.
    func testProbingWhereAskedSkipsTheLookupQueueOnlyForAMiss() async throws {
        let h = try Harness()
        defer { h.close() }
        h.manager.probesDiskWhereAsked = true
        let png = SampleImages.png(width: 6, height: 6)
        h.server.setRoute("/p.png", .ok(png))
        let url = h.server.url("/p.png")
        let (miss, missPath) = await tracedFetch(h.manager, url)
        XCTAssertEqual(miss.value?.data, png)
        XCTAssertFalse(missPath.contains("lookup queue"), missPath.joined(separator: " → "))
        XCTAssertTrue(h.cache.waitForPendingWrites())

        let (other, _) = h.anotherManager()
        defer { other.invalidate() }
        other.probesDiskWhereAsked = true
        let (hit, hitPath) = await tracedFetch(other, url)
        XCTAssertEqual(hit.value?.data, png)
        XCTAssertEqual(hit.value?.source, .disk)
        XCTAssertTrue(hitPath.contains("lookup queue"), hitPath.joined(separator: " → "))
        XCTAssertEqual(h.server.requestCount(path: "/p.png"), 1)
    }

    /// What a probe finds is judged as a lookup judges it: offline, no file is 10006 at once; a damaged file the
    /// probe opened is removed on the lookup queue and the image downloaded again, then stored whole.
    func testAProbedMissOfflineAndAProbedDamagedFileAreJudgedAsBefore() async throws {
        let h = try Harness()
        defer { h.close() }
        h.manager.probesDiskWhereAsked = true
        let png = SampleImages.png(width: 7, height: 7)
        h.server.setRoute("/d.png", .ok(png))
        let url = h.server.url("/d.png")
        let (offline, _) = await tracedFetch(h.manager, url, options: .fromCacheOnly)
        XCTAssertEqual(offline.error?.code, .notInCache)
        XCTAssertEqual(h.server.requestCount(path: "/d.png"), 0)

        let file = h.cache.fileURL(forKey: url)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not an entry".utf8).write(to: file)
        let (fetched, path) = await tracedFetch(h.manager, url)
        XCTAssertEqual(fetched.value?.data, png)
        XCTAssertEqual(fetched.value?.source, .network)
        XCTAssertTrue(path.contains("lookup queue"), path.joined(separator: " → "))
        XCTAssertTrue(h.cache.waitForPendingWrites())
        let (other, _) = h.anotherManager()
        defer { other.invalidate() }
        XCTAssertEqual(try Harness.fetch(other, url).data, png, "the damaged file was replaced by the image")
        XCTAssertEqual(h.server.requestCount(path: "/d.png"), 1)
    }
}
