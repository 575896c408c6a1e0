// DownloaderLifetimeTests: a downloader is freed once its download has ended, however it ended. Its transfer's
// callbacks hold it strongly; the transfer's end must break that cycle (succeeded, failed, retried, cancelled).
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

/// The downloaders a manager announced, held weakly.
private final class Announced: Sendable {
    private final class Weak: Sendable {
        weak let downloader: DWWebImageDownloader?
        init(_ downloader: DWWebImageDownloader) { self.downloader = downloader }
    }
    private let list = DWLock<[Weak]>([])

    func record(_ downloader: DWWebImageDownloader) { list.withLock { $0.append(Weak(downloader)) } }
    var count: Int { list.withLock { $0.count } }
    var alive: Int { list.withLock { $0.filter { $0.downloader != nil }.count } }
}

final class DownloaderLifetimeTests: XCTestCase {
    private func announced(on h: Harness) -> (Announced, any NSObjectProtocol) {
        let announced = Announced()
        let observer = h.center.addObserver(forName: .DWWebImageDownloadStart, object: nil, queue: nil) { n in
            if let downloader = n.object as? DWWebImageDownloader { announced.record(downloader) }
        }
        return (announced, observer)
    }

    /// Waits up to 5 s for every announced downloader to be freed (the last release can come from the engine
    /// thread a moment after the completion).
    private func assertAllFreed(
        _ announced: Announced, expected: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(announced.count, expected, "downloads announced", file: file, line: line)
        let deadline = Date().addingTimeInterval(5)
        while announced.alive > 0, Date() < deadline { usleep(10_000) }
        XCTAssertEqual(
            announced.alive, 0, "downloaders still alive after their downloads ended", file: file, line: line)
    }

    func testADownloaderIsFreedAfterSuccessFailureAndRetry() throws {
        let h = try Harness { $0.retryPolicy = DWRetryPolicy(maxRetries: 1, interval: 0) }
        defer { h.close() }
        let (announced, observer) = announced(on: h)
        defer { h.center.removeObserver(observer) }
        let png = SampleImages.png(approximateSize: 5000)
        h.server.setRoute("/ok.png", .ok(png, contentType: "image/png"))
        h.server.setRoute("/missing.png", .status(404))
        let attempts = DWLock(0)
        h.server.setRoute(
            "/flaky.png",
            .dynamic { _ in
                let n = attempts.withLock {
                    $0 += 1; return $0
                }
                return n == 1
                    ? .dropAfter(bytes: 100, .ok(png, contentType: "image/png")) : .ok(png, contentType: "image/png")
            })
        XCTAssertNotNil(h.fetch(h.server.url("/ok.png")).value)
        XCTAssertEqual(h.fetch(h.server.url("/missing.png")).error?.code, .httpStatus)
        XCTAssertNotNil(h.fetch(h.server.url("/flaky.png")).value, "the retry succeeds")
        XCTAssertEqual(attempts.withLock { $0 }, 2)
        assertAllFreed(announced, expected: 3)
    }

    func testADownloaderCancelledMidBodyIsFreed() throws {
        let h = try Harness()
        defer { h.close() }
        let (announced, observer) = announced(on: h)
        defer { h.center.removeObserver(observer) }
        h.server.setRoute("/slow.png", .stallAfter(bytes: 10, .ok(SampleImages.png(approximateSize: 5000))))
        let box = ResultBox()
        let token = h.manager.downloadImage(withURL: h.server.url("/slow.png")) { box.set($0) }
        let deadline = Date().addingTimeInterval(5)
        while announced.count == 0, Date() < deadline { usleep(5_000) }
        usleep(100_000)  // the request is out and its body stalled
        token.cancel()
        XCTAssertEqual(box.wait(timeout: 10)?.error?.code, .cancelled)
        assertAllFreed(announced, expected: 1)
    }
}
