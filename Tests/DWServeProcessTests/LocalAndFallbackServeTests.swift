// Attacks on the built `dwfetch serve` through `local://` files and the fallback image: local files go through the
// pipeline (size cap, no symlinks, cached), and the fallback is rendered once per plan with a short max-age.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class LocalAndFallbackServeTests: ServeTestCase {
    private var roots: [URL] = []

    override func tearDown() {
        super.tearDown()
        for root in roots { try? FileManager.default.removeItem(at: root) }
    }

    /// A fresh directory, removed after the test.
    private func directory(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dw\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        roots.append(dir)
        return dir
    }

    func testALocalPNGFollowedBy150MBOfZerosIs422AndIsNeverReadWhole() throws {
        let root = try directory("local")
        let file = root.appendingPathComponent("big.png")
        try SampleImages.png(width: 40, height: 20).write(to: file)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 150 * 1024 * 1024)  // 150 MB of zeros after the PNG (sparse: no disk used)
        try handle.close()
        let server = try serve(["--local-root", root.path])
        let before = server.peakResidentBytes
        for options in ["", "raw:1", "w:10"] {
            let response = try server.get(ProxyPath.plain("local:///big.png", options: options))
            XCTAssertEqual(response.status, 422, "\(options): \(response.status) \(response.body.count) bytes")
            XCTAssertLessThan(response.body.count, 1000, options)
        }
        let grown = server.peakResidentBytes - before
        XCTAssertLessThan(grown, 40 * 1024 * 1024, "peak RSS grew \(grown / 1_048_576) MB: the file was read")
    }

    func testSymlinksUnderTheRootAreRefused() throws {
        let root = try directory("local")
        let outside = try directory("outside")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("dir"), withIntermediateDirectories: true)
        try SampleImages.png(width: 20, height: 10).write(to: root.appendingPathComponent("dir/a.png"))
        try SampleImages.png(width: 5, height: 5).write(to: outside.appendingPathComponent("secret.png"))
        let links = [
            ("out.png", outside.appendingPathComponent("secret.png").path), ("outdir", outside.path),
            ("dir/up.png", "../../\(outside.lastPathComponent)/secret.png"), ("loop.png", "loop.png")
        ]
        for (name, target) in links {
            try FileManager.default.createSymbolicLink(
                atPath: root.appendingPathComponent(name).path,
                withDestinationPath: target)
        }
        let server = try serve(["--local-root", root.path])
        XCTAssertEqual(try server.get(ProxyPath.plain("local:///dir/a.png")).status, 200)
        for source in [
            "local:///out.png", "local:///outdir/secret.png", "local:///dir/up.png", "local:///loop.png",
            "local:///dir", "local:///dir/../out.png", "local:///dir%2f..%2fout.png", "local:///dir/a.png%00x"
        ] {
            let response = try server.get(ProxyPath.plain(source, options: "raw:1"))
            XCTAssertEqual(response.status, 404, "\(source): \(response.status) \(response.text)")
        }
    }

    func testADirectorySwappedForASymlinkDuringRequestsNeverServesTheOutsideFile() throws {
        let root = try directory("local")
        let outside = try directory("outside")
        let dir = root.appendingPathComponent("dir"), parked = root.appendingPathComponent("dir.x")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: outside.appendingPathComponent("dir"), withIntermediateDirectories: true)
        try SampleImages.png(width: 40, height: 20).write(to: dir.appendingPathComponent("a.png"))  // wide inside
        // tall outside
        try SampleImages.png(width: 20, height: 40).write(to: outside.appendingPathComponent("dir/a.png"))
        // No negative cache: a 404 met mid-swap must not answer the source's later requests.
        let server = try serve(["--local-root", root.path, "--negative-ttl", "0", "--negative-ttl-gone", "0"])
        let stop = TestFlag()
        let swapper = Thread {
            while !stop.isSet {
                rename(dir.path, parked.path)
                symlink(outside.appendingPathComponent("dir").path, dir.path)
                usleep(40)
                unlink(dir.path)
                rename(parked.path, dir.path)
                usleep(100)
            }
        }
        swapper.start()
        defer { stop.set() }
        var (served, outsideServed, asked) = (0, 0, 0)
        // Each source and chain is new (nothing answered from memory), so each request opens the file again. The
        // directory is in place for a short window of each swap: ask until some requests met it (at least 400, at
        // most 6,000), so a loaded machine makes the race longer, never the test weaker.
        let sources = (1...12).map { "local:///dir" + String(repeating: "/", count: $0) + "a.png" }
        var size = 2
        while asked < 6000 && (asked < 400 || served < 3) {
            for chain in ["w:\(size)/f:png", "h:\(size)/f:png"] {
                for source in sources {
                    asked += 1
                    let response = try server.get(ProxyPath.plain(source, options: chain))
                    guard response.status == 200 else {
                        XCTAssertEqual(response.status, 404, "\(chain): \(response.text)")
                        continue
                    }
                    let (width, height) = try XCTUnwrap(Self.pngSize(response.body), chain)
                    if width > height { served += 1 } else { outsideServed += 1 }
                }
            }
            size += 1
        }
        stop.set()
        XCTAssertEqual(outsideServed, 0, "the file outside the root was served")
        XCTAssertGreaterThan(served, 0, "the race ran: some requests saw the directory and were served")
        print("swap race: \(asked) asked, \(served) served from inside, \(outsideServed) from outside, the rest 404")
    }

    func testAHotLocalURLIsAnsweredFromTheCacheTheSecondTime() throws {
        let root = try directory("local")
        try SampleImages.png(width: 40, height: 20).write(to: root.appendingPathComponent("a.png"))
        let server = try serve(["--local-root", root.path])
        let path = ProxyPath.plain("local:///a.png", options: "w:10")
        let first = try server.get(path)
        XCTAssertEqual(first.status, 200, first.text)
        try FileManager.default.removeItem(at: root.appendingPathComponent("a.png"))  // a read would 404 now
        let second = try server.get(path)
        XCTAssertEqual(second.status, 200, "the variant came from memory, not from the file: \(second.text)")
        XCTAssertEqual(second.body, first.body)
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), 1, "transformed once")
        // A memory hit's record reaches the counters from the pipeline's callback queue, just after its answer.
        XCTAssertTrue(try eventually { try server.metric(#"dwserve_cache_hits_total{layer="memory"}"#) >= 1 })
    }

    func testTheFallbackIsMadeOncePerChainAndServedWithAShortMaxAge() throws {
        let file = try directory("fallback").appendingPathComponent("fb.png")
        try SampleImages.png(width: 40, height: 20).write(to: file)
        let server = try serve(["--fallback-image", file.path])
        for i in 1...4 {  // four failing sources, one chain: one transform
            let response = try server.get(ProxyPath.plain("http://127.0.0.1:1/x\(i).png", options: "w:20"))
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.header("Cache-Control"), "public, max-age=60", "a short default for the fallback")
            XCTAssertEqual(Self.pngSize(response.body).map { [$0.0, $0.1] }, [20, 10])
        }
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), 1, "the fallback was processed once for w:20")
        XCTAssertEqual(try server.get(ProxyPath.plain("http://127.0.0.1:1/y.png", options: "w:10")).status, 200)
        XCTAssertEqual(try server.metric("dwserve_transforms_total"), 2, "another chain is another variant")
        let overridden = try serve(["--fallback-image", file.path, "--fallback-max-age", "5"])
        let response = try overridden.get(ProxyPath.plain("http://127.0.0.1:1/x.png"))
        XCTAssertEqual(response.header("Cache-Control"), "public, max-age=5")
    }

    /// Width and height from a PNG's IHDR.
    static func pngSize(_ data: Data) -> (Int, Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }
}
