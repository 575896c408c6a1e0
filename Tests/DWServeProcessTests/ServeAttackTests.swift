// Attacks on the built `dwfetch serve`, each as the request or connection an attacker would send: oversized and
// animated sources, floods over the worker pool, slow and idle connections, redirects and userinfo, cache entries
// made under another policy, metadata leaks, key and listener misconfiguration.
import Crypto
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class ServeAttackTests: ServeTestCase {
    let png = SampleImages.png(width: 64, height: 48)

    func testA16384SquaredEnlargeIs422BeforeAnyDecode() throws {
        origin.setRoute("/one.png", .ok(SampleImages.png(width: 1, height: 1)))
        let server = try serve()
        let before = server.residentBytes
        let response = try server.get(
            ProxyPath.plain(origin.url("/one.png"), options: "rs:force:16384:16384:1/bl:100/f:avif"))
        XCTAssertEqual(response.status, 422, response.text)
        XCTAssertLessThan(server.residentBytes - before, 32 << 20, "nothing was decoded or allocated")
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), 0, "refused before the transform started")
    }

    /// Found by fuzz/url-fuzzer: a trim with nothing to trim, on a PNG with no uniform border (most photos), took
    /// the whole server down with signal 11 (the encoder's one-thread render kept pointers to freed images).
    func testATrimWithNothingToTrimOnAPNGLeavesTheServerUp() throws {
        origin.setRoute(
            "/gradient.png",
            .ok(
                SampleImages.png(width: 120, height: 80) { x, y in
                    (UInt8(x * 2), UInt8(y * 3), UInt8(x + y), 255)
                }))
        let server = try serve()
        for options in ["t:10", "t:10:ff00ff:1:1", "trim:300/f:jpg"] {
            let response = try server.get(ProxyPath.plain(origin.url("/gradient.png"), options: options))
            XCTAssertEqual(response.status, 200, "\(options): \(response.text)")
        }
        XCTAssertEqual(
            try server.get(ProxyPath.plain(origin.url("/gradient.png"), options: "w:60")).status, 200,
            "the server still answers")
    }

    /// 600 frames of 200×200 (24 MP, over the default 16.8 MP budget): the first frame only is decoded and served,
    /// and the answer says how many frames were dropped.
    func testA600FrameGIFIsServedAsItsFirstFrame() throws {
        origin.setRoute("/many.gif", .ok(SampleImages.gif(width: 200, height: 200, frames: 600)))
        let server = try serve()
        let before = server.residentBytes
        for options in ["", "rs:fit:190:190"] {  // 600 × 190×190 is 21.7 MP: over the budget too
            let response = try server.get(ProxyPath.plain(origin.url("/many.gif"), options: options))
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(Self.gifFrameCount(response.body), 1, "options '\(options)': the first frame only")
            XCTAssertEqual(response.header("X-Frames-Dropped"), "599", "options '\(options)'")
        }
        XCTAssertLessThan(server.residentBytes - before, 48 << 20, "600 frames were never decoded (96 MB of RGBA)")
    }

    /// Fifty slow transforms (distinct: no coalescing) over one worker and two queued: three served, the rest 503
    /// at once (the downloads take no worker; the transforms do).
    func testFiftyConcurrentSlowTransformsOverOneWorkerAndTwoQueuedAre503AtOnce() throws {
        origin.setRoute("/big.png", .ok(SampleImages.png(width: 500, height: 500)))
        let server = try serve(["--workers", "1", "--queue", "2", "--request-timeout", "120"])
        let results = Recorder<(status: Int, retryAfter: String?, at: Date)>()
        let port = server.port
        let group = DispatchGroup()
        for i in 0..<50 {  // 50 threads: concurrentPerform would run only as many at once as there are cores
            let path = ProxyPath.plain(origin.url("/big.png"), options: "rs:fit:1500:1500:1/sh:50/cb:\(i)")
            group.enter()
            Thread.detachNewThread {
                let response = try? HTTPClient.request(port: port, target: path, timeout: 120)
                results.append((response?.status ?? -1, response?.header("Retry-After"), Date()))
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 150), .success)
        let served = results.values.filter { $0.status == 200 }
        let refused = results.values.filter { $0.status == 503 }
        XCTAssertEqual(served.count, 3, "one running, two waiting: \(results.values.map(\.status))")
        XCTAssertEqual(refused.count, 47)
        XCTAssertTrue(refused.allSatisfy { $0.retryAfter == "1" }, "503 carries Retry-After")
        let firstServed = try XCTUnwrap(served.map(\.at).min())
        XCTAssertTrue(refused.allSatisfy { $0.at < firstServed }, "every refusal came before the first answer")
    }

    func testARequestOverTheDeadlineIs504() throws {
        origin.setRoute("/hang.png", .hang)
        let server = try serve(["--request-timeout", "1", "--timeout", "60"])
        let response = try server.get(ProxyPath.plain(origin.url("/hang.png")))
        XCTAssertEqual(response.status, 504, response.text)
        XCTAssertTrue(
            origin.waitForActiveRequests(0, timeout: 10), "the abandoned fetch was cancelled, its connection closed")
        XCTAssertEqual(origin.requestCount(path: "/hang.png"), 1, "and not retried")
        XCTAssertEqual(try server.get("/health").status, 200)
    }

    func testEnvironmentProxiesAreIgnored() throws {
        let proxy = try LoopbackHTTPServer()
        defer { proxy.shutdown() }
        origin.setRoute("/a.png", .ok(png))
        let variables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"]
        let environment = Dictionary(uniqueKeysWithValues: variables.map { ($0, proxy.baseURL) })
        let server = try serve([], environment: environment)
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/a.png"))).status, 200)
        XCTAssertEqual(proxy.acceptedConnections, 0, "the recording proxy saw nothing")
        XCTAssertEqual(origin.requestCount(path: "/a.png"), 1, "fetched directly")
    }

    func testARedirectFromAnAllowedHostToAnotherIsRefusedBeforeItIsFollowed() throws {
        // The address guard lets all of 127/8 through here: only --allow-host can stop the second hop.
        let other = try ConnectionCounter(address: "127.0.0.2")
        defer { other.stop() }
        origin.setRoute("/open", .redirect(to: "http://127.0.0.2:\(other.port)/x.png"))
        let server = try serve(["--allow-network", "127.0.0.0/8", "--allow-host", "127.0.0.1"])
        let response = try server.get(ProxyPath.plain(origin.url("/open")))
        XCTAssertEqual(response.status, 403, response.text)
        XCTAssertFalse(response.text.contains("127.0.0.2"), response.text)
        XCTAssertEqual(origin.requestCount(path: "/open"), 1, "the allowed host was asked")
        XCTAssertEqual(other.count, 0, "nothing reached the other host")
    }

    func testTheVariantKeyCannotBeSpelledByAnotherURL() throws {
        let other = SampleImages.png(width: 30, height: 30, seed: 7)
        origin.setRoute("/a.png", .ok(png))
        origin.setRoute("/a.png@resize(10x,fit)", .ok(other))
        let server = try serve()
        // First the URL that spells the old variant key, then the variant itself.
        let spelled = try server.get(ProxyPath.encoded(origin.url("/a.png@resize(10x,fit)")))
        XCTAssertEqual(spelled.status, 200, spelled.text)
        let variant = try server.get(ProxyPath.encoded(origin.url("/a.png"), options: "rs:fit:10:0"))
        XCTAssertEqual(variant.status, 200, variant.text)
        XCTAssertNotEqual(variant.body, spelled.body)
        XCTAssertEqual(origin.requestCount(path: "/a.png"), 1, "the variant was made from its own source")
    }

    func testAnOriginalTheCLICachedIsNotServedBySERVE() throws {
        origin.setRoute("/internal.png", .ok(png))
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("dwserve-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let cli = try ProcessRun.run(
            ServeProcess.binary.path, ["--cache-dir", cache.path, "-q", origin.url("/internal.png")])
        XCTAssertEqual(cli.status, 0, "the CLI (no SSRF guard) fetched and cached the loopback URL: \(cli.errors)")
        let server = try ServeProcess([], cacheDir: cache)  // no --allow-network
        defer { server.stop(signal: SIGKILL) }
        let response = try server.get(ProxyPath.plain(origin.url("/internal.png")))
        XCTAssertEqual(response.status, 403, response.text)
        XCTAssertEqual(origin.requestCount(path: "/internal.png"), 1, "only the CLI's fetch")
    }

    func testAnOriginalCachedUnderALooserPolicyIsNotServed() throws {
        origin.setRoute("/b.png", .ok(png))
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("dwserve-pol-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let loose = try ServeProcess(["--allow-network", "127.0.0.1/32"], cacheDir: cache)
        XCTAssertEqual(try loose.get(ProxyPath.plain(origin.url("/b.png"))).status, 200)
        loose.stop()
        let strict = try ServeProcess([], cacheDir: cache)
        defer { strict.stop(signal: SIGKILL) }
        XCTAssertEqual(try strict.get(ProxyPath.plain(origin.url("/b.png"))).status, 403)
    }

    func testCacheFilesAre0600AndDirectories0700() throws {
        origin.setRoute("/p.png", .ok(png))
        let server = try serve()
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/p.png"))).status, 200)
        let space = server.cacheDir.appendingPathComponent("serve")
        var files: [String] = []
        _ = eventually(timeout: 10, interval: 0.02) {  // the disk write follows the answer
            files = ((try? FileManager.default.contentsOfDirectory(atPath: space.path)) ?? []).filter {
                !$0.hasPrefix(".")
            }
            return !files.isEmpty
        }
        XCTAssertFalse(files.isEmpty, "an entry was written")
        let enumerator = FileManager.default.enumerator(atPath: server.cacheDir.path)
        var checked = 0
        while let name = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(
                atPath: server.cacheDir.appendingPathComponent(name).path)
            let mode = (attributes[.posixPermissions] as? Int ?? -1) & 0o777
            let isDirectory = attributes[.type] as? FileAttributeType == .typeDirectory
            XCTAssertEqual(mode, isDirectory ? 0o700 : 0o600, "\(name): \(String(mode, radix: 8))")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 1)
    }

    func testUserinfoInTheSourceIs400AndNothingIsSent() throws {
        origin.setRoute("/a.png", .ok(png))
        let server = try serve()
        let source = "http://user:secret@127.0.0.1:\(origin.port)/a.png"
        for path in [ProxyPath.plain(source), ProxyPath.encoded(source)] {
            XCTAssertEqual(try server.get(path).status, 400, path)
        }
        XCTAssertEqual(origin.acceptedConnections, 0)
    }

    func testAHalfSentRequestIsClosedWithinTheHeaderTimeoutWhileOthersAreServed() throws {
        let server = try serve(["--header-timeout", "1", "--idle-timeout", "5"])
        let fd = try RawSocket.connect(port: server.port, receiveTimeout: 15)
        defer { close(fd) }
        let opened = ContinuousClock.now
        let partial = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)  // no blank line: never finished
        XCTAssertEqual(partial.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }, partial.count)
        XCTAssertEqual(try server.get("/health").status, 200, "another client is served meanwhile")
        var byte: UInt8 = 0
        let received = recv(fd, &byte, 1, 0)
        XCTAssertEqual(received, 0, "closed by the server (not the 15 s receive timeout: errno \(errno))")
        XCTAssertLessThan(ContinuousClock.now - opened, .seconds(4), "by the 1 s header timer, not the 5 s idle one")
    }

    func testAnIdleKeepAliveConnectionOutlivesTheHeaderTimeoutAndIsClosedByTheIdleTimeout() throws {
        let server = try serve(["--header-timeout", "1", "--idle-timeout", "5"])
        let fd = try RawSocket.connect(port: server.port, receiveTimeout: 15)
        defer { close(fd) }
        XCTAssertTrue(try Self.exchange(fd).hasPrefix("HTTP/1.1 200"))
        var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pending, 1, 1500), 0, "still open (and silent) 1.5 s after its response")
        XCTAssertTrue(try Self.exchange(fd).hasPrefix("HTTP/1.1 200"), "a late next request is served")
        let answered = ContinuousClock.now
        var byte: UInt8 = 0
        XCTAssertEqual(recv(fd, &byte, 1, 0), 0, "closed by the server (not the 15 s receive timeout: errno \(errno))")
        let idle = ContinuousClock.now - answered
        XCTAssertGreaterThan(idle, .seconds(4), "the idle timer (5 s) closed it, not the header timer (1 s)")
        XCTAssertLessThan(idle, .seconds(9))
    }

    func testAnIdleKeepAliveConnectionIsClosedByAShortIdleTimeout() throws {
        let server = try serve(["--header-timeout", "5", "--idle-timeout", "1"])
        let fd = try RawSocket.connect(port: server.port, receiveTimeout: 15)
        defer { close(fd) }
        XCTAssertTrue(try Self.exchange(fd).hasPrefix("HTTP/1.1 200"))
        let answered = ContinuousClock.now
        var byte: UInt8 = 0
        XCTAssertEqual(recv(fd, &byte, 1, 0), 0, "closed by the server (not the 15 s receive timeout: errno \(errno))")
        XCTAssertLessThan(ContinuousClock.now - answered, .seconds(4), "by the 1 s idle timer, not the 5 s header one")
    }

    func testARequestWhoseHeadArrivedOutlivesBothConnectionTimers() throws {
        origin.setRoute("/slow.png", .delayed(2, .ok(png)))
        let server = try serve(["--header-timeout", "1", "--idle-timeout", "1"])
        let response = try server.get(ProxyPath.plain(origin.url("/slow.png")))
        XCTAssertEqual(response.status, 200, "a 2 s fetch is the request deadline's business: \(response.text)")
    }

    func testConnectionsOverTheCapAreNotReadUntilOthersClose() throws {
        // The share per client would close the extra connections at once (SlowClientTests): this is the global cap.
        let server = try serve([
            "--max-connections", "2", "--max-connections-per-client", "16", "--header-timeout", "60"
        ])
        // NIO accepts up to 4 connections per wake-up before the cap is looked at again, so the cap is exceeded by
        // at most a few: 8 silent connections are sure to fill it.
        var silent: [Int32] = []
        for _ in 0..<8 { silent.append(try RawSocket.connect(port: server.port, receiveTimeout: 5)) }
        let waiting = try RawSocket.connect(port: server.port, receiveTimeout: 30)
        defer { close(waiting) }
        let request = Array("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        XCTAssertEqual(request.withUnsafeBytes { send(waiting, $0.baseAddress, $0.count, 0) }, request.count)
        var pending = pollfd(fd: waiting, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pending, 1, 1500), 0, "no answer while the cap is reached")
        silent.forEach { close($0) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = recv(waiting, &buffer, buffer.count, 0)
        XCTAssertGreaterThan(n, 0)
        XCTAssertTrue(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    }

    func testErrorBodiesNameNoAddressAndNoCurlText() throws {
        let closed = try LoopbackHTTPServer()
        let closedURL = closed.url("/gone.png")
        closed.shutdown()
        let server = try serve()
        let refused = try serve([], allowOrigin: false)
        for (response, expected) in [
            (try server.get(ProxyPath.plain(closedURL)), 502),
            (try refused.get(ProxyPath.plain(origin.url("/x.png"))), 403)
        ] {
            XCTAssertEqual(response.status, expected, response.text)
            for leak in ["127.0.0.1", "Couldn't", "connect", "curl", "Failed"] {
                XCTAssertFalse(response.text.contains(leak), "\(leak) in \(response.text)")
            }
        }
    }

    func testAJPEGWithGPSExifAndXMPLosesThemWithoutOptions() throws {
        let tagged = Self.jpegWithMetadata(SampleImages.jpeg)
        XCTAssertNotNil(tagged.range(of: Data("GPS-SECRET".utf8)))
        origin.setRoute("/gps.jpg", .ok(tagged))
        let server = try serve()
        let response = try server.get(ProxyPath.plain(origin.url("/gps.jpg")))
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.body.prefix(2), Data([0xFF, 0xD8]), "still a JPEG")
        for marker in ["Exif", "GPS-SECRET", "http://ns.adobe.com/xap/1.0/"] {
            XCTAssertNil(response.body.range(of: Data(marker.utf8)), "\(marker) is stripped")
        }
    }

    func testAMetadataFreePNGWithoutOptionsIsServedAsItIs() throws {
        origin.setRoute("/clean.png", .ok(png))
        let server = try serve()
        XCTAssertEqual(try server.get(ProxyPath.plain(origin.url("/clean.png"))).body, png)
    }

    func testMetricsAre404OnThePublicPort() throws {
        let server = try serve()
        XCTAssertEqual(try server.get("/metrics").status, 404)
        XCTAssertEqual(try server.get("/health").status, 200)
        let metrics = try HTTPClient.request(port: try XCTUnwrap(server.metricsPort), target: "/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertEqual(try HTTPClient.request(port: try XCTUnwrap(server.metricsPort), target: "/health").status, 404)
    }

    func testEveryConfiguredKeyPairIsValid() throws {
        origin.setRoute("/k.png", .ok(png))
        let pairs = [
            ("6b6579316b6579316b6579316b6579316b6579316b6579316b6579316b657931", "73616c7431"),
            ("6b6579326b6579326b6579326b6579326b6579326b6579326b6579326b657932", "73616c7432"),
            ("6b6579336b6579336b6579336b6579336b6579336b6579336b6579336b657933", "73616c7433"),
            ("6b6579346b6579346b6579346b6579346b6579346b6579346b6579346b657934", "73616c7434")
        ]
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("dwserve-keys-\(UUID().uuidString)")
        try "# rotated in\n\(pairs[2].0):\(pairs[2].1)\n".write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let server = try serve(
            [
                "--key", pairs[0].0, "--salt", pairs[0].1, "--key", pairs[1].0, "--salt", pairs[1].1,
                "--key-file", keyFile.path
            ],
            environment: ["IMGPROXY_KEY": "abcd,\(pairs[3].0)", "IMGPROXY_SALT": "abcd,\(pairs[3].1)"])
        let path = "/rs:fit:10:10/plain/" + origin.url("/k.png")
        for (key, salt) in pairs {
            let signature = Self.sign(path, key: key, salt: salt)
            XCTAssertEqual(try server.get("/" + signature + path).status, 200, "key \(key.prefix(8))")
        }
        let wrong = Self.sign(path, key: "00112233", salt: "44")
        XCTAssertEqual(try server.get("/" + wrong + path).status, 403)
        XCTAssertTrue(server.stderr.contains("warning: a signature key is 2 bytes"), server.stderr)
    }

    func testNoKeyRefusesAPublicHostAndAlwaysWarns() throws {
        // A documentation address no interface has: were the refusal missing, binding would fail, never listen.
        let (status, text) = try ServeProcess.startFailure(["--host", "192.0.2.1"])
        XCTAssertEqual(status, 2, text)
        XCTAssertTrue(text.contains("--allow-unsigned"), text)
        let loopback = try serve()
        XCTAssertEqual(loopback.stderr.components(separatedBy: "no signature key").count - 1, 1, loopback.stderr)
    }

    // MARK: - Helpers

    /// imgproxy's signature: base64url(HMAC-SHA256(key, salt ‖ path)).
    static func sign(_ path: String, key: String, salt: String) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: hex(key)))
        mac.update(data: hex(salt) + Array(path.utf8))
        return base64url(mac.finalize())
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// Image descriptors (0x2C) of a GIF, walked block by block.
    static func gifFrameCount(_ gif: Data) -> Int {
        let b = [UInt8](gif)
        guard b.count > 13, b.starts(with: Array("GIF".utf8)) else { return -1 }
        var i = 13 + ((b[10] & 0x80) != 0 ? 3 << (Int(b[10] & 7) + 1) : 0)
        var frames = 0
        func skipSubBlocks() { while i < b.count, b[i] != 0 { i += Int(b[i]) + 1 }; i += 1 }
        while i < b.count {
            switch b[i] {
            case 0x2C:
                frames += 1
                let packed = b[i + 9]
                i += 10 + ((packed & 0x80) != 0 ? 3 << (Int(packed & 7) + 1) : 0)
                i += 1  // LZW minimum code size
                skipSubBlocks()
            case 0x21:
                i += 2
                skipSubBlocks()
            case 0x3B: return frames
            default: return -1
            }
        }
        return frames
    }

    /// `jpeg` with an APP1 EXIF segment holding a GPS IFD (latitude ref "N", a marker string) and an APP1 XMP packet.
    static func jpegWithMetadata(_ jpeg: Data) -> Data {
        // TIFF, little-endian: IFD0 with one entry, GPSInfo (0x8825) → GPS IFD at 26 with GPSLatitudeRef "N" and
        // GPSMapDatum (0x0012, ASCII) "GPS-SECRET".
        var tiff: [UInt8] = Array("II".utf8) + [0x2A, 0, 8, 0, 0, 0]
        tiff += [1, 0] + [0x25, 0x88, 4, 0, 1, 0, 0, 0, 26, 0, 0, 0] + [0, 0, 0, 0]
        tiff += [2, 0] + [1, 0, 2, 0, 2, 0, 0, 0] + Array("N".utf8) + [0, 0, 0]
        tiff += [0x12, 0, 2, 0, 11, 0, 0, 0, 56, 0, 0, 0] + [0, 0, 0, 0]
        tiff += Array("GPS-SECRET".utf8) + [0]
        let exif = Array("Exif".utf8) + [0, 0] + tiff
        let xmp =
            Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
            + Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF/></x:xmpmeta>".utf8)
        func segment(_ payload: [UInt8]) -> [UInt8] {
            let length = payload.count + 2
            return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        return Data([0xFF, 0xD8] + segment(exif) + segment(xmp)) + jpeg.dropFirst(2)
    }

    /// Sends a keep-alive `GET /health` on `fd` and reads its whole response (head and `Content-Length` body).
    static func exchange(_ fd: Int32) throws -> String {
        let request = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw POSIXError(.EPIPE)
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let text = String(decoding: response, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let length =
                    text[..<end.lowerBound].split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.distance(from: end.upperBound, to: text.endIndex) >= length { return text }
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { throw POSIXError(.ECONNRESET) }
            response += buffer.prefix(n)
        }
    }
}
