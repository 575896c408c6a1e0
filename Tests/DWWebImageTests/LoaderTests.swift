// Sources besides HTTP: file:// URLs and absolute paths, data: URLs, and an app's DWImageLoader — through the same
// cache, coalescing, priorities and notifications as downloads.
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

/// An app's store: blobs in memory behind a gate, loads counted; `store:` URLs.
private final class MemoryStoreLoader: DWImageLoader {
    let blobs: [String: Data]
    let loads = DWLock(0)
    let cancelled = DWLock(0)
    let gate = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)

    init(_ blobs: [String: Data]) { self.blobs = blobs }

    func canLoad(_ url: String) -> Bool { url.hasPrefix("store:") }

    func load(_ url: String, into body: DWImageLoaderBody) async throws {
        loads.withLock { $0 += 1 }
        entered.signal()
        // Wait for the test to open the gate, without blocking the cooperative pool's thread.
        while gate.wait(timeout: .now()) == .timedOut {
            do {
                try await Task.sleep(for: .milliseconds(2))
            } catch {
                cancelled.withLock { $0 += 1 }
                throw error
            }
        }
        guard let blob = blobs[String(url.dropFirst(6))] else {
            throw DWWebImageError(.httpStatus, "no such blob", httpStatus: 404)
        }
        body.expect(length: Int64(blob.count))
        for start in stride(from: 0, to: blob.count, by: 100) {  // streamed in pieces
            try body.append(blob.subdata(in: start..<min(blob.count, start + 100)))
        }
    }
}

final class LoaderTests: XCTestCase {
    private let png = SampleImages.png(width: 7, height: 5)

    func testFileURLAndAbsolutePathGoThroughTheManagerWithNotifications() throws {
        let h = try Harness()
        defer { h.close() }
        let file = h.root.appendingPathComponent("local image.png")
        try FileManager.default.createDirectory(at: h.root, withIntermediateDirectories: true)
        try png.write(to: file)
        let url = "file://" + (file.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? file.path)
        let start = expectation(forNotification: .DWWebImageDownloadStart, object: nil, notificationCenter: h.center) {
            $0.userInfo?["url"] as? String == url
        }
        let finish = expectation(forNotification: .DWWebImageDownloadFinish, object: nil, notificationCenter: h.center)
        {
            [png] in ($0.userInfo?["image"] as? DWImage)?.data == png
        }
        let cached = expectation(
            forNotification: .DWWebImageCacheComplete, object: h.cache, notificationCenter: h.center
        ) {
            $0.userInfo?["url"] as? String == url
        }
        let image = try h.fetch(url).get()
        XCTAssertEqual([image.pixelWidth, image.pixelHeight], [7, 5])
        XCTAssertEqual(image.source, .network)
        wait(for: [start, finish, cached], timeout: 5)
        // Cached like a download: gone from disk, still served; .fromCacheOnly applies.
        try FileManager.default.removeItem(at: file)
        XCTAssertEqual(h.fetch(url, options: .fromCacheOnly).value?.source, .memory)
        XCTAssertEqual(h.fetch(file.path, options: .fromCacheOnly).error?.code, .notInCache, "a path is its own key")
        XCTAssertEqual(h.fetch(file.path).error?.code, .transport, "a missing file says so")
        XCTAssertEqual(h.fetch("//host/a.png").error?.code, .invalidURL, "protocol-relative is not a path")
        XCTAssertEqual(h.fetch("file://elsewhere/x.png").error?.code, .invalidURL)
        XCTAssertEqual(h.fetch(h.root.path).error?.code, .invalidURL, "a directory is not an image file")
    }

    func testFileThatIsNotAnImageIs10000() throws {
        let h = try Harness()
        defer { h.close() }
        XCTAssertEqual(h.fetch("/etc/hostname", options: .noCache).error?.code, .notAnImage)
    }

    func testDataURLsBase64AndPercentEncoded() throws {
        let h = try Harness()
        defer { h.close() }
        let finish = expectation(forNotification: .DWWebImageDownloadFinish, object: nil, notificationCenter: h.center)
        finish.expectedFulfillmentCount = 2
        let base64 = "data:image/png;base64," + png.base64EncodedString()
        XCTAssertEqual(try h.fetch(base64).get().data, png)
        let percent = "data:," + png.map { String(format: "%%%02X", $0) }.joined()
        XCTAssertEqual(try h.fetch(percent).get().data, png)
        wait(for: [finish], timeout: 5)
        XCTAssertEqual(h.fetch(base64, options: .fromCacheOnly).value?.source, .memory, "cached under the URL")
        XCTAssertEqual(h.fetch("data:image/png;base64,@@@@").error?.code, .invalidURL)
        XCTAssertEqual(h.fetch("data:image/png;base64").error?.code, .invalidURL)
        XCTAssertEqual(h.fetch("data:text/plain,hello").error?.code, .notAnImage)
    }

    func testCustomLoaderCoalescesTenCallersIntoOneLoad() throws {
        let store = MemoryStoreLoader(["cat": png])
        let h = try Harness { $0.loaders.insert(store, at: 0) }
        defer { h.close() }
        let progress = DWLock<[Int64]>([])
        let box = ResultBox()
        for _ in 0..<10 {
            h.manager.downloadImage(
                withURL: "store:cat", options: .noCache,
                progress: { received, _ in progress.withLock { $0.append(received) } }
            ) { box.set($0) }
        }
        XCTAssertEqual(store.entered.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(eventually { h.manager.waiterCount(forURL: "store:cat") == 10 }, "all ten joined the one load")
        store.gate.signal()
        XCTAssertTrue(box.waitFor(count: 10, timeout: 10))
        XCTAssertTrue(box.all.allSatisfy { $0.value?.data == png })
        XCTAssertEqual(store.loads.value, 1)
        XCTAssertEqual(progress.value.last, Int64(png.count), "progress reached the whole body")
        // A loader's own error reaches the caller as it is.
        store.gate.signal()
        XCTAssertEqual(h.fetch("store:dog", options: .noCache).error?.httpStatus, 404)
    }

    func testCancellingEveryCallerCancelsTheLoad() throws {
        let store = MemoryStoreLoader(["cat": png])
        let h = try Harness { $0.loaders = [store] }
        defer { h.close() }
        let stop = expectation(forNotification: .DWWebImageDownloadStop, object: nil, notificationCenter: h.center)
        let box = ResultBox()
        let tokens = (0..<3).map { _ in h.manager.downloadImage(withURL: "store:cat", options: .noCache) { box.set($0) }
        }
        XCTAssertEqual(store.entered.wait(timeout: .now() + 10), .success)
        tokens.forEach(h.manager.cancel)
        XCTAssertTrue(box.waitFor(count: 3, timeout: 10))
        XCTAssertTrue(box.all.allSatisfy { $0.error?.code == .cancelled })
        wait(for: [stop], timeout: 5)
        XCTAssertTrue(eventually { store.cancelled.value == 1 }, "the loader's task saw the cancellation")
        XCTAssertTrue(eventually { h.manager.activeDownloadCount == 0 })
        XCTAssertEqual(h.fetch("file:///etc/hostname").error?.code, .invalidURL, "no file loader: http(s) only")
    }
}
