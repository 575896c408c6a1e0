// TLS and proxies against real peers: nginx (HTTPS, HTTP/2) with a CA the test makes with openssl, and tinyproxy as
// a forward proxy (plain requests, CONNECT for https).
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class TLSAndProxyTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwtls" }
    private let png = SampleImages.png(width: 40, height: 30, seed: 3)

    /// One fetch by a fresh manager (own cache root per call unless `shared`), no retries.
    private func fetch(
        _ url: String, expiring: Bool = false, _ configure: (inout DWWebImageManager.Configuration) -> Void
    )
        -> Result<DWImage, DWWebImageError>
    {
        let cache = DWWebImageCache(rootDirectory: root, notificationCenter: NotificationCenter())
        if expiring { cache.expirationTime = 0 }
        var configuration = DWWebImageManager.Configuration()
        configuration.retryCount = 0
        configure(&configuration)
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: NotificationCenter(),
            removeExpiredAtStart: false)
        defer {
            _ = cache.waitForPendingWrites()
            manager.invalidate()
        }
        let box = ResultBox()
        manager.downloadImage(withURL: url, options: expiring ? [] : [.noCache]) { box.set($0) }
        return box.wait(timeout: 20) ?? .failure(DWWebImageError(.cancelled, "test timeout"))
    }

    func testAnInternalCAIsTrustedOnlyWhenNamedAndPinsAreChecked() throws {
        let ca = try peer { try TestCA() }
        let nginx = try peer { try NginxTLS(ca: ca) }
        defer { nginx.stop() }
        try nginx.put("cat.png", png)
        let url = nginx.baseURL + "/cat.png"

        let untrusted = fetch(url) { _ in }
        XCTAssertEqual(untrusted.error?.code, .transport)
        XCTAssertEqual(untrusted.error?.curlCode, 60, "curl's 'peer certificate cannot be authenticated'")
        XCTAssertEqual(try fetch(url) { $0.tls.caFile = ca.caFile }.get().data, png)
        XCTAssertEqual(try fetch(url) { $0.tls.caDirectory = ca.caDirectory }.get().data, png)
        XCTAssertEqual(fetch(url) { $0.tls.caFile = ca.otherCAFile }.error?.curlCode, 60, "another CA does not vouch")
        XCTAssertEqual(try fetch(url) { $0.tls.insecure = true }.get().data, png, "insecure skips verification")
        XCTAssertEqual(
            try fetch(url) {
                $0.tls.caFile = ca.caFile; $0.tls.pinnedPublicKey = ca.serverPin
            }.get().data, png)
        let wrongPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        XCTAssertEqual(
            fetch(url) {
                $0.tls.caFile = ca.caFile; $0.tls.pinnedPublicKey = wrongPin
            }.error?.curlCode, 90,
            "CURLE_SSL_PINNEDPUBKEYNOTMATCH")
        XCTAssertEqual(
            fetch(url) {
                $0.tls.insecure = true; $0.tls.pinnedPublicKey = wrongPin
            }.error?.curlCode, 90,
            "a pin holds even when the chain is not checked")
    }

    func testClientCertificate() throws {
        let ca = try peer { try TestCA() }
        let nginx = try peer { try NginxTLS(ca: ca) }
        defer { nginx.stop() }
        try nginx.put("private/badge.png", png)
        let url = nginx.baseURL + "/private/badge.png"
        XCTAssertEqual(fetch(url) { $0.tls.caFile = ca.caFile }.error?.httpStatus, 403, "no certificate, no image")
        let image = try fetch(url) {
            $0.tls.caFile = ca.caFile
            $0.tls.clientCertificate = ca.clientCertificate
            $0.tls.clientKey = ca.clientKey
        }.get()
        XCTAssertEqual(image.data, png)
    }

    func testHTTP2MultiplexesSixDownloadsOverOneConnection() throws {
        let ca = try peer { try TestCA() }
        let nginx = try peer { try NginxTLS(ca: ca) }
        defer { nginx.stop() }
        for i in 0..<12 { try nginx.put("img\(i).png", SampleImages.png(width: 30 + i, height: 20, seed: UInt8(i))) }
        var configuration = DWWebImageManager.Configuration()
        configuration.tls.caFile = ca.caFile
        configuration.retryCount = 0
        let cache = DWWebImageCache(rootDirectory: root, notificationCenter: NotificationCenter())
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: NotificationCenter(),
            removeExpiredAtStart: false)
        defer { manager.invalidate() }
        manager.maxConcurrentDownloads = 6
        let box = ResultBox()
        for i in 0..<12 { manager.downloadImage(withURL: nginx.baseURL + "/img\(i).png") { box.set($0) } }
        XCTAssertTrue(box.waitFor(count: 12, timeout: 30))
        XCTAssertEqual(box.all.compactMap { try? $0.get() }.count, 12)
        nginx.stop()
        let lines = nginx.accessLog.split(separator: "\n").filter { $0.contains("/img") }
        XCTAssertEqual(lines.count, 12)
        XCTAssertTrue(lines.allSatisfy { $0.contains(" HTTP/2.0 ") }, nginx.accessLog)
        XCTAssertEqual(Set(lines.map { $0.split(separator: " ")[0] }).count, 1, "one connection: \(nginx.accessLog)")
    }

    func testNginxWeakETagOfAGzippedImageRevalidatesWith304() throws {
        let ca = try peer { try TestCA() }
        let nginx = try peer { try NginxTLS(ca: ca) }
        defer { nginx.stop() }
        let bmp = SampleImages.bmp(width: 64, height: 64)
        try nginx.put("flat.bmp", bmp)  // gzip_types image/bmp: nginx gzips it and weakens its ETag (W/"…")
        let url = nginx.baseURL + "/flat.bmp"
        XCTAssertEqual(try fetch(url, expiring: false) { $0.tls.caFile = ca.caFile }.get().data, bmp)
        // Cached under the same root by a caching fetch, then revalidated at once.
        _ = try fetchCached(url, caFile: ca.caFile)
        let revalidated = try fetch(url, expiring: true) { $0.tls.caFile = ca.caFile }.get()
        XCTAssertEqual(revalidated.source, .revalidated)
        XCTAssertEqual(revalidated.metrics?.httpStatus, 304)
        XCTAssertEqual(revalidated.data, bmp)
    }

    private func fetchCached(_ url: String, caFile: String) throws -> DWImage {
        let cache = DWWebImageCache(rootDirectory: root, notificationCenter: NotificationCenter())
        var configuration = DWWebImageManager.Configuration()
        configuration.tls.caFile = caFile
        let manager = DWWebImageManager(
            cache: cache, configuration: configuration, notificationCenter: NotificationCenter(),
            removeExpiredAtStart: false)
        defer {
            _ = cache.waitForPendingWrites()
            manager.invalidate()
        }
        return try Harness.fetch(manager, url)
    }

    func testRequestsGoThroughTinyproxyAndHTTPSThroughCONNECT() throws {
        let proxy = try peer { try Tinyproxy() }
        defer { proxy.stop() }
        let ca = try peer { try TestCA() }
        let nginx = try peer { try NginxTLS(ca: ca) }
        defer { nginx.stop() }
        try nginx.put("tls.png", png)
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/plain.png", .ok(png, contentType: "image/png"))

        XCTAssertEqual(try fetch(server.url("/plain.png")) { $0.proxy = proxy.url }.get().data, png)
        XCTAssertEqual(
            try fetch(nginx.baseURL + "/tls.png") {
                $0.proxy = proxy.url; $0.tls.caFile = ca.caFile
            }.get().data, png)
        XCTAssertEqual(
            try fetch(server.url("/plain.png")) {
                $0.proxy = proxy.url; $0.noProxy = "127.0.0.1"
            }.get().data, png)
        proxy.stop()
        let requests = proxy.requests
        XCTAssertEqual(requests.filter { $0.hasPrefix("GET \(server.url("/plain.png")) ") }.count, 1, "\(requests)")
        XCTAssertEqual(requests.filter { $0.hasPrefix("CONNECT 127.0.0.1:\(nginx.port) ") }.count, 1, "\(requests)")
        XCTAssertEqual(requests.count, 2, "noProxy bypassed it: \(requests)")
        XCTAssertEqual(server.requestLog.filter { $0.path == "/plain.png" }.count, 2)
    }
}
