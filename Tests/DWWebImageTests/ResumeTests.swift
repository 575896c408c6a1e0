// Resume and retry against a server that drops, stalls, ignores Range, changes content and lies about ranges.
import Crypto
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class ResumeTests: XCTestCase {
    /// ~1 MB PNG: big enough to spill to a partial file (256 KiB), small enough to be quick.
    private let body = SampleImages.png(approximateSize: 1_000_000, seed: 11)
    private let etag = "\"v1\""

    private func harness(retries: Int = 3, spillThreshold: Int? = nil) throws -> Harness {
        try Harness { c in
            c.retryPolicy = DWRetryPolicy(maxRetries: retries, interval: 0.05)
            if let spillThreshold { c.partialSpillThreshold = spillThreshold }
        }
    }

    /// A handler that answers request number `n` (1-based) with `routes[n-1]`, then the last one forever.
    private func sequence(_ routes: [Route]) -> @Sendable (RecordedRequest) -> Route {
        let counter = Counter()
        return { _ in routes[min(counter.next() - 1, routes.count - 1)] }
    }

    private func rangeStart(_ request: RecordedRequest) -> Int? {
        guard let value = request.header("Range"), value.hasPrefix("bytes="), value.hasSuffix("-") else { return nil }
        return Int(value.dropFirst(6).dropLast())
    }

    func testDroppedConnectionsResumeFromWhereTheyStopped() throws {
        let h = try harness()
        defer { h.close() }
        let resource = Route.resource(body, contentType: "image/png", etag: etag)
        // Clean closes (FIN) mid-body, so every byte sent is a byte received.
        h.server.setHandler(
            "/big.png",
            sequence([
                .closeAfter(bytes: 300_000, resource),
                .closeAfter(bytes: 300_000, resource), resource
            ]))
        let image = try h.fetch(h.server.url("/big.png")).get()
        XCTAssertEqual(image.data, body, "the resumed body is byte-for-byte the original")
        XCTAssertEqual(SHA256.hash(data: image.data).description, SHA256.hash(data: body).description)

        let log = h.server.requestLog
        XCTAssertEqual(log.count, 3)
        XCTAssertNil(log[0].header("Range"))
        let second = try XCTUnwrap(rangeStart(log[1]), "the retry asks for the rest")
        let third = try XCTUnwrap(rangeStart(log[2]))
        XCTAssertGreaterThan(second, 0)
        XCTAssertGreaterThan(third, second, "each retry resumes from further on")
        XCTAssertEqual(log[1].header("If-Range"), etag, "If-Range guards the splice")
        XCTAssertEqual(log[1].header("Accept-Encoding"), "identity")
        XCTAssertEqual(second, 300_000)
        XCTAssertEqual(third, 600_000)
        // The server counts a chunk after send() returns, so the client may finish first: wait for its last count.
        XCTAssertTrue(h.server.waitForBodyBytes(path: "/big.png", atLeast: body.count, timeout: 5))
        XCTAssertEqual(h.server.bodyBytesSent(path: "/big.png"), body.count, "resuming sends every byte exactly once")
        let metrics = try XCTUnwrap(image.metrics)
        XCTAssertEqual(metrics.attempts, 3)
        XCTAssertEqual(metrics.resumedFrom, Int64(third))
        XCTAssertEqual(metrics.httpStatus, 206)
        XCTAssertEqual(h.cache.objCache(forKey: h.server.url("/big.png")), body, "the cached entry is whole")
        XCTAssertEqual(try partialFiles(h), [], "a finished download leaves no partial file")
    }

    func testWithoutRetriesADropIs10003AndTheNextCallResumes() throws {
        let h = try harness(retries: 0)
        defer { h.close() }
        let resource = Route.resource(body, contentType: "image/png", etag: etag)
        h.server.setHandler("/big.png", sequence([.closeAfter(bytes: 600_000, resource), resource]))
        let error = try XCTUnwrap(h.fetch(h.server.url("/big.png")).error)
        XCTAssertEqual(error.code, .transport)
        XCTAssertNotNil(error.curlCode)
        XCTAssertNil(h.cache.objCache(forKey: h.server.url("/big.png")), "a failed download never leaves an entry")
        XCTAssertEqual(try partialFiles(h).count, 2, "the partial (.part + .meta) is kept for later")

        let image = try h.fetch(h.server.url("/big.png")).get()
        XCTAssertEqual(image.data, body)
        XCTAssertGreaterThan(
            try XCTUnwrap(rangeStart(h.server.requestLog[1])), 256 * 1024,
            "the next call resumes from the partial on disk")
        XCTAssertEqual(image.metrics?.attempts, 1)
        XCTAssertGreaterThan(image.metrics?.resumedFrom ?? 0, 0)
    }

    func testABodyUnderTheSpillThresholdResumesFromMemoryAndLeavesNoPartialFile() throws {
        let h = try harness(retries: 1, spillThreshold: 2 * 1024 * 1024)  // above the 1 MB body
        defer { h.close() }
        let resource = Route.resource(body, contentType: "image/png", etag: etag)
        h.server.setHandler("/big.png", sequence([.closeAfter(bytes: 600_000, resource), resource]))
        let image = try h.fetch(h.server.url("/big.png")).get()
        XCTAssertEqual(image.data, body)
        XCTAssertEqual(rangeStart(h.server.requestLog[1]), 600_000, "the retry resumes from the bytes in memory")
        // counted after the write
        XCTAssertTrue(h.server.waitForBodyBytes(path: "/big.png", atLeast: body.count, timeout: 5))
        XCTAssertEqual(h.server.bodyBytesSent(path: "/big.png"), body.count)

        let noRetry = try harness(retries: 0, spillThreshold: 2 * 1024 * 1024)
        defer { noRetry.close() }
        noRetry.server.setHandler("/once.png", sequence([.closeAfter(bytes: 600_000, resource), resource]))
        XCTAssertEqual(noRetry.fetch(noRetry.server.url("/once.png")).error?.code, .transport)
        XCTAssertEqual(try partialFiles(noRetry), [], "nothing reached the disk")
        XCTAssertEqual(try noRetry.fetch(noRetry.server.url("/once.png")).get().data, body)
        XCTAssertNil(noRetry.server.requestLog[1].header("Range"), "the next call starts over")
    }

    func testAServerThatIgnoresRangeStillGivesTheRightBytes() throws {
        let h = try harness()
        defer { h.close() }
        let full = Route.ok(body, contentType: "image/png", headers: [("ETag", etag), ("Accept-Ranges", "bytes")])
        h.server.setHandler("/big.png", sequence([.dropAfter(bytes: 400_000, full), full]))
        let image = try h.fetch(h.server.url("/big.png")).get()
        XCTAssertNotNil(h.server.requestLog[1].header("Range"), "we asked to resume")
        XCTAssertEqual(image.data, body, "the 200 replaced the partial instead of being appended to it")
        XCTAssertEqual(image.metrics?.resumedFrom, 0)
    }

    func testChangedContentIsNeverSpliced() throws {
        let h = try harness()
        defer { h.close() }
        let v2 = SampleImages.png(approximateSize: 1_000_000, seed: 99)
        XCTAssertEqual(v2.count, body.count, "same size, so only validators can tell the versions apart")
        // A correct server: If-Range no longer matches, so it sends the new version whole.
        h.server.setHandler(
            "/a.png",
            sequence([
                .dropAfter(bytes: 400_000, .resource(body, etag: etag)),
                .resource(v2, etag: "\"v2\"")
            ]))
        XCTAssertEqual(try h.fetch(h.server.url("/a.png")).get().data, v2)

        // A server that ignores If-Range and sends a range of the new version: refused, refetched whole.
        let lying = Counter()
        let body = self.body
        let v1Route = Route.dropAfter(bytes: 400_000, .resource(body, etag: etag))
        h.server.setHandler("/b.png") { request in
            if lying.next() == 1 { return v1Route }
            if let range = request.header("Range"), let start = Int(range.dropFirst(6).dropLast()) {
                return .status(
                    206, body: v2.subdata(in: start..<v2.count),
                    headers: [("ETag", "\"v2\""), ("Content-Range", "bytes \(start)-\(v2.count - 1)/\(v2.count)")])
            }
            return .resource(v2, etag: "\"v2\"")
        }
        let image = try h.fetch(h.server.url("/b.png")).get()
        XCTAssertEqual(image.data, v2, "one whole version, never v1's head on v2's tail")
        let paths = h.server.requestLog.filter { $0.path == "/b.png" }
        XCTAssertEqual(paths.count, 3)
        XCTAssertNil(paths[2].header("Range"), "after the contradicting 206, the whole body was fetched")
    }

    func testA206ThatStartsElsewhereIsRefetchedWhole() throws {
        let h = try harness()
        defer { h.close() }
        let first = Route.dropAfter(bytes: 400_000, .resource(body, etag: etag))
        let counter = Counter()
        let (body, etag) = (self.body, self.etag)
        h.server.setHandler("/a.png") { request in
            let n = counter.next()
            if n == 1 { return first }
            if request.header("Range") != nil {
                // Claims to start at 1000 whatever was asked.
                return .status(
                    206, body: body.subdata(in: 1000..<body.count),
                    headers: [("ETag", etag), ("Content-Range", "bytes 1000-\(body.count - 1)/\(body.count)")])
            }
            return .resource(body, etag: etag)
        }
        XCTAssertEqual(try h.fetch(h.server.url("/a.png")).get().data, body)
        let log = h.server.requestLog
        XCTAssertEqual(log.count, 3)
        XCTAssertNotNil(log[1].header("Range"))
        XCTAssertNil(log[2].header("Range"))
    }

    func testA416ConfirmsACompletePartialOnlyWithMatchingTotalAndValidator() throws {
        let h = try harness()
        defer { h.close() }
        let url = h.server.url("/done.png")
        // A partial holding every byte (a process died after receiving the body, before caching it).
        try plantPartial(h, url: url, bytes: body, etag: etag)
        h.server.setRoute("/done.png", .resource(body, contentType: "image/png", etag: etag))
        let image = try h.fetch(url).get()
        XCTAssertEqual(image.data, body)
        XCTAssertEqual(h.server.requestLog.map(\.path), ["/done.png"], "the 416 confirmed it; nothing refetched")
        XCTAssertEqual(h.server.bodyBytesSent(path: "/done.png"), 0)
        XCTAssertEqual(h.server.requestLog[0].header("Range"), "bytes=\(body.count)-")

        // A partial that is "longer" than the resource now is: 416 bytes */N with another N → fetched whole.
        let url2 = h.server.url("/shrunk.png")
        try plantPartial(h, url: url2, bytes: body + Data(count: 5000), etag: etag)
        h.server.setRoute("/shrunk.png", .resource(body, contentType: "image/png", etag: etag))
        XCTAssertEqual(try h.fetch(url2).get().data, body)
        let log = h.server.requestLog.filter { $0.path == "/shrunk.png" }
        XCTAssertEqual(log.count, 2)
        XCTAssertNil(log[1].header("Range"))
    }

    func testAWeakETagIsNeverUsedForIfRange() throws {
        let h = try harness()
        defer { h.close() }
        let weak = Route.resource(body, contentType: "image/png", etag: "W/\"weak\"")
        h.server.setHandler("/weak.png", sequence([.dropAfter(bytes: 400_000, weak), weak]))
        XCTAssertEqual(try h.fetch(h.server.url("/weak.png")).get().data, body)
        let log = h.server.requestLog
        XCTAssertEqual(log.count, 2)
        XCTAssertNil(log[1].header("Range"), "no strong validator: no resume")
        XCTAssertNil(log[1].header("If-Range"))

        // Weak ETag plus Last-Modified: Last-Modified is the validator.
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        let both = Route.resource(body, contentType: "image/png", etag: "W/\"weak\"", lastModified: date)
        h.server.setHandler("/both.png", sequence([.dropAfter(bytes: 400_000, both), both]))
        XCTAssertEqual(try h.fetch(h.server.url("/both.png")).get().data, body)
        let second = h.server.requestLog.filter { $0.path == "/both.png" }[1]
        XCTAssertEqual(second.header("If-Range"), date)
        XCTAssertNotNil(second.header("Range"))
    }

    func testAStallLongerThanTheStallTimeoutFailsAndRetryResumes() throws {
        let h = try Harness { c in
            c.stallTimeout = 1
            c.retryPolicy = DWRetryPolicy(maxRetries: 1, interval: 0)
        }
        defer { h.close() }
        let resource = Route.resource(body, contentType: "image/png", etag: etag)
        h.server.setHandler("/stall.png", sequence([.stallAfter(bytes: 400_000, resource), resource]))
        let image = try h.fetch(h.server.url("/stall.png"), timeout: 30).get()
        XCTAssertEqual(image.data, body)
        XCTAssertGreaterThan(try XCTUnwrap(rangeStart(h.server.requestLog[1])), 0)

        let h2 = try Harness { c in
            c.stallTimeout = 1
            c.retryPolicy = .none
        }
        defer { h2.close() }
        h2.server.setRoute("/s.png", .stallAfter(bytes: 1000, resource))
        let error = try XCTUnwrap(h2.fetch(h2.server.url("/s.png"), timeout: 30).error)
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.curlCode, 28, "curl's operation-timed-out, from the low-speed check")
    }

    func testRetryAfterIsHonouredUpToTheCap() throws {
        let h = try Harness { c in c.retryPolicy = DWRetryPolicy(maxRetries: 2, interval: 0, maxRetryAfter: 5) }
        defer { h.close() }
        let png = SampleImages.png(width: 8, height: 8)
        h.server.setHandler("/busy.png", sequence([.status(503, headers: [("Retry-After", "1")]), .ok(png)]))
        XCTAssertEqual(try h.fetch(h.server.url("/busy.png")).get().data, png)
        let log = h.server.requestLog
        XCTAssertEqual(log.count, 2)
        XCTAssertGreaterThanOrEqual(
            log[1].receivedAt.timeIntervalSince(log[0].receivedAt), 0.9,
            "the retry waited for Retry-After, not the 0 s interval")

        // Asking for longer than the cap: no retry, the 429 is the answer.
        h.server.setRoute("/later.png", .status(429, headers: [("Retry-After", "3600")]))
        let error = try XCTUnwrap(h.fetch(h.server.url("/later.png")).error)
        XCTAssertEqual(error.code, .httpStatus)
        XCTAssertEqual(error.httpStatus, 429)
        XCTAssertEqual(h.server.requestCount(path: "/later.png"), 1)
    }

    func testProgressIsMonotonicCountsResumedBytesAndEndsAtTheTotal() throws {
        let h = try Harness { c in
            c.retryPolicy = DWRetryPolicy(maxRetries: 2, interval: 0)
            c.progressInterval = 0
        }
        defer { h.close() }
        let resource = Route.resource(body, contentType: "image/png", etag: etag)
        h.server.setHandler(
            "/p.png",
            sequence([
                .dropAfter(bytes: 500_000, .throttled(chunk: 50_000, interval: 0.01, resource)),
                .throttled(chunk: 50_000, interval: 0.01, resource)
            ]))
        let first = Recorder<(Int64, Int64)>()
        let second = Recorder<(Int64, Int64)>()
        let boxes = [ResultBox(), ResultBox()]
        h.manager.downloadImage(withURL: h.server.url("/p.png"), progress: { first.append(($0, $1)) }) {
            boxes[0].set($0)
        }
        h.manager.downloadImage(withURL: h.server.url("/p.png"), progress: { second.append(($0, $1)) }) {
            boxes[1].set($0)
        }
        XCTAssertEqual(try XCTUnwrap(boxes[0].wait(timeout: 20)).value?.data, body)
        XCTAssertNotNil(boxes[1].wait(timeout: 20)?.value)
        let total = Int64(body.count)
        for values in [first.values, second.values] {
            XCTAssertGreaterThan(values.count, 3)
            XCTAssertEqual(values.last?.0, total, "a final call with received == expected")
            XCTAssertEqual(values.last?.1, total)
            for (a, b) in zip(values, values.dropFirst()) { XCTAssertLessThan(a.0, b.0, "strictly increasing") }
            XCTAssertTrue(
                values.allSatisfy { $0.1 == total || $0.1 == -1 }, "expected is the whole size, resumed or not")
        }
        let start = try XCTUnwrap(rangeStart(h.server.requestLog[1]))
        let afterResume = first.values.first { $0.0 > Int64(start) }
        XCTAssertNotNil(afterResume)
    }

    func testExponentialBackoffGrowsAndIsCapped() {
        let policy = DWRetryPolicy(
            maxRetries: 5, interval: 1, backoff: .exponential(multiplier: 2, maxInterval: 5, jitter: 0))
        XCTAssertEqual((1...5).map { policy.delay(beforeRetry: $0) }, [1, 2, 4, 5, 5])
        let jittered = DWRetryPolicy(
            maxRetries: 3, interval: 2, backoff: .exponential(multiplier: 2, maxInterval: 60, jitter: 0.5))
        XCTAssertEqual(jittered.delay(beforeRetry: 2, random: { 0 }), 2)
        XCTAssertEqual(jittered.delay(beforeRetry: 2, random: { 1 }), 6)
        XCTAssertEqual(DWRetryPolicy.max3s.delay(beforeRetry: 3), 3)
        XCTAssertEqual(DWRetryPolicy.retryAfterSeconds("120"), 120)
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        XCTAssertEqual(DWRetryPolicy.retryAfterSeconds("Sun, 06 Nov 1994 08:49:47 GMT", now: now), 10)
        XCTAssertNil(DWRetryPolicy.retryAfterSeconds("soon"))
    }

    func testResumeProtocolDecisions() {
        var head = DWResponseHead()
        head.status = 206
        head.contentRange = "bytes 100-199/200"
        head.contentLength = 100
        XCTAssertEqual(ResumeProtocol.decide(head: head, requestedOffset: 100), .append(offset: 100))
        XCTAssertEqual(
            ResumeProtocol.decide(head: head, requestedOffset: 50),
            .refetchWhole(reason: "206 starts at 100, asked for 50"))
        head.contentEncoding = "gzip"
        XCTAssertEqual(
            ResumeProtocol.decide(head: head, requestedOffset: 100),
            .refetchWhole(reason: "206 with Content-Encoding gzip"))
        head.contentEncoding = nil
        head.etag = "\"b\""
        XCTAssertEqual(
            ResumeProtocol.decide(
                head: head, requestedOffset: 100,
                validator: ResumeValidator(etag: "\"a\"", lastModified: nil)),
            .refetchWhole(reason: "206 for a different representation (validator changed)"))
        head.contentRange = nil
        XCTAssertEqual(
            ResumeProtocol.decide(head: head, requestedOffset: 100),
            .refetchWhole(reason: "206 without a usable Content-Range"))
        head.status = 200
        XCTAssertEqual(ResumeProtocol.decide(head: head, requestedOffset: 100), .replace)
        head.status = 503
        XCTAssertEqual(ResumeProtocol.decide(head: head, requestedOffset: 100), .noBody)

        XCTAssertNil(ResumeProtocol.parseContentRange("bytes 5-2/10"))
        XCTAssertNil(ResumeProtocol.parseContentRange("bytes 0-10/10"), "end must lie inside the total")
        XCTAssertNil(ResumeProtocol.parseContentRange("items 0-1/2"))
        XCTAssertEqual(ResumeProtocol.parseContentRange("bytes */42")?.total, 42)
        XCTAssertNil(ResumeProtocol.parseContentRange("bytes */42")?.start)
        XCTAssertEqual(ResumeProtocol.parseContentRange("bytes 0-9/*")?.end, 9)
        XCTAssertNil(ResumeProtocol.requestHeaders(offset: 10, validator: nil))
        XCTAssertNil(
            ResumeValidator(
                head: {
                    var h = DWResponseHead(); h.etag = "W/\"x\""; return h
                }()))
    }

    // MARK: - Helpers

    private func partialFiles(_ h: Harness) throws -> [String] {
        let dir = h.root.appendingPathComponent("partial").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// Writes a partial file and record as an interrupted earlier download would have left them.
    private func plantPartial(_ h: Harness, url: String, bytes: Data, etag: String) throws {
        let store = PartialStore(directory: h.root.appendingPathComponent("partial"))
        let file = try XCTUnwrap(store.create(url: url))
        file.validator = ResumeValidator(etag: etag, lastModified: nil)
        XCTAssertTrue(bytes.withUnsafeBytes { file.append($0) })
        file.writeRecord(acceptRanges: true)
        file.close(remove: false)
    }
}
