// The fleet: three `dwfetch serve` instances sharing results through moto's S3 (auth on), behind a real varnishd
// whose shard director (bench/serve/fleet_vcl.py) keys on the source URL. One origin fetch per source and one
// transform per variant fleet-wide; an instance killed with SIGKILL mid-run costs no client a 5xx.
import Crypto
import DWLocking
import DWTestPeers
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class FleetTests: ServeTestCase {
    func testShardedFleetBehindVarnish() throws {
        let sources = 30, sizes = 10
        for i in 0..<sources {
            origin.setRoute("/src\(i).png", .ok(SampleImages.png(width: 160, height: 120, seed: UInt8(i))))
        }
        let moto = try MotoS3(bucket: "results")
        defer { moto.stop() }
        let flags = ["--result-storage", "s3://results/fleet", "--s3-endpoint", moto.endpoint]
        let instances = try (0..<3).map { _ in try serve(flags, environment: moto.environment) }
        let varnish = try VarnishFleet(ports: instances.map(\.port))
        defer { varnish.peer.stop() }

        // 30 sources × 10 widths, 8 clients at once: each source fetched once, each variant made once, fleet-wide.
        let first = (0..<sources).flatMap { i in
            (1...sizes).map { w in ProxyPath.plain(origin.url("/src\(i).png"), options: "w:\(w * 8)") }
        }
        let statuses = run(first, port: varnish.port)
        XCTAssertEqual(statuses.filter { $0 != 200 }, [], "every request served")
        for i in 0..<sources {
            XCTAssertEqual(origin.requestCount(path: "/src\(i).png"), 1, "source \(i): one origin fetch per fleet")
        }
        let transforms = try instances.map { try $0.metric("dwserve_transforms_total") }
        XCTAssertEqual(transforms.reduce(0, +), Double(sources * sizes), "one transform per variant: \(transforms)")
        XCTAssertTrue(transforms.allSatisfy { $0 > 0 }, "the shard director spreads sources: \(transforms)")

        // New variants of the same sources; one instance is killed (SIGKILL) after a third of them. Varnish retries
        // its requests on the next instance, its probe marks it sick, and its share moves: no client sees a 5xx.
        let second = (0..<sources).flatMap { i in
            (1...sizes).map { w in ProxyPath.plain(origin.url("/src\(i).png"), options: "h:\(w * 6)") }
        }
        // Only the signal here: Foundation's Process reaps children on one monitor thread, and waiting on it from a
        // client thread while varnishd lives can block; tearDown reaps the victim.
        let victim = instances[1].process.processIdentifier, victimPort = instances[1].port
        let after = run(second, port: varnish.port, killAfter: second.count / 3) { kill(victim, SIGKILL) }
        XCTAssertFalse(PeerProcess.accepts(victimPort), "the victim is gone")
        XCTAssertEqual(after.filter { $0 >= 500 }, [], "zero client-visible 5xx")
        XCTAssertEqual(after.filter { $0 == 200 }.count, second.count, "the rest served")
    }

    /// thumbor's URLs are routed by their image part too, `/unsafe/trim…` among them (serve reads it as thumbor's):
    /// seven variants of one source, one origin fetch fleet-wide.
    func testThumborURLsAreRoutedBySource() throws {
        origin.setRoute("/t.png", .ok(SampleImages.png(width: 64, height: 48, seed: 5)))
        let instances = try (0..<3).map { _ in try serve(["--thumbor-allow-unsafe"]) }
        let varnish = try VarnishFleet(ports: instances.map(\.port))
        defer { varnish.peer.stop() }
        let image = origin.url("/t.png")
        for path in [
            "/unsafe/10x10/\(image)", "/unsafe/fit-in/20x20/\(image)", "/unsafe/30x0/filters:quality(50)/\(image)",
            "/unsafe/smart/\(image)", "/unsafe/trim/\(image)", "/unsafe/trim:10/20x20/\(image)",
            "/unsafe/trim:bottom-right/fit-in/30x30/\(image)"
        ] {
            let response = try HTTPClient.request(port: varnish.port, target: path)
            XCTAssertEqual(response.status, 200, "\(path): \(response.text)")
        }
        XCTAssertEqual(origin.requestCount(path: "/t.png"), 1, "every variant on the source's instance")
    }

    /// Varnish keeps every format a client accepts that the instances negotiate (JPEG XL, then AVIF, then WebP, as
    /// the instances order them): an AVIF-and-WebP client gets AVIF, a WebP-only client WebP, and each its own object.
    func testAcceptKeepsEveryFormatTheInstancesNegotiate() throws {
        origin.setRoute("/a.png", .ok(SampleImages.png(width: 64, height: 48, seed: 9)))
        let instances = try (0..<3).map { _ in try serve(["--auto-webp", "--auto-avif"]) }
        let varnish = try VarnishFleet(ports: instances.map(\.port))
        defer { varnish.peer.stop() }
        let path = ProxyPath.plain(origin.url("/a.png"), options: "w:32")
        let cases: [(accept: String?, type: String)] = [
            ("image/avif,image/webp,image/apng,*/*;q=0.8", "image/avif"), ("image/webp,*/*", "image/webp"),
            ("image/jxl,image/avif,*/*", "image/avif"), (nil, "image/png")
        ]
        for (accept, type) in cases {
            let response = try HTTPClient.request(
                port: varnish.port, target: path,
                headers: accept.map { ["Accept": $0] } ?? [:])
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.header("Content-Type"), type, "Accept: \(accept ?? "none")")
        }
    }

    /// `PURGE` with the source's hash as `xkey` (what serve puts in every answer's `xkey`) drops every cached variant
    /// of that source from Varnish, and no other source's.
    func testAPurgeByXkeyDropsEveryVariantOfTheSource() throws {
        origin.setRoute("/p.png", .ok(SampleImages.png(width: 64, height: 48, seed: 1)))
        origin.setRoute("/q.png", .ok(SampleImages.png(width: 64, height: 48, seed: 2)))
        let varnish = try VarnishFleet(ports: [try serve().port])
        defer { varnish.peer.stop() }
        let source = origin.url("/p.png")
        let paths = [
            ProxyPath.plain(source, options: "w:10"), ProxyPath.plain(source, options: "w:20"),
            ProxyPath.plain(origin.url("/q.png"), options: "w:10")
        ]
        func cache(_ path: String) throws -> String? {
            try HTTPClient.request(port: varnish.port, target: path).header("X-Cache")
        }
        for path in paths { _ = try cache(path) }
        XCTAssertEqual(try paths.map(cache), ["HIT", "HIT", "HIT"])
        let hash = SHA256.hash(data: Data(source.utf8)).map { String(format: "%02x", $0) }.joined()
        let purge = try HTTPClient.request(port: varnish.port, target: "/", headers: ["xkey": hash], method: "PURGE")
        XCTAssertEqual(purge.status, 200, purge.text)
        XCTAssertEqual(try paths.map(cache), ["MISS", "MISS", "HIT"], "both variants of p.png, not q.png")
        XCTAssertEqual(try HTTPClient.request(port: varnish.port, target: "/", method: "PURGE").status, 400, "no key")
    }

    /// GETs every path through Varnish with 8 clients; the statuses in path order. `kill` runs once, after
    /// `killAfter` responses, on the client thread that got that response.
    private func run(_ paths: [String], port: Int, killAfter: Int? = nil, kill: @escaping @Sendable () -> Void = {})
        -> [Int]
    {
        let next = DWLock(0)
        let statuses = DWLock([Int](repeating: 0, count: paths.count))
        let done = DWLock(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            while true {
                let i = next.withLock { n -> Int in
                    n += 1; return n - 1
                }
                guard i < paths.count else { return }
                let status = (try? HTTPClient.request(port: port, target: paths[i]).status) ?? -1
                statuses.withLock { $0[i] = status }
                if done.withLock({ n -> Int in
                    n += 1; return n
                }) == killAfter {
                    kill()
                }
            }
        }
        return statuses.value
    }
}

/// varnishd (Debian's) on 127.0.0.1 with the fleet's generated VCL in front of `ports`.
final class VarnishFleet {
    let peer: PeerProcess
    var port: Int { peer.port }

    init(ports: [Int]) throws {
        peer = try PeerProcess(name: "varnish")
        let script = SourceTree.url("bench/serve/fleet_vcl.py").path
        try peer.write("fleet.vcl", try MotoS3.python([script] + ports.map(String.init)))
        try FileManager.default.createDirectory(atPath: peer.path("work"), withIntermediateDirectories: true)
        chmod(peer.path("work"), 0o755)
        try peer.start(
            "/usr/sbin/varnishd",
            [
                "-F", "-n", peer.path("work"), "-a", "127.0.0.1:\(peer.port)", "-f", peer.path("fleet.vcl"),
                "-s", "malloc,64m"
            ],
            package: "varnish")
    }
}
