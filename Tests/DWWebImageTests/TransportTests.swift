// The libcurl multi engine against a real server: connection reuse, request headers, non-ASCII URLs.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class TransportTests: XCTestCase {
    func testConnectionsAreReusedAcrossTransfers() throws {
        let h = try Harness(slots: 2)
        defer { h.close() }
        let png = SampleImages.png(width: 2, height: 2)
        for i in 0..<60 { h.server.setRoute("/r\(i).png", .ok(png)) }
        let box = ResultBox()
        for i in 0..<60 {
            h.manager.downloadImage(withURL: h.server.url("/r\(i).png"), options: [.noCache]) { box.set($0) }
        }
        XCTAssertTrue(box.waitFor(count: 60, timeout: 20))
        XCTAssertTrue(box.all.allSatisfy { $0.value != nil })
        XCTAssertLessThanOrEqual(
            h.server.acceptedConnections, 4, "60 transfers over a couple of kept-alive connections")
    }

    /// A transfer that fails in name resolution must not leave its pooled easy handle unusable: libcurl 7.88 keeps the
    /// receive buffer across `curl_easy_reset` and then refuses `CURLOPT_BUFFERSIZE` (error 43) on every later
    /// plain-http transfer given that handle. One slot, so every transfer gets the same pooled handle.
    func testAnUnresolvableHostDoesNotBreakLaterTransfers() throws {
        let h = try Harness(slots: 1)
        defer { h.close() }
        let png = SampleImages.png(width: 2, height: 2)
        for i in 0..<3 { h.server.setRoute("/ok\(i).png", .ok(png)) }
        XCTAssertNotNil(h.fetch(h.server.url("/ok0.png"), options: [.noCache]).value)
        for _ in 0..<2 {
            guard case .failure(let error) = h.fetch("http://nonexistent.invalid/a.png", options: [.noCache]) else {
                return XCTFail("an unresolvable host cannot succeed")
            }
            XCTAssertEqual(error.code, .transport)
            XCTAssertEqual(error.curlCode, CurlCode.couldNotResolveHost, "\(error)")
            XCTAssertTrue(error.message.lowercased().contains("resolve"), error.message)
        }
        for i in 1..<3 {
            XCTAssertEqual(h.fetch(h.server.url("/ok\(i).png"), options: [.noCache]).value?.data, png)
        }
    }

    /// A pooled easy handle keeps its options for a like request (no `curl_easy_reset`): what one transfer set of
    /// its own (its header lines) never reaches the next, and a changed configuration is sent at once. One slot, so
    /// every transfer gets the same pooled handle.
    func testAPooledHandleCarriesNothingOfItsLastTransferIntoTheNext() throws {
        let h = try Harness(slots: 1)
        defer { h.close() }
        let png = SampleImages.png(width: 2, height: 2)
        for i in 0..<3 { h.server.setRoute("/p\(i).png", .ok(png)) }
        XCTAssertNotNil(h.fetch(h.server.url("/p0.png"), options: [.noCache, .headers(["X-Once": "1"])]).value)
        XCTAssertNotNil(h.fetch(h.server.url("/p1.png"), options: [.noCache]).value)
        var configuration = h.manager.configuration
        configuration.userAgent = "Changed/2"
        configuration.requestHeaders = ["X-Config": "c"]
        h.manager.configuration = configuration
        XCTAssertNotNil(h.fetch(h.server.url("/p2.png"), options: [.noCache]).value)
        let log = h.server.requestLog
        let (p0, p1, p2) = try (
            XCTUnwrap(log.first { $0.path == "/p0.png" }), XCTUnwrap(log.first { $0.path == "/p1.png" }),
            XCTUnwrap(log.first { $0.path == "/p2.png" })
        )
        XCTAssertEqual(p0.header("X-Once"), "1")
        XCTAssertNil(p1.header("X-Once"), "the header lines of the transfer before are not sent again")
        XCTAssertEqual(p1.header("User-Agent"), p0.header("User-Agent"))
        XCTAssertEqual(p2.header("User-Agent"), "Changed/2", "a handle set for the old configuration is set again")
        XCTAssertEqual(p2.header("X-Config"), "c")
    }

    func testRequestHeadersFromConfigurationAndOptions() throws {
        let h = try Harness { $0.requestHeaders = ["X-Global": "g", "X-Both": "config"] }
        defer { h.close() }
        h.server.setRoute("/h.png", .ok(SampleImages.png(width: 2, height: 2)))
        let options: DWWebImageOptions = [.noCache, .headers(["Authorization": "Bearer t0k", "X-Both": "option"])]
        XCTAssertNotNil(h.fetch(h.server.url("/h.png"), options: options).value)
        let request = try XCTUnwrap(h.server.requestLog.last)
        XCTAssertEqual(request.header("Authorization"), "Bearer t0k")
        XCTAssertEqual(request.header("X-Global"), "g")
        XCTAssertEqual(request.header("X-Both"), "option")
        XCTAssertTrue(request.header("User-Agent")?.hasPrefix("DWWebImage/") ?? false)
        let offered = Set(
            (request.header("Accept-Encoding") ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        XCTAssertTrue(
            offered.isSuperset(of: ["gzip", "deflate"]), "the codings libcurl decodes are offered: \(offered)")
    }

    func testNonASCIIURLIsFetchedAndCachedUnderItsOwnKey() throws {
        let h = try Harness()
        defer { h.close() }
        let png = SampleImages.png(width: 7, height: 3)
        h.server.setRoute("/%E5%9B%BE%E7%89%87%20a.png", .ok(png))
        let url = h.server.url("/图片 a.png")
        let cached = expectation(forNotification: .DWWebImageCacheComplete, object: nil, notificationCenter: h.center)
        XCTAssertEqual(h.fetch(url).value?.data, png)
        wait(for: [cached], timeout: 2)
        XCTAssertEqual(h.server.requestLog.last?.path, "/%E5%9B%BE%E7%89%87%20a.png")
        XCTAssertEqual(h.cache.objCache(forKey: url), png)
        XCTAssertEqual(h.cache.fileURL(forKey: url).lastPathComponent, CacheKey.md5(url))
    }
}
