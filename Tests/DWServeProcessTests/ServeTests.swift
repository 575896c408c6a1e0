// `dwfetch serve` seen from outside: a real server process, real HTTP, the in-process DWTestServer as the origin.
import Crypto
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

/// Builds imgproxy-style paths for a source.
enum ProxyPath {
    /// `/{signature}/{options}/plain/{percent-encoded source}[@ext]`.
    static func plain(_ source: String, options: String = "", ext: String? = nil, signature: String = "insecure")
        -> String
    {
        let encoded =
            source.addingPercentEncoding(
                withAllowedCharacters: CharacterSet(
                    charactersIn:
                        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? source
        return "/\(signature)" + (options.isEmpty ? "" : "/\(options)") + "/plain/\(encoded)"
            + (ext.map { "@\($0)" } ?? "")
    }

    /// `/{signature}/{options}/{base64url(source)}[.ext]`.
    static func encoded(_ source: String, options: String = "", ext: String? = nil, signature: String = "insecure")
        -> String
    {
        "/\(signature)" + (options.isEmpty ? "" : "/\(options)") + "/\(base64url(source))"
            + (ext.map { ".\($0)" } ?? "")
    }

    static func base64url(_ text: String) -> String { DWTestSupport.base64url(text.utf8) }
}

class ServeTestCase: XCTestCase {
    var origin: LoopbackHTTPServer!
    private var servers: [ServeProcess] = []

    override func setUpWithError() throws {
        origin = try LoopbackHTTPServer()
    }

    override func tearDown() {
        for server in servers { server.stop(signal: SIGKILL) }
        origin.shutdown()
    }

    /// A server that may reach the origin on 127.0.0.1 (SSRF tests pass `allowOrigin: false`).
    func serve(_ args: [String] = [], allowOrigin: Bool = true, environment: [String: String] = [:]) throws
        -> ServeProcess
    {
        let server = try ServeProcess(
            (allowOrigin ? ["--allow-network", "127.0.0.1/32"] : []) + args,
            environment: environment)
        servers.append(server)
        return server
    }
}

final class ServeTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)

    func testHealthAndMetrics() throws {
        let server = try serve()
        let health = try server.get("/health")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.text, "ok")
        XCTAssertEqual(try server.get("/metrics").status, 404, "/metrics is never on the public port")
        let metrics = try HTTPClient.request(port: try XCTUnwrap(server.metricsPort), target: "/metrics")
        XCTAssertEqual(metrics.status, 200)
        for name in [
            "dwserve_requests_total", "dwserve_origin_fetches_total", "dwserve_cache_hits_total",
            "dwserve_response_bytes_total", "dwserve_transform_seconds"
        ] {
            XCTAssertTrue(metrics.text.contains(name), "\(name) missing from /metrics")
        }
    }

    func testBothSourceEncodingsServeTheSourceBytes() throws {
        origin.setRoute("/cat.png", .ok(png, contentType: "image/png"))
        let server = try serve()
        for path in [
            ProxyPath.plain(origin.url("/cat.png")), ProxyPath.encoded(origin.url("/cat.png")),
            "/insecure/plain/" + origin.url("/cat.png"),  // plain, not percent-encoded, is accepted too
            ProxyPath.encoded(origin.url("/cat.png")).replacingOccurrences(of: "aHR0", with: "aHR0/")
        ] {
            let response = try server.get(path)
            XCTAssertEqual(response.status, 200, path)
            XCTAssertEqual(response.body, png, path)
            XCTAssertEqual(response.header("Content-Type"), "image/png")
            XCTAssertEqual(response.header("Content-Length"), String(png.count))
        }
        XCTAssertEqual(origin.requestCount(path: "/cat.png"), 1, "one origin fetch; the rest are cache hits")
        XCTAssertEqual(try server.metric("dwserve_origin_fetches_total"), 1)
        // A memory hit's record reaches the counters from the pipeline's callback queue, just after its answer.
        let hits = #"dwserve_cache_hits_total{layer="memory"}"#
        _ = try eventually(timeout: 10, interval: 0.01) { try server.metric(hits) >= 3 }
        XCTAssertEqual(try server.metric(hits), 3)
    }

    func testSignatureRightWrongAndMissing() throws {
        origin.setRoute("/s.png", .ok(png))
        let key = "736563726574", salt = "68656C6C6F"  // "secret" and "hello", imgproxy's documented pair
        let server = try serve(["--key", key, "--salt", salt])
        let rest = String(ProxyPath.plain(origin.url("/s.png"), options: "rs:fit:32:32").dropFirst("/insecure".count))
        let signature = try python(hmacOf: rest, key: key, salt: salt)
        XCTAssertEqual(try server.get("/\(signature)\(rest)").status, 200)
        // Another first character (six whole bits; the last one's low bits are padding a decoder may ignore).
        let forged = (signature.hasPrefix("A") ? "B" : "A") + signature.dropFirst()
        let wrong = try server.get("/\(forged)\(rest)")
        XCTAssertEqual(wrong.status, 403)
        XCTAssertTrue(wrong.text.contains("signature"), wrong.text)
        XCTAssertEqual(try server.get("/insecure\(rest)").status, 403)
        XCTAssertEqual(try server.get(rest).status, 403, "no signature segment at all")
        XCTAssertEqual(
            try server.get("/\(signature)\(rest.replacingOccurrences(of: "32:32", with: "33:32"))").status, 403,
            "the signature covers the options")
        XCTAssertEqual(origin.requestCount(path: "/s.png"), 1)

        // imgproxy's documented example (key "secret", salt "hello"): its signature passes; the source host
        // (example.com) is then refused by --allow-host, which says the signature check came first and passed.
        let strict = try serve(["--key", key, "--salt", salt, "--allow-host", "127.0.0.1"])
        let documented =
            "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        let answer = try strict.get(documented)
        XCTAssertEqual(answer.status, 403, "the signature passed, so the URL is refused for its host")
        XCTAssertTrue(answer.text.contains("host"), answer.text)
        let tampered = try strict.get(documented.replacingOccurrences(of: "oKfU", with: "oKfV"))
        XCTAssertEqual(tampered.status, 403)
    }

    func testWithoutAKeyAnySignatureSegmentIsAccepted() throws {
        origin.setRoute("/any.png", .ok(png))
        let server = try serve()
        for signature in ["insecure", "whatever", "_"] {
            XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/any.png"), signature: signature)).status, 200)
        }
    }

    func testMalformedURLsAre400WithOneLineBodies() throws {
        let server = try serve()
        let source = origin.url("/x.png")
        for path in [
            "/", "/insecure", "/insecure/", "/insecure/rs:fit:10:10/!!!not-base64!!!",
            "/insecure/zz:1/" + ProxyPath.base64url(source), "/insecure/rs:squash:10:10/plain/" + source,
            "/insecure/w:abc/plain/" + source, "/insecure/q:101/plain/" + source,
            "/insecure/plain/" + "ftp://127.0.0.1/x.png", "/insecure/plain/not-a-url",
            "/insecure/" + ProxyPath.base64url(source) + ".exe",
            "/insecure/" + ProxyPath.base64url("file:///etc/passwd")
        ] {
            let response = try server.get(path)
            XCTAssertEqual(response.status, 400, path)
            XCTAssertTrue(
                response.text.hasSuffix("\n") && response.text.dropLast().contains("\n") == false, response.text)
            XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff")
        }
        XCTAssertEqual(origin.acceptedConnections, 0)
    }

    func testOriginStatusesMapToTheDocumentedTable() throws {
        origin.setRoute("/404", .status(404))
        origin.setRoute("/410", .status(410))
        origin.setRoute("/500", .status(500))
        origin.setRoute("/403", .status(403))
        origin.setRoute("/hang", .hang)
        let closed = try LoopbackHTTPServer()
        let refusedURL = closed.url("/gone.png")
        closed.shutdown()
        let server = try serve(["--timeout", "1"])
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/404"))).status, 404)
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/410"))).status, 404)
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/500"))).status, 502)
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/403"))).status, 502)
        XCTAssertEqual(try server.get(ProxyPath.plain(refusedURL)).status, 502)
        let timeout = try server.get(ProxyPath.plain(origin.url("/hang")))
        XCTAssertEqual(timeout.status, 504, timeout.text)
        XCTAssertEqual(timeout.text.filter { $0 == "\n" }.count, 1, "one line: \(timeout.text)")
    }

    func testNonImagesAndLimitsAre422() throws {
        origin.setRoute("/page.html", .ok(SampleImages.notAnImage, contentType: "text/html"))
        origin.setRoute("/big.png", .ok(SampleImages.png(approximateSize: 20_000)))
        origin.setRoute("/anim.gif", .ok(SampleImages.gif(width: 4, height: 4, frames: 5)))
        let server = try serve(["--max-size", "10000", "--max-frames", "3"])
        let html = try server.get(ProxyPath.plain(origin.url("/page.html")))
        XCTAssertEqual(html.status, 422)
        XCTAssertFalse(html.text.contains("<html"), "the origin's body is never reflected")
        XCTAssertEqual(html.header("Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/big.png"))).status, 422)
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/anim.gif"))).status, 422)
        let raw = try server.get(ProxyPath.plain(origin.url("/anim.gif"), options: "raw:1"))  // no plan: respond checks
        XCTAssertEqual(raw.status, 422, raw.text)
        XCTAssertTrue(raw.text.contains("5 frames is over the limit of 3"), raw.text)
    }

    func testHugePixelCountIsRefusedFromTheHeaderWithLowRSS() throws {
        // A PNG whose IHDR claims 9000 × 9000 (81 MP, over the default 50 MP); decoding it would need ~324 MB.
        origin.setRoute("/huge.png", .ok(Self.pngHeader(width: 9000, height: 9000)))
        let server = try serve()
        let before = server.residentBytes
        let response = try server.get(ProxyPath.plain(origin.url("/huge.png"), options: "rs:fit:100:100"))
        XCTAssertEqual(response.status, 422, response.text)
        XCTAssertLessThan(server.residentBytes - before, 64 << 20, "nothing was decoded")
    }

    func testETagAnd304AndCacheHeaders() throws {
        origin.setRoute("/e.png", .ok(png))
        let server = try serve(["--max-age", "600"])
        let path = ProxyPath.plain(origin.url("/e.png"))
        let first = try server.get(path)
        XCTAssertEqual(first.status, 200)
        let etag = try XCTUnwrap(first.header("ETag"))
        XCTAssertTrue(etag.hasPrefix("\"") && !etag.hasPrefix("W/"), "strong: \(etag)")
        let digest = SHA256.hash(data: first.body).prefix(16).map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(etag, "\"\(digest)\"", "128 bits of the body's SHA-256")
        let repeated = try server.get(path)  // a memory hit: body and ETag from the served-bytes table
        XCTAssertEqual(repeated.body, first.body)
        XCTAssertEqual(repeated.header("ETag"), etag)
        XCTAssertEqual(first.header("Cache-Control"), "public, max-age=600")
        XCTAssertEqual(first.header("X-Content-Type-Options"), "nosniff")
        XCTAssertTrue(first.header("Content-Security-Policy")?.contains("default-src 'none'") ?? false)
        XCTAssertNil(first.header("Vary"), "no Vary without --auto-format")
        for condition in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
            let again = try server.get(path, headers: ["If-None-Match": condition])
            XCTAssertEqual(again.status, 304, condition)
            XCTAssertTrue(again.body.isEmpty)
            XCTAssertEqual(again.header("ETag"), etag)
            XCTAssertEqual(again.header("Cache-Control"), "public, max-age=600")
        }
        XCTAssertEqual(try server.get(path, headers: ["If-None-Match": "\"other\""]).status, 200)
        let other = try serve()
        origin.setRoute("/e2.png", .ok(png))
        XCTAssertEqual(
            try other.get(ProxyPath.plain(origin.url("/e2.png"))).header("ETag"), etag,
            "the ETag is the bytes' own, the same on every instance")
        XCTAssertEqual(
            try other.get(ProxyPath.plain(origin.url("/e2.png"))).header("Cache-Control"), "public, max-age=31536000")
    }

    func testAutoFormatVariesOnAcceptOnlyWhenNoFormatIsNamed() throws {
        origin.setRoute("/v.png", .ok(png))
        let server = try serve(["--auto-format"])
        let implicit = try server.get(ProxyPath.plain(origin.url("/v.png")), headers: ["Accept": "image/png"])
        XCTAssertEqual(implicit.status, 200)
        XCTAssertEqual(implicit.header("Vary"), "Accept")
        XCTAssertEqual(
            implicit.header("Content-Type"), "image/png", "Accept without webp/avif keeps the source's format")
        let named = try server.get(ProxyPath.plain(origin.url("/v.png"), ext: "png"), headers: ["Accept": "image/webp"])
        XCTAssertEqual(named.header("Content-Type"), "image/png")
        XCTAssertNil(named.header("Vary"), "a named format does not depend on Accept")
    }

    func testHeadHasTheHeadersWithoutABodyAndOtherMethodsAre405() throws {
        origin.setRoute("/h.png", .ok(png))
        let server = try serve()
        let path = ProxyPath.plain(origin.url("/h.png"))
        let head = try server.get(path, method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertEqual(head.header("Content-Type"), "image/png")
        XCTAssertNotNil(head.header("ETag"))
        let post = try server.get(path, method: "POST")
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(origin.requestCount(path: "/h.png"), 1)
    }

    func testConcurrentIdenticalColdRequestsMakeOneOriginFetch() throws {
        origin.setRoute("/hot.png", .delayed(0.3, .ok(png)))
        let server = try serve()
        let path = ProxyPath.plain(origin.url("/hot.png"))
        let statuses = Recorder<Int>()
        DispatchQueue.concurrentPerform(iterations: 50) { _ in
            statuses.append((try? server.get(path).status) ?? -1)
        }
        XCTAssertEqual(statuses.values, Array(repeating: 200, count: 50))
        XCTAssertEqual(origin.requestCount(path: "/hot.png"), 1)
        XCTAssertEqual(try server.metric("dwserve_origin_fetches_total"), 1)
    }

    func testSIGTERMLetsASlowResponseFinishAndExitsZero() throws {
        let body = SampleImages.png(approximateSize: 30_000)
        origin.setRoute("/slow.png", .throttled(chunk: 3000, interval: 0.15, .ok(body)))
        let server = try serve()
        let result = Recorder<HTTPResult>()
        let done = DispatchSemaphore(value: 0)
        let port = server.port
        let path = ProxyPath.plain(origin.url("/slow.png"))
        Thread.detachNewThread {
            if let response = try? HTTPClient.request(port: port, target: path) { result.append(response) }
            done.signal()
        }
        XCTAssertTrue(
            origin.waitForBodyBytes(path: "/slow.png", atLeast: 3000, timeout: 10), "the transfer is under way")
        kill(server.process.processIdentifier, SIGTERM)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let response = try XCTUnwrap(result.values.first)
        XCTAssertEqual(response.status, 200)
        // Its private chunk is stripped: the pixels come back re-encoded, as a PNG.
        XCTAssertEqual(response.body.prefix(8), body.prefix(8))
        // Not stop(): its SIGTERM would be a second signal, which exits at once and non-zero.
        XCTAssertEqual(server.waitForExit(timeout: 20), 0, "exit 0 after draining")
    }

    // MARK: - Helpers

    /// A PNG signature, an IHDR claiming width × height (RGBA8) and IEND: enough for a header check, nothing to decode.
    static func pngHeader(width: Int, height: Int) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let length = UInt32(body.count), crc = SampleImages.crc32(typed)
            return withUnsafeBytes(of: length.bigEndian, Array.init) + typed
                + withUnsafeBytes(of: crc.bigEndian, Array.init)
        }
        let ihdr =
            withUnsafeBytes(of: UInt32(width).bigEndian, Array.init)
            + withUnsafeBytes(of: UInt32(height).bigEndian, Array.init)
            + [8, 6, 0, 0, 0]
        return Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
                + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", []))
    }
}

/// The signature imgproxy's own recipe gives, computed by Python's hmac (independent of the server's code).
func python(hmacOf path: String, key: String, salt: String) throws -> String {
    let script = """
        import base64, hashlib, hmac, sys
        key, salt, path = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3].encode()
        print(base64.urlsafe_b64encode(hmac.new(key, salt + path, hashlib.sha256).digest()).rstrip(b"=").decode())
        """
    return try Python.system.script(script, arguments: [key, salt, path])
}
