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
        for i in 0..<60 { h.manager.downloadImage(withURL: h.server.url("/r\(i).png"), options: [.noCache]) { box.set($0) } }
        XCTAssertTrue(box.waitFor(count: 60, timeout: 20))
        XCTAssertTrue(box.all.allSatisfy { $0.value != nil })
        XCTAssertLessThanOrEqual(h.server.acceptedConnections, 4, "60 transfers over a couple of kept-alive connections")
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
        let offered = Set((request.header("Accept-Encoding") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        XCTAssertTrue(offered.isSuperset(of: ["gzip", "deflate"]), "the codings libcurl decodes are offered: \(offered)")
    }

    func testOptionsKeepHeadersThroughSetOperations() {
        var options: DWWebImageOptions = [.refreshCached, .headers(["A": "1"])]
        options.insert(.headers(["B": "2"]))
        options.formUnion(.highPriority)
        XCTAssertTrue(options.contains(.refreshCached))
        XCTAssertTrue(options.contains(.highPriority))
        XCTAssertEqual(options.requestHeaders, ["A": "1", "B": "2"])
        options.remove(.refreshCached)
        XCTAssertFalse(options.contains(.refreshCached))
        XCTAssertEqual(options.requestHeaders.count, 2)
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

    func testURLValidatorPercentEncodesAndRejects() {
        XCTAssertEqual(try URLValidator.validate(" http://h/a b.png ").get(), "http://h/a%20b.png")
        XCTAssertEqual(try URLValidator.validate("HTTPS://h/é").get(), "HTTPS://h/%C3%A9")
        XCTAssertEqual(URLValidator.validate("").error?.code, .emptyURL)
        XCTAssertEqual(URLValidator.validate("mailto:a@b").error?.code, .invalidURL)
    }

    func testURLFastPathAgreesWithURLComponents() {
        // Every URL the byte-level fast path accepts, URLComponents accepts too, with the same host and port.
        let urls = ["http://h/a.png", "HTTPS://Example.COM:8443/p/q?x=1&y=%20#frag", "http://127.0.0.1:80",
                    "http://a-b.c/~u/x_y(1)!$&'*+,;=:@/?q=/?", "http://h:65535/", "http://h:0/", "http://h:65536/",
                    "http://h:/x", "http://user:pw@h/x", "http://[::1]:8080/x", "http://h/a%2", "http://h/a%zz",
                    "http://h/a#b#c", "http:/h/x", "http://", "ftp://h/x", "http://h_1/x", "http://h/a[1]"]
        for url in urls {
            let bytes = Array(url.utf8)
            guard let fast = URLValidator.authority(of: bytes) else { continue }
            let components = URLComponents(string: url)
            XCTAssertNotNil(components, url)
            XCTAssertEqual(components?.host?.lowercased(), String(decoding: bytes[fast.host], as: UTF8.self).lowercased(), url)
            XCTAssertEqual(components?.port, fast.port, url)
            XCTAssertTrue(["http", "https"].contains(components?.scheme?.lowercased() ?? ""), url)
        }
        XCTAssertEqual(URLValidator.hostKey("HTTPS://Example.COM/x"), "example.com:443")
        XCTAssertEqual(URLValidator.hostKey("http://h:8080/x"), "h:8080")
        XCTAssertEqual(URLValidator.hostKey("http://[::1]:8080/x"), "[::1]:8080", "the URLComponents path")
        XCTAssertNotNil(URLValidator.authority(of: Array("http://h/a.png".utf8)), "the usual URL takes the fast path")
        XCTAssertEqual(URLValidator.validate("http://h:0/").error?.code, .invalidURL)
        XCTAssertEqual(URLValidator.validate("http://h:65536/").error?.code, .invalidURL)
    }

    func testRefreshCachedDownloadsAgainAndStores() throws {
        let h = try Harness()
        defer { h.close() }
        let v1 = SampleImages.png(width: 2, height: 2), v2 = SampleImages.png(width: 3, height: 3)
        h.server.setRoute("/v.png", .ok(v1))
        XCTAssertEqual(h.fetch(h.server.url("/v.png")).value?.data, v1)
        h.server.setRoute("/v.png", .ok(v2))
        XCTAssertEqual(h.fetch(h.server.url("/v.png")).value?.data, v1, "cached")
        XCTAssertEqual(h.fetch(h.server.url("/v.png"), options: [.refreshCached]).value?.data, v2)
        XCTAssertEqual(h.fetch(h.server.url("/v.png")).value?.data, v2, "the refreshed bytes were stored")
        XCTAssertEqual(h.server.requestCount(path: "/v.png"), 2)
    }

    func testMemoryOnlyAndNoCacheOptions() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/m.png", .ok(SampleImages.png(width: 2, height: 2)))
        h.server.setRoute("/x.png", .ok(SampleImages.png(width: 2, height: 2)))
        XCTAssertNotNil(h.fetch(h.server.url("/m.png"), options: [.cacheMemoryOnly]).value)
        XCTAssertNotNil(h.fetch(h.server.url("/x.png"), options: [.noCache]).value)
        h.drainCallbacks()
        XCTAssertTrue(h.cache.waitForPendingWrites(timeout: 10), "every disk write the pipeline started is done")
        XCTAssertFalse(FileManager.default.fileExists(atPath: h.cache.fileURL(forKey: h.server.url("/m.png")).path))
        XCTAssertEqual(h.fetch(h.server.url("/m.png")).value?.source, .memory)
        XCTAssertNil(h.cache.objCache(forKey: h.server.url("/x.png")))
    }
}
