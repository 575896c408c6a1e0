// `dwfetch serve --encode-budget`: a negotiated AVIF over the budget is answered at once in WebP with a short
// max-age, while the AVIF is made in the background under its own key for the next request.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class EncodeBudgetTests: ServeTestCase {
    static let accept = ["Accept": "image/avif,image/webp,*/*;q=0.8"]
    /// AVIF at speed 4: over 10× WebP's cost, as an operator who wants smaller files may set it (at serve's default
    /// speed 9 AVIF costs less than WebP, and the budget learns that: it never defers to a dearer stand-in).
    static let negotiating = ["--auto-avif", "--auto-webp", "--avif-speed", "4"]
    /// 800×600, asked at w:400: a 400×300 result, 0.12 MP, far over a 1 ms budget at any cost this machine has.
    let png = SampleImages.png(width: 800, height: 600, seed: 3)

    private func count(_ server: ServeProcess, _ outcome: String) throws -> Double {
        try server.metric("dwserve_background_encodes_total{outcome=\"\(outcome)\"}")
    }

    func testOverBudgetAnswersWebPAtOnceThenAVIFFromTheCache() throws {
        origin.setRoute("/b.png", .ok(png))
        let server = try serve(Self.negotiating + ["--encode-budget", "1"])
        let path = ProxyPath.plain(origin.url("/b.png"), options: "w:400")
        let first = try server.get(path, headers: Self.accept)
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(first.header("Content-Type"), "image/webp", "the stand-in, at once")
        XCTAssertEqual(first.header("Cache-Control"), "public, max-age=60", "short: a CDN asks again soon")
        XCTAssertEqual(first.header("Vary"), "Accept")
        XCTAssertTrue(
            try eventually(timeout: 30) { try count(server, "stored") == 1 }, "the AVIF made in the background")
        let second = try server.get(path, headers: Self.accept)
        XCTAssertEqual(second.header("Content-Type"), "image/avif", "from the cache, no encode in the request")
        XCTAssertEqual(second.header("Cache-Control"), "public, max-age=31536000")
        XCTAssertEqual(second.header("Vary"), "Accept")
        XCTAssertEqual(try count(server, "started"), 1)
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), 2, "the stand-in and the background AVIF only")
        let learned = try server.metric("dwserve_encode_cost_ms_per_megapixel{format=\"avif\"}")
        XCTAssertNotEqual(learned, 120, "the seed moved towards what the background encode took")
        XCTAssertGreaterThan(learned, 0)
        // A WebP-only client gets the stand-in's own variant: it was kept under its own key.
        let webp = try server.get(path, headers: ["Accept": "image/webp"])
        XCTAssertEqual(webp.header("Content-Type"), "image/webp")
        XCTAssertEqual(webp.header("Cache-Control"), "public, max-age=31536000")
        XCTAssertEqual(webp.body, first.body)
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), 2)
        XCTAssertEqual(origin.requestCount(path: "/b.png"), 1, "the background read the original from the disk cache")
    }

    func testExplicitAVIFAndNoBudgetEncodeInTheRequest() throws {
        origin.setRoute("/e.png", .ok(png))
        let budgeted = try serve(Self.negotiating + ["--encode-budget", "1"])
        for path in [
            ProxyPath.plain(origin.url("/e.png"), options: "w:400/f:avif"),
            ProxyPath.plain(origin.url("/e.png"), options: "w:401", ext: "avif")
        ] {
            let explicit = try budgeted.get(path, headers: Self.accept)
            XCTAssertEqual(explicit.header("Content-Type"), "image/avif", "the URL asked for AVIF: no budget")
            XCTAssertEqual(explicit.header("Cache-Control"), "public, max-age=31536000")
        }
        XCTAssertEqual(try count(budgeted, "started"), 0)
        XCTAssertEqual(try count(budgeted, "deferred"), 0)

        let plain = try serve(Self.negotiating)  // no --encode-budget: today's behaviour
        let negotiated = try plain.get(ProxyPath.plain(origin.url("/e.png"), options: "w:400"), headers: Self.accept)
        XCTAssertEqual(negotiated.header("Content-Type"), "image/avif")
        XCTAssertEqual(negotiated.header("Cache-Control"), "public, max-age=31536000")
        XCTAssertFalse(
            String(
                decoding: try HTTPClient.request(port: try XCTUnwrap(plain.metricsPort), target: "/metrics").body,
                as: UTF8.self
            ).contains("dwserve_background_encodes"), "no budget, no budget metrics")
    }

    func testABudgetWithNothingToWeighIsRefused() throws {
        XCTAssertEqual(try ServeProcess.exitStatus(refusing: ["--encode-budget", "50"]), 2)
        XCTAssertEqual(try ServeProcess.exitStatus(refusing: ["--auto-avif", "--encode-budget", "0"]), 2)
        XCTAssertEqual(
            try ServeProcess.exitStatus(refusing: [
                "--auto-avif", "--encode-budget", "5", "--background-encodes",
                "0"
            ]), 2)
    }

    func testConcurrentRequestsForOneVariantStartOneBackgroundEncode() throws {
        origin.setRoute("/c.png", .ok(SampleImages.png(width: 1600, height: 1200, seed: 4)))
        let server = try serve(Self.negotiating + ["--encode-budget", "1"])
        let path = ProxyPath.plain(origin.url("/c.png"), options: "w:800")
        let types = Recorder<String>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let response = try? server.get(path, headers: Self.accept)
            types.append(response.map { "\($0.status) \($0.header("Content-Type") ?? "")" } ?? "failed")
        }
        XCTAssertEqual(Set(types.values).subtracting(["200 image/webp", "200 image/avif"]), [], "\(types.values)")
        XCTAssertTrue(try eventually(timeout: 30) { try count(server, "stored") == 1 })
        XCTAssertEqual(try count(server, "started"), 1, "one background encode for one key")
        XCTAssertEqual(try server.get(path, headers: Self.accept).header("Content-Type"), "image/avif")
        XCTAssertEqual(try count(server, "started"), 1)
    }

    /// The stand-in is kept under its own key only: a dropped variant's next request (same server: memory) is a
    /// stand-in again with the short max-age, and a server on the same cache directory without a budget (disk)
    /// makes the AVIF rather than finding WebP under its key.
    func testTheStandInIsNeverKeptUnderTheAVIFKey() throws {
        origin.setRoute("/big.png", .ok(SampleImages.png(width: 2400, height: 1800, seed: 5)))
        origin.setRoute("/s.png", .ok(png))
        let cacheDir = FileManager.default.temporaryDirectory.appendingPathComponent("dwbudget-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheDir) }
        let first = try ServeProcess(
            [
                "--allow-network", "127.0.0.1/32", "--encode-budget", "1", "--background-encodes",
                "1"
            ] + Self.negotiating, cacheDir: cacheDir)
        defer { first.stop(signal: SIGKILL) }
        // The only background slot: a 4.3 MP AVIF at speed 4, which takes a while.
        XCTAssertEqual(try first.get(ProxyPath.plain(origin.url("/big.png")), headers: Self.accept).status, 200)
        var dropped: String?
        for width in 300..<340 where dropped == nil {
            let path = ProxyPath.plain(origin.url("/s.png"), options: "w:\(width)")
            let before = try count(first, "dropped")
            let response = try first.get(path, headers: Self.accept)
            XCTAssertEqual(response.header("Content-Type"), "image/webp")
            if try count(first, "dropped") > before { dropped = path }
        }
        let path = try XCTUnwrap(dropped, "a variant was dropped while the slot was taken")
        let again = try first.get(path, headers: Self.accept)
        if again.header("Content-Type") == "image/webp" {
            XCTAssertEqual(again.header("Cache-Control"), "public, max-age=60", "a stand-in, not a cached 'AVIF'")
        }
        first.stop(signal: SIGKILL)
        let second = try ServeProcess(["--allow-network", "127.0.0.1/32"] + Self.negotiating, cacheDir: cacheDir)
        defer { second.stop(signal: SIGKILL) }
        let fromDisk = try second.get(path, headers: Self.accept)
        XCTAssertEqual(fromDisk.header("Content-Type"), "image/avif", "no WebP under the AVIF key on disk")
    }

    /// A flood of distinct negotiated variants under a tiny budget: every request answered at once, at most
    /// `--background-encodes` put-off encodes pending at any time, the rest dropped and made on a later request.
    func testAFloodOfVariantsQueuesBoundedBackgroundWork() throws {
        origin.setRoute("/f.png", .ok(png))
        let server = try serve(Self.negotiating + ["--encode-budget", "1", "--background-encodes", "2"])
        let paths = (0..<20).map { ProxyPath.plain(origin.url("/f.png"), options: "w:\(300 + $0)") }
        let types = Recorder<String>()
        let pending = Recorder<Double>()
        let flooded = TestFlag()
        let monitor = Thread {
            while !flooded.isSet { pending.append((try? server.metric("dwserve_background_encodes_pending")) ?? -1) }
        }
        monitor.start()
        DispatchQueue.concurrentPerform(iterations: 6) { lane in
            for path in paths.enumerated().filter({ $0.offset % 6 == lane }).map(\.element) {
                let response = try? server.get(path, headers: Self.accept)
                types.append(response.map { "\($0.status) \($0.header("Content-Type") ?? "")" } ?? "failed")
            }
        }
        flooded.set()
        XCTAssertEqual(types.values.filter { $0 != "200 image/webp" }, [], "every request answered at once")
        XCTAssertLessThanOrEqual(pending.values.max() ?? 0, 2, "bounded")
        let started = try count(server, "started"), dropped = try count(server, "dropped")
        XCTAssertEqual(started + dropped, 20, "each put-off variant started or dropped, never queued beyond the bound")
        XCTAssertGreaterThan(dropped, 0)
        // Dropped ones are simply made on a later request.
        for path in paths {
            XCTAssertTrue(
                try eventually(timeout: 60, interval: 0.05) {
                    try server.get(path, headers: Self.accept).header("Content-Type") == "image/avif"
                }, path)
        }
    }

    /// `--workers 1`, a negotiated AVIF put off while slow transforms hold the worker and wait for it: its
    /// background encode starts only once no transform runs or waits (never beside the one a client waits for), and
    /// its variant still lands under its key. The order is what is checked, from the server's own counters: no clock.
    func testABackgroundEncodeWaitsForAnIdleWorker() throws {
        origin.setRoute("/n.png", .ok(SampleImages.png(width: 1600, height: 1200, seed: 7)))
        origin.setRoute("/slow.png", .ok(SampleImages.png(width: 1000, height: 1000)))
        let server = try serve(
            Self.negotiating + ["--encode-budget", "1", "--workers", "1", "--queue", "8", "--request-timeout", "120"])
        let slow = { (n: Int) in
            ProxyPath.plain(self.origin.url("/slow.png"), options: "rs:fit:3000:3000:1/sh:50/cb:\(n)")
        }
        let path = ProxyPath.plain(origin.url("/n.png"), options: "w:800")
        let first = Background(server, slow(1))
        XCTAssertTrue(try eventually(timeout: 60) { try server.metric("dwserve_workers_running") == 1 })
        // Queued in this order behind the first slow transform: the negotiated request, then a second slow one.
        let negotiated = Background(server, path, headers: Self.accept)
        XCTAssertTrue(try eventually(timeout: 60) { try server.metric("dwserve_workers_queued") == 1 })
        let second = Background(server, slow(2))
        XCTAssertTrue(try eventually(timeout: 60) { try server.metric("dwserve_workers_queued") == 2 })
        XCTAssertEqual(first.wait()?.status, 200)
        // The AVIF was put off once the negotiated request reached the worker; the second slow transform holds it now.
        XCTAssertTrue(try eventually(timeout: 60) { try count(server, "started") == 1 })
        while !second.isDone {
            guard try count(server, "stored") == 0 else {
                XCTFail("a background encode was made while a client's transform ran")
                break
            }
            usleep(20_000)
        }
        XCTAssertEqual(second.wait()?.status, 200)
        XCTAssertEqual(try count(server, "waited"), 1, "held back: a transform ran")
        let standIn = try XCTUnwrap(negotiated.wait())
        XCTAssertEqual(standIn.status, 200, standIn.text)
        XCTAssertEqual(standIn.header("Content-Type"), "image/webp", "the stand-in, behind the second slow transform")
        XCTAssertTrue(try eventually(timeout: 120) { try count(server, "stored") == 1 }, "made once the worker idled")
        XCTAssertEqual(try server.get(path, headers: Self.accept).header("Content-Type"), "image/avif")
    }

    /// SIGTERM while put-off encodes run: the server stops them and exits 0 at once.
    func testShutdownWithBackgroundEncodesInFlightExitsCleanly() throws {
        origin.setRoute("/h.png", .ok(SampleImages.png(width: 3000, height: 2000, seed: 6)))
        let server = try serve(Self.negotiating + ["--encode-budget", "1", "--background-encodes", "2"])
        for width in [2900, 2950] {
            let response = try server.get(
                ProxyPath.plain(origin.url("/h.png"), options: "w:\(width)"), headers: Self.accept)
            XCTAssertEqual(response.header("Content-Type"), "image/webp")
        }
        XCTAssertEqual(try count(server, "started"), 2)
        XCTAssertGreaterThan(try server.metric("dwserve_background_encodes_pending"), 0, "still encoding")
        XCTAssertEqual(server.stop(signal: SIGTERM, timeout: 10), 0, server.stderr)
    }
}
