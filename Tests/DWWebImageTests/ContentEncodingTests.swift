// Content-Encoding: a coded image (misconfigured CDNs gzip images; SVG and ICO often are) is decoded by libcurl, and
// the decoded bytes are what is validated, cached and capped; a gzip bomb is 10005 as it inflates; a coded body
// is never resumed. Against the in-process server and against Apache httpd's mod_deflate.
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class ContentEncodingTests: XCTestCase {
    /// `gzip -c` of `data`, by the gzip program (an independent encoder).
    static func gzip(_ data: Data) throws -> Data {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("dwgz-\(UUID().uuidString)")
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        return try shell("gzip -c -n \(input.path)")
    }

    static func shell(_ command: String) throws -> Data {
        let run = try ProcessRun.run("/bin/sh", ["-c", command])
        XCTAssertEqual(run.status, 0, "\(command): \(run.errors)")
        return run.stdout
    }

    func testAGzippedImageIsDecodedValidatedAndCachedDecoded() throws {
        let h = try Harness()
        defer { h.close() }
        let bmp = SampleImages.bmp(width: 120, height: 90)  // compresses well, as servers decide to
        let coded = try Self.gzip(bmp)
        XCTAssertLessThan(coded.count, bmp.count)
        h.server.setRoute("/icon.bmp", .ok(coded, contentType: "image/bmp", headers: [("Content-Encoding", "gzip")]))
        let image = try h.fetch(h.server.url("/icon.bmp")).get()
        XCTAssertEqual(image.format, .bmp)
        XCTAssertEqual(image.data, bmp, "the image's bytes, not the gzip stream")
        XCTAssertEqual(image.pixelWidth, 120)
        _ = h.cache.waitForPendingWrites()
        let (other, _) = h.anotherManager()
        defer { other.invalidate() }
        let hit = try Harness.fetch(other, h.server.url("/icon.bmp"))
        XCTAssertEqual(hit.source, .disk)
        XCTAssertEqual(hit.data, bmp, "stored decoded")
        XCTAssertEqual(h.server.requestCount(path: "/icon.bmp"), 1)
        XCTAssertTrue(h.server.requestLog[0].header("Accept-Encoding")?.contains("gzip") == true)
    }

    func testAGzipBombIs10005WhileItInflatesWithFlatMemory() throws {
        // 256 MiB of zeros in about 250 KB of gzip; the cap is 8 MiB of decoded bytes.
        let inflated = 256 * 1024 * 1024
        let bomb = try Self.shell("head -c \(inflated) /dev/zero | gzip -1 -n")
        XCTAssertLessThan(bomb.count, 4 * 1024 * 1024)
        let h = try Harness { $0.maxBodySize = 8 * 1024 * 1024 }
        defer { h.close() }
        h.server.setRoute("/bomb.png", .ok(bomb, contentType: "image/png", headers: [("Content-Encoding", "gzip")]))
        let before = Self.maxResidentBytes()
        let result = h.fetch(h.server.url("/bomb.png"))
        XCTAssertEqual(result.error?.code, .tooLarge, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("8388608") == true, result.error?.message ?? "")
        let grown = Self.maxResidentBytes() - before
        XCTAssertLessThan(
            grown, 128 * 1024 * 1024, "peak memory grew by \(grown / 1_048_576) MiB, not by what it inflates to")
    }

    func testACodedBodyIsNeverResumed() throws {
        let h = try Harness {
            $0.retryCount = 1; $0.retryDelay = 0
        }
        defer { h.close() }
        let big = SampleImages.bmp(width: 600, height: 400)  // 720 KB decoded: past the 256 KiB a partial needs
        let coded = try Self.gzip(big)
        let headers = [("Content-Encoding", "gzip"), ("ETag", "\"v1\""), ("Accept-Ranges", "bytes")]
        let attempts = Counter()
        h.server.setHandler("/big.bmp") { _ in
            let route = Route.ok(coded, contentType: "image/bmp", headers: headers)
            return attempts.next() == 1 ? .dropAfter(bytes: coded.count / 2, route) : route
        }
        let image = try h.fetch(h.server.url("/big.bmp")).get()
        XCTAssertEqual(image.data, big)
        XCTAssertEqual(image.metrics?.attempts, 2)
        XCTAssertEqual(image.metrics?.resumedFrom, 0, "a coded body starts over")
        let log = h.server.requestLog.filter { $0.path == "/big.bmp" }
        XCTAssertEqual(log.count, 2)
        XCTAssertNil(log[1].header("Range"), "no Range for a coded partial")
        XCTAssertTrue(log[1].header("Accept-Encoding")?.contains("gzip") == true)
    }

    func testApacheModDeflate() throws {
        let server = try peer { try RealServer(.apache) }
        defer { server.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwgzip-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let bmp = SampleImages.bmp(width: 200, height: 150)
        try server.put("compressed/flat.bmp", bmp, modified: Date(timeIntervalSinceNow: -3600))
        let url = server.baseURL + "/compressed/flat.bmp"
        func manager(expiring: Bool = false) -> DWWebImageManager {
            let cache = DWWebImageCache(rootDirectory: root, notificationCenter: NotificationCenter())
            if expiring { cache.expirationTime = 0 }
            var configuration = DWWebImageManager.Configuration()
            configuration.retryCount = 0
            return DWWebImageManager(
                cache: cache, configuration: configuration, notificationCenter: NotificationCenter(),
                removeExpiredAtStart: false)
        }
        let first = manager()
        let image = try Harness.fetch(first, url)
        _ = first.cache.waitForPendingWrites()
        first.invalidate()
        XCTAssertEqual(image.data, bmp, "Apache gzipped it (Content-Encoding: gzip); we hold the BMP")
        // Apache's ETag for the gzipped variant is "…-gzip", and it does not match it in If-None-Match (Apache
        // bug 45023): the revalidation gets a 200 and replaces the entry with the same bytes, never a wrong 304.
        let again = manager(expiring: true)
        defer { again.invalidate() }
        let second = try Harness.fetch(again, url)
        XCTAssertEqual(second.data, bmp)
        XCTAssertEqual(second.metrics?.httpStatus, 200)
        server.stop()
        XCTAssertEqual(
            server.accessLog.split(separator: "\n").filter { $0.contains("flat.bmp") && $0.contains(" 200 ") }.count, 2,
            server.accessLog)
    }

    /// The process's peak resident set, in bytes (getrusage's ru_maxrss is in KiB on Linux).
    static func maxResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
