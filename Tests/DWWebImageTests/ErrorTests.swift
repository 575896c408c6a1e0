// Every error code reachable without a cache failure, each carrying what a user needs.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class ErrorTests: XCTestCase {
    func testNotAnImageIs10000AndNotCached() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/fake.png", .ok(SampleImages.notAnImage, contentType: "image/png"))
        let truncated = SampleImages.png(width: 10, height: 10).prefix(20)
        h.server.setRoute("/truncated.png", .ok(Data(truncated)))
        h.server.setRoute("/empty.png", .ok(Data()))
        for path in ["/fake.png", "/truncated.png", "/empty.png"] {
            let error = try XCTUnwrap(h.fetch(h.server.url(path)).error, path)
            XCTAssertEqual(error.code, .notAnImage, path)
            XCTAssertEqual(error.url, h.server.url(path))
            XCTAssertNil(h.cache.objCache(forKey: h.server.url(path)), "a failed download never leaves an entry")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: h.cache.fileURL(forKey: h.server.url("/fake.png")).path))
    }

    /// An error re-addressed to another URL keeps every flag: a remembered failure stays remembered (serve answers
    /// it with `X-Negative-Cache: 1`), a busy one busy, a refused address refused.
    func testTheSameErrorAboutAnotherURLKeepsItsFlags() {
        var error = DWWebImageError(.httpStatus, "HTTP 404 Not Found", url: "http://a/x", httpStatus: 404)
        (error.isRemembered, error.isBusy, error.refusedAddress) = (true, true, "127.0.0.1")
        let moved = error.about("http://b/y")
        XCTAssertEqual(moved.url, "http://b/y")
        XCTAssertEqual([moved.isRemembered, moved.isBusy], [true, true])
        XCTAssertEqual(moved.refusedAddress, "127.0.0.1")
        XCTAssertEqual(moved.httpStatus, 404)
    }

    /// The kinds the core builds keep their code, text and fields (users and docs match on them).
    func testCoreKindsKeepTheirText() {
        XCTAssertEqual(
            DWWebImageError.curl(7, "Couldn't connect", url: "http://a/").description,
            "[10003] curl error 7: Couldn't connect (http://a/)")
        XCTAssertEqual(DWWebImageError.curl(7, "x", url: "u").curlCode, 7)
        XCTAssertEqual(
            DWWebImageError.file("open", "/x", errno: ENOENT).message, "cannot open /x: No such file or directory")
        XCTAssertEqual(DWWebImageError.file("read", "/x", "not a regular file").code, .transport)
        XCTAssertEqual(
            DWWebImageError.overDiskBudget(9, 8, key: "k").description,
            "[10008] entry of 9 bytes is larger than the disk budget (8) (k)")
        XCTAssertEqual(
            DWWebImageError.cacheFailure("publish /p", errno: ENOSPC, key: "k").message,
            "cache publish /p failed: No space left on device")
        let large = DWWebImageError.tooLarge("u", size: 9, limit: 8)
        XCTAssertEqual(large.message, "body of 9 is over the limit of 8")
        XCTAssertEqual([large.size, large.limit], [9, 8])
        XCTAssertEqual(DWWebImageError.invalidURL("u", "why").message, "invalid URL: why")
    }

    func testEmptyURLIs10001() throws {
        let h = try Harness()
        defer { h.close() }
        XCTAssertEqual(h.fetch("").error?.code, .emptyURL)
        XCTAssertEqual(h.fetch("   ").error?.code, .emptyURL)
    }

    func testMalformedOrNonHTTPURLIs10002() throws {
        let h = try Harness { $0.loaders = [] }  // file: and data: URLs are loaders' (LoaderTests)
        defer { h.close() }
        for url in [
            "ftp://example.com/a.png", "file:///etc/passwd", "not a url", "http://", "//host/a.png",
            "gopher://127.0.0.1/", "http://127.0.0.1:99999/a.png", "javascript:alert(1)"
        ] {
            let error = h.fetch(url).error
            XCTAssertEqual(error?.code, .invalidURL, url)
            XCTAssertEqual(error?.errorCode, 10002)
        }
        XCTAssertEqual(h.server.requestLog.count, 0)
    }

    func testConnectionRefusedIs10003WithCurlCode() throws {
        let h = try Harness()
        defer { h.close() }
        let port = h.server.port
        h.server.shutdown()
        let error = try XCTUnwrap(h.fetch("http://127.0.0.1:\(port)/a.png").error)
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.curlCode, 7, "CURLE_COULDNT_CONNECT")
        XCTAssertTrue(error.message.contains("onnect"), error.message)
    }

    func testDroppedConnectionMidBodyIs10003() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/drop.png", .dropAfter(bytes: 100, .ok(SampleImages.png(approximateSize: 5000))))
        let error = try XCTUnwrap(h.fetch(h.server.url("/drop.png")).error)
        XCTAssertEqual(error.code, .transport)
        // The server resets the connection: CURLE_RECV_ERROR (56), or CURLE_PARTIAL_FILE (18) if curl saw a close.
        XCTAssertTrue([18, 56].contains(error.curlCode ?? 0), "curl code \(String(describing: error.curlCode))")
        XCTAssertNil(h.cache.objCache(forKey: h.server.url("/drop.png")))
    }

    func testStalledServerTimesOutAs10003() throws {
        let h = try Harness {
            $0.timeout = 1; $0.stallTimeout = 1
        }
        defer { h.close() }
        h.server.setRoute("/stall.png", .stallAfter(bytes: 10, .ok(SampleImages.png(approximateSize: 5000))))
        let error = try XCTUnwrap(h.fetch(h.server.url("/stall.png")).error)
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.curlCode, 28, "CURLE_OPERATION_TIMEDOUT")
        XCTAssertTrue(error.isTimeout)
    }

    func testHTTPErrorsAre10004WithStatus() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/404.png", .status(404, body: Data("nope".utf8)))
        h.server.setRoute("/500.png", .status(500))
        h.server.setRoute("/410.png", .status(410))
        for (path, status) in [("/404.png", 404), ("/500.png", 500), ("/410.png", 410)] {
            let error = try XCTUnwrap(h.fetch(h.server.url(path)).error)
            XCTAssertEqual(error.code, .httpStatus)
            XCTAssertEqual(error.httpStatus, status)
            XCTAssertTrue(error.message.hasPrefix("HTTP \(status)"), error.message)
        }
        XCTAssertEqual(h.fetch(h.server.url("/404.png")).error?.message, "HTTP 404 Not Found")
    }

    func testBodyOverTheLimitIs10005AnnouncedOrStreamed() throws {
        let h = try Harness { $0.maxBodySize = 10_000 }
        defer { h.close() }
        let big = SampleImages.png(approximateSize: 50_000)
        h.server.setRoute("/announced.png", .ok(big))
        h.server.setRoute("/chunked.png", .chunked(.ok(big)))
        h.server.setRoute("/endless", .endless())
        for path in ["/announced.png", "/chunked.png", "/endless"] {
            let error = try XCTUnwrap(h.fetch(h.server.url(path)).error, path)
            XCTAssertEqual(error.code, .tooLarge, path)
            XCTAssertEqual(error.limit, 10_000, path)
            XCTAssertNil(h.cache.objCache(forKey: h.server.url(path)))
        }
        // Just under the limit is fine.
        h.server.setRoute("/small.png", .chunked(.ok(SampleImages.png(approximateSize: 9_000))))
        XCTAssertNotNil(h.fetch(h.server.url("/small.png")).value)
    }

    func testPixelCountOverTheLimitIs10005() throws {
        let h = try Harness { $0.maxPixelCount = 1000 }
        defer { h.close() }
        h.server.setRoute("/wide.gif", .ok(SampleImages.gif(width: 100, height: 100)))
        let error = try XCTUnwrap(h.fetch(h.server.url("/wide.gif")).error)
        XCTAssertEqual(error.code, .tooLarge)
        XCTAssertEqual(error.size, 10_000)
        XCTAssertEqual(error.limit, 1000)
    }

    func testOnlyFromCacheMissIs10006() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/a.png", .ok(SampleImages.png(width: 2, height: 2)))
        XCTAssertEqual(h.fetch(h.server.url("/a.png"), options: [.fromCacheOnly]).error?.code, .notInCache)
        XCTAssertEqual(h.server.requestCount(path: "/a.png"), 0)
        XCTAssertNotNil(h.fetch(h.server.url("/a.png")).value)
        XCTAssertEqual(h.fetch(h.server.url("/a.png"), options: [.fromCacheOnly]).value?.source, .memory)
    }

    func testRedirectsAreFollowedUpToTen() throws {
        let h = try Harness()
        defer { h.close() }
        let png = SampleImages.png(width: 4, height: 4)
        h.server.setRoute("/final.png", .ok(png))
        h.server.setRoute("/r1", .redirect(to: "/r2", status: 301))
        h.server.setRoute("/r2", .redirect(to: h.server.url("/final.png")))
        XCTAssertEqual(h.fetch(h.server.url("/r1")).value?.data, png)
        h.server.setRoute("/loop", .redirect(to: "/loop"))
        let error = try XCTUnwrap(h.fetch(h.server.url("/loop")).error)
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.curlCode, 47, "CURLE_TOO_MANY_REDIRECTS")
        XCTAssertEqual(h.server.requestCount(path: "/loop"), 11, "the first request and 10 redirects")
        h.server.setRoute("/to-file", .redirect(to: "file:///etc/passwd"))
        XCTAssertEqual(h.fetch(h.server.url("/to-file")).error?.code, .transport, "redirects stay on http/https")
    }

    func testErrorBridgesToNSErrorDomainAndCode() {
        let error = DWWebImageError.http(404, url: "http://x/y")
        let ns = error as NSError
        XCTAssertEqual(ns.domain, "DWWebImageErrorDomain")
        XCTAssertEqual(ns.code, 10004)
        XCTAssertEqual(DWWebImageError.Code.allCases.map(\.rawValue), Array(10000...10008))
    }
}
