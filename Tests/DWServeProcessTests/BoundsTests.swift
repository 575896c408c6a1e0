// Serve's work bounds hold for every request: /info takes a worker like a transform, cache hits and downloads take
// none, a deadline stops the transform it abandons, and request handling keeps its threads while every worker
// transforms. Each test is an attack on one bound.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class BoundsTests: ServeTestCase {
    /// 1000×1000: enlarged to 3000×3000 and sharpened at σ 50 it keeps one worker busy for seconds.
    let big = SampleImages.png(width: 1000, height: 1000)
    static let slowTransform = "rs:fit:3000:3000:1/sh:50"

    /// with `--workers 1 --queue 0` and the worker busy, concurrent /info requests get 503 (not three
    /// measurements at once); once the worker is free, /info answers again.
    func testInfoWaitsForAWorkerAndIs503WhenThePoolIsFull() throws {
        origin.setRoute("/big.png", .ok(big))
        origin.setRoute("/q.png", .ok(SampleImages.quadrants(width: 64, height: 64)))
        let server = try serve(["--workers", "1", "--queue", "0", "--request-timeout", "120"])
        let holder = Background(server, ProxyPath.plain(origin.url("/big.png"), options: Self.slowTransform))
        XCTAssertTrue(try Self.transforms(server, are: 1), "its transform holds the one worker")
        let infos = (1...3).map { Background(server, "/info/insecure/bh:1:1/cb:\($0)/plain/\(origin.url("/q.png"))") }
        for info in infos {
            let result = try XCTUnwrap(info.wait())
            XCTAssertEqual(result.status, 503, result.text)
            XCTAssertEqual(result.header("Retry-After"), "1")
        }
        XCTAssertEqual(holder.wait()?.status, 200, "the transform holding the worker")
        XCTAssertEqual(try server.get("/info/insecure/bh:1:1/cb:1/plain/\(origin.url("/q.png"))").status, 200)
    }

    /// /info measures within the server's limits: a 120-byte SVG declaring 8000×8000 is rendered for its
    /// BlurHash within the server's SVG cap (here 1 MP, from `--max-result-pixels`), not at the process-wide 64 MP
    /// (256 MB of RGBA).
    func testInfoRendersAnSVGWithinTheServersCap() throws {
        let svg =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="8000" height="8000"><rect width="8000" height="8000"/></svg>"#
        origin.setRoute("/big8000.svg", .ok(Data(svg.utf8), contentType: "image/svg+xml"))
        let server = try serve(["--request-timeout", "120", "--max-result-pixels", "1000000"])
        let response = try server.get("/info/insecure/bh:1:1/plain/\(origin.url("/big8000.svg"))")
        XCTAssertEqual(response.status, 200, response.text)
        let peak = server.peakResidentBytes
        XCTAssertLessThan(peak, 150 << 20, "peak RSS \(peak >> 20) MB")
    }

    /// `--workers 1 --queue 1`, two requests to a slow origin in flight: a memory hit still answers 200 (their
    /// downloads take no worker), and so do they.
    func testAMemoryHitIsServedWhileSlowOriginsAreInFlight() throws {
        origin.setRoute("/fast.png", .ok(SampleImages.png(width: 64, height: 48)))
        for i in 1...2 {
            origin.setRoute("/slow\(i).png", .delayed(3, .ok(SampleImages.png(width: 64, height: 48, seed: UInt8(i)))))
        }
        let server = try serve(["--workers", "1", "--queue", "1"])
        let hot = ProxyPath.plain(origin.url("/fast.png"), options: "w:10")
        XCTAssertEqual(try server.get(hot).status, 200)  // now in the memory cache
        let slow = (1...2).map { Background(server, ProxyPath.plain(origin.url("/slow\($0).png"), options: "w:10")) }
        XCTAssertTrue(
            eventually(timeout: 10) { (1...2).allSatisfy { origin.requestCount(path: "/slow\($0).png") >= 1 } },
            "both downloads are in flight at the origin")
        let hit = try server.get(hot)
        XCTAssertEqual(hit.status, 200, hit.text)
        XCTAssertFalse(slow.contains { $0.isDone }, "the slow downloads were still in flight meanwhile")
        for request in slow { XCTAssertEqual(request.wait()?.status, 200) }
    }

    /// `--workers 1 --request-timeout 2` and a transform that takes much longer: 504 at about 2 s, and the
    /// server's CPU time stops growing soon after (the transform was stopped); the next request's deadline holds.
    func testADeadlineStopsItsTransform() throws {
        origin.setRoute("/big.png", .ok(big))
        let server = try serve(["--workers", "1", "--request-timeout", "2"])
        for cacheBuster in 1...2 {
            let started = Date()
            let response = try server.get(
                ProxyPath.plain(origin.url("/big.png"), options: Self.slowTransform + "/cb:\(cacheBuster)"))
            let took = Date().timeIntervalSince(started)
            XCTAssertEqual(response.status, 504, response.text)
            XCTAssertLessThan(took, 3.5, "request \(cacheBuster): the deadline is 2 s")
            XCTAssertTrue(try Self.transforms(server, are: 0), "request \(cacheBuster): its transform returned")
            let before = server.cpuSeconds
            Thread.sleep(forTimeInterval: 2)  // the window the CPU time is measured over
            let spent = server.cpuSeconds - before
            XCTAssertLessThan(spent, 0.4, "request \(cacheBuster): CPU after the 504 (the transform goes on)")
        }
    }

    /// while every worker transforms, a memory hit and /health answer within 50 ms (one warm-up each).
    func testHealthAndAMemoryHitStayFastWhileEveryWorkerTransforms() throws {
        origin.setRoute("/big.png", .ok(big))
        origin.setRoute("/fast.png", .ok(SampleImages.png(width: 64, height: 48)))
        let server = try serve(["--workers", "2", "--request-timeout", "120"])
        let hot = ProxyPath.plain(origin.url("/fast.png"), options: "w:10")
        XCTAssertEqual(try server.get(hot).status, 200)  // warm-up: now a memory hit
        XCTAssertEqual(try server.get("/health").status, 200)  // warm-up
        let busy = (1...2).map {
            Background(server, ProxyPath.plain(origin.url("/big.png"), options: Self.slowTransform + "/cb:\($0)"))
        }
        XCTAssertTrue(try Self.transforms(server, are: 2), "both transforming")
        for target in [hot, "/health", hot, "/health"] {
            let started = Date()
            let response = try server.get(target)
            let took = Date().timeIntervalSince(started)
            XCTAssertEqual(response.status, 200, target)
            XCTAssertLessThan(took, 0.05, "\(target) while every worker transforms")
        }
        XCTAssertFalse(busy.contains { $0.isDone }, "both workers were still transforming meanwhile")
        for request in busy { XCTAssertEqual(request.wait()?.status, 200) }
    }

    /// Whether the server's transforms in flight (imgproxy's `images_in_progress` gauge on /metrics: renders begun
    /// and not yet returned) come to `count` within 30 s, polled.
    static func transforms(_ server: ServeProcess, are count: Int) throws -> Bool {
        try eventually(timeout: 30, interval: 0.02) { try server.metric("images_in_progress") == Double(count) }
    }
}

/// One request sent on a thread of its own; ``wait()`` gives its result (nil when it failed to send).
final class Background: @unchecked Sendable {
    // @unchecked: `result` is written once before `done` is signalled and read only after waiting on it.
    private var result: HTTPResult?
    private let done = DispatchSemaphore(value: 0)

    init(_ server: ServeProcess, _ target: String, headers: [String: String] = [:]) {
        let port = server.port
        Thread.detachNewThread { [self] in
            result = try? HTTPClient.request(port: port, target: target, headers: headers, timeout: 120)
            done.signal()
        }
    }

    /// Whether the response has arrived (or the request failed).
    var isDone: Bool {
        guard done.wait(timeout: .now()) == .success else { return false }
        done.signal()
        return true
    }

    func wait(timeout: TimeInterval = 120) -> HTTPResult? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        done.signal()  // a second wait returns at once
        return result
    }
}
