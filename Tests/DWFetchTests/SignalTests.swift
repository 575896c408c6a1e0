// SIGTERM and SIGHUP stop a run as Ctrl-C does: transfers cancelled, nothing half-written in -o or the cache, the
// partial body kept for resume; exit 128 + the signal (130, 143, 129). Each signal 20 times in a row: a race that
// shows once in twenty is a failure.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class SignalTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var root: URL!
    /// Over 256 KiB by the time the signal comes: a partial body that large is kept in a file for resume.
    private let body = SampleImages.png(approximateSize: 640_000, seed: 6)
    private let dog = SampleImages.png(width: 32, height: 32, seed: 2)

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-signal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server.setRoute(
            "/slow.png",
            .throttled(
                chunk: 32 * 1024, interval: 0.03,
                .resource(body, contentType: "image/png", etag: "\"slow\"")))
        server.setRoute("/dog.png", .ok(dog, contentType: "image/png"))
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    /// What a stopped run left: the output directory's files with their bytes' sizes, the cache's file names
    /// (partial bodies by name only: how far they got depends on timing), and the exit status.
    private struct Leftovers: Equatable {
        var output: [String: Int]
        var cache: Set<String>
        var status: Int32
    }

    /// One run of `-o out slow.png dog.png`, stopped by `sig` once dog.png is written and slow.png is mid-body.
    private func interruptedRun(_ sig: Int32, _ n: Int) throws -> Leftovers {
        let dir = root.appendingPathComponent("\(sig)-\(n)")
        let out = dir.appendingPathComponent("out"), cache = dir.appendingPathComponent("cache")
        server.resetStatistics()
        let running = try DWFetchProcess.start([
            "--cache-dir", cache.path, "--retries", "0", "-o", out.path,
            server.url("/slow.png"), server.url("/dog.png")
        ])
        _ = eventually(timeout: 30) {
            FileManager.default.fileExists(atPath: out.appendingPathComponent("dog.png").path)
                && server.bodyBytesSent(path: "/slow.png") >= 320 * 1024
        }
        XCTAssertLessThan(server.bodyBytesSent(path: "/slow.png"), body.count, "signalled mid-body")
        running.signal(sig)
        let run = running.wait(timeout: 20)
        XCTAssertTrue(run.stderr.contains("1 fetched, 1 failed"), "the run still reports, then stops: \(run.stderr)")
        // `.swept` is the start-up sweep's stamp: it exists only if that background sweep (utility QoS) ran after
        // this run had created the cache directory, which depends on the load, not on the signal.
        let files = Set(sizes(cache.path).keys).filter { !$0.hasSuffix("/.swept") }
        let leftovers = Leftovers(output: sizes(out.path), cache: files, status: run.status)
        try? FileManager.default.removeItem(at: dir)
        return leftovers
    }

    private func sizes(_ dir: String) -> [String: Int] {
        var result: [String: Int] = [:]
        guard let walker = FileManager.default.enumerator(atPath: dir) else { return result }
        for case let path as String in walker {
            let attributes = try? FileManager.default.attributesOfItem(atPath: dir + "/" + path)
            if attributes?[.type] as? FileAttributeType == .typeRegular { result[path] = attributes?[.size] as? Int }
        }
        return result
    }

    /// The reference: what Ctrl-C leaves.
    private func ctrlC() throws -> Leftovers {
        let reference = try interruptedRun(SIGINT, 0)
        XCTAssertEqual(reference.status, 130)
        XCTAssertEqual(reference.output, ["dog.png": dog.count], "only the finished image, whole, no temp file")
        XCTAssertTrue(
            reference.cache.contains { $0.hasPrefix("partial/") && $0.hasSuffix(".part") },
            "the partial body is kept for resume: \(reference.cache.sorted())")
        XCTAssertFalse(
            reference.cache.contains { $0.contains(".tmp") }, "no torn cache entry: \(reference.cache.sorted())")
        return reference
    }

    private func check(_ sig: Int32, exits status: Int32) throws {
        var reference = try ctrlC()
        reference.status = status
        for n in 1...20 {
            let leftovers = try interruptedRun(sig, n)
            XCTAssertEqual(leftovers, reference, "run \(n) of 20")
            if leftovers != reference { break }
        }
    }

    func testSIGTERMLeavesWhatCtrlCLeavesAndExits143() throws { try check(SIGTERM, exits: 143) }

    func testSIGHUPLeavesWhatCtrlCLeavesAndExits129() throws { try check(SIGHUP, exits: 129) }

    func testARunStoppedBySIGTERMResumesInTheNextOne() throws {
        let cache = root.appendingPathComponent("cache")
        let first = try DWFetchProcess.start(["--cache-dir", cache.path, "--retries", "0", server.url("/slow.png")])
        XCTAssertTrue(server.waitForBodyBytes(path: "/slow.png", atLeast: 320 * 1024, timeout: 30))
        first.signal(SIGTERM)
        XCTAssertEqual(first.wait(timeout: 20).status, 143)
        server.resetStatistics()
        let second = try DWFetchProcess.run(["--cache-dir", cache.path, "--json", server.url("/slow.png")])
        XCTAssertEqual(second.status, 0, second.stderr)
        let range = try XCTUnwrap(server.requestLog.first?.header("Range"), "the second run resumed")
        XCTAssertTrue(range.hasPrefix("bytes=") && !range.hasPrefix("bytes=0-"), range)
    }
}
