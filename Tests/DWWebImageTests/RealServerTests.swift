// Resume, revalidation and no splicing against servers no one here wrote: Apache httpd, lighttpd and Caddy from
// Debian, and Python's http.server (no Range at all). Each is started by the test with a generated config on
// 127.0.0.1; a CuttingProxy in front ends a download part-way, as a dropped link or a killed process does.
import DWTestPeers
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class RealServerTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwreal" }

    func testApache() throws { try exercise(.apache, honoursRange: true) }
    func testLighttpd() throws { try exercise(.lighttpd, honoursRange: true) }
    func testCaddy() throws { try exercise(.caddy, honoursRange: true) }
    func testPythonHTTPServer() throws { try exercise(.python, honoursRange: false) }

    /// A 600 KB BMP (bigger than the 256 KiB a body needs to be kept on disk for resuming), and the same size with
    /// other pixels: a file that changed without changing its length.
    private let original = SampleImages.bmp(width: 400, height: 500)
    private lazy var changed: Data = {
        var data = original
        for i in stride(from: 54, to: data.count, by: 7) { data[i] ^= 0x5A }
        return data
    }()
    private let lastHour = Date(timeIntervalSinceNow: -3600)

    private func exercise(_ kind: RealServer.Kind, honoursRange: Bool) throws {
        let server = try peer { try RealServer(kind) }
        defer { server.stop() }
        let proxy = try CuttingProxy(targetPort: server.port)
        defer { proxy.shutdown() }

        // 1. The connection dies after 400 KB; the next process picks the partial up and asks for the rest.
        try server.put("photo.bmp", original, modified: lastHour)
        let url = proxy.baseURL + "/photo.bmp"
        proxy.cutNextConnection(after: 400_000)
        XCTAssertEqual(try fetch(url).failure?.code, .transport, "\(kind): the cut ends the first run")
        _ = proxy.clientBytes(clear: true)
        let resumed = try fetch(url).get()
        let resumeRequest = proxy.clientBytes(clear: true)
        XCTAssertTrue(resumeRequest.contains("Range: bytes="), "\(kind): asked for the rest: \(resumeRequest)")
        XCTAssertTrue(resumeRequest.contains("If-Range: "), "\(kind): with the validator: \(resumeRequest)")
        XCTAssertEqual(resumed.data, original, "\(kind): the bytes are the file's, nothing spliced")
        let metrics = try XCTUnwrap(resumed.metrics)
        if honoursRange {
            XCTAssertGreaterThan(metrics.resumedFrom, 256 * 1024, "\(kind): resumed from the partial on disk")
            XCTAssertEqual(
                metrics.resumedFrom + metrics.bytesReceived, Int64(original.count), "\(kind): only the rest came")
            XCTAssertEqual(metrics.httpStatus, 206, kind.rawValue)
        } else {
            XCTAssertEqual(metrics.resumedFrom, 0, "\(kind) ignores Range: the whole body again")
            XCTAssertEqual(metrics.bytesReceived, Int64(original.count), kind.rawValue)
            XCTAssertEqual(metrics.httpStatus, 200, kind.rawValue)
        }

        // 2. The file changes (same length, new time) between the cut and the next run: the validator sent with
        //    If-Range no longer matches, the server sends it whole, and the old bytes are not kept.
        try server.put("changes.bmp", original, modified: lastHour)
        let changesURL = proxy.baseURL + "/changes.bmp"
        proxy.cutNextConnection(after: 400_000)
        XCTAssertEqual(try fetch(changesURL).failure?.code, .transport, kind.rawValue)
        try server.put("changes.bmp", changed, modified: lastHour.addingTimeInterval(120))
        let fresh = try fetch(changesURL).get()
        XCTAssertEqual(fresh.data, changed, "\(kind): the new file whole, not old bytes spliced onto new")
        XCTAssertEqual(fresh.metrics?.resumedFrom, 0, kind.rawValue)
        XCTAssertEqual(fresh.metrics?.httpStatus, 200, kind.rawValue)

        // 3. The cached entry, once expired, is revalidated with the server's own validator spelling: 304.
        _ = proxy.clientBytes(clear: true)
        let revalidated = try fetch(url, expiringAtOnce: true).get()
        let conditional = proxy.clientBytes(clear: true)
        // Apache: "258f6-…" (size-mtime, hex), lighttpd: "1144320171" (a hash), Caddy: "toysf12d" (base-36), all
        // strong; Python sends no ETag, only Last-Modified.
        XCTAssertTrue(
            conditional.contains(kind == .python ? "If-Modified-Since: " : "If-None-Match: \""),
            "\(kind): the server's validator came back: \(conditional)")
        XCTAssertEqual(revalidated.source, .revalidated, kind.rawValue)
        XCTAssertEqual(revalidated.metrics?.httpStatus, 304, kind.rawValue)
        XCTAssertEqual(revalidated.data, original, kind.rawValue)
        // And a file changed since is fetched again (200), replacing the entry.
        try server.put("photo.bmp", changed, modified: lastHour.addingTimeInterval(240))
        let refetched = try fetch(url, expiringAtOnce: true).get()
        XCTAssertEqual(refetched.source, .network, kind.rawValue)
        XCTAssertEqual(refetched.data, changed, kind.rawValue)

        // 4. Errors as each server words them: a missing file is 10004 with its status, a directory listing or
        //    an HTML page is not an image (10000).
        let missing = try fetch(proxy.baseURL + "/missing.png")
        XCTAssertEqual(missing.failure?.code, .httpStatus, kind.rawValue)
        XCTAssertEqual(missing.failure?.httpStatus, 404, kind.rawValue)
        try server.put("page.png", Data("<html><body>not an image</body></html>".utf8), modified: lastHour)
        XCTAssertEqual(try fetch(proxy.baseURL + "/page.png").failure?.code, .notAnImage, kind.rawValue)

        server.stop()  // flushes the access log
        let log = server.accessLog
        if kind != .caddy {  // Caddy logs JSON: "status":304
            XCTAssertTrue(log.contains(" 304 "), "\(kind) logged a 304: \(log.suffix(800))")
        } else {
            XCTAssertTrue(log.contains("\"status\":304"), "\(kind) logged a 304: \(log.suffix(1500))")
        }
    }

    /// One fetch by a new manager over the test's cache root (as a new process would), no retries.
    private func fetch(_ url: String, expiringAtOnce: Bool = false) throws -> Result<DWImage, DWWebImageError> {
        let center = NotificationCenter()
        let cache = DWWebImageCache(rootDirectory: root, notificationCenter: center)
        if expiringAtOnce { cache.expirationTime = 0 }
        var configuration = DWWebImageManager.Configuration()
        configuration.retryCount = 0
        configuration.timeout = 20
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: center,
            removeExpiredAtStart: false)
        defer {
            _ = cache.waitForPendingWrites()
            manager.invalidate()
        }
        let box = ResultBox()
        manager.downloadImage(withURL: url) { box.set($0) }
        return try XCTUnwrap(box.wait(timeout: 30), "no completion for \(url)")
    }
}

/// Runs `make`, turning a missing program into a failure that names its package.
func peer<T>(_ make: () throws -> T) throws -> T {
    do {
        return try make()
    } catch let missing as PeerUnavailable {
        throw MissingPrerequisite(missing.description)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
