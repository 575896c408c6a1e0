// dwfetch -o with the cache: each body is stored once — the output file is the cache entry (a hard link) on one file
// system, a kernel copy of it across file systems — and an output edited in place is never served from the cache.
import DWTestServer
import Foundation
import XCTest

final class OutputFromEntryTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var root: URL!
    private let bodies = (0..<6).map { SampleImages.png(approximateSize: 20_000 + 1_000 * $0, seed: UInt8(10 + $0)) }

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwfetch-entry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (i, body) in bodies.enumerated() { server.setRoute("/i\(i).png", .ok(body, contentType: "image/png")) }
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    private var urls: [String] { bodies.indices.map { server.url("/i\($0).png") } }

    private func fetch(cache: String, out: String, environment: [String: String] = [:]) throws -> [[String: Any]] {
        let run = try DWFetchProcess.run(
            ["--cache-dir", cache, "--retries", "0", "--json", "-o", out] + urls, environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try run.json()
    }

    private func identity(_ path: String) -> (device: UInt64, inode: UInt64, links: UInt64)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino), UInt64(st.st_nlink))
    }

    /// The cache's entry files (name → identity).
    private func entries(_ cache: String) throws -> [(device: UInt64, inode: UInt64, links: UInt64)] {
        let space = cache + "/defaultCacheSpace"
        return try FileManager.default.contentsOfDirectory(atPath: space).filter { !$0.hasPrefix(".") }
            .compactMap { identity(space + "/" + $0) }
    }

    /// Checks every output file: the body, and whether it is one of the cache's entry files.
    private func checkOutputs(
        _ lines: [[String: Any]], cache: String, linked: Bool, source: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let entryInodes = Set(try entries(cache).map { "\($0.device):\($0.inode)" })
        XCTAssertEqual(entryInodes.count, bodies.count, "one entry per URL", file: file, line: line)
        for (i, object) in lines.enumerated() {
            let path = try XCTUnwrap(object["path"] as? String, file: file, line: line)
            XCTAssertEqual(object["source"] as? String, source, file: file, line: line)
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: path)), bodies[i], "output \(i) is the body",
                file: file, line: line)
            let id = try XCTUnwrap(identity(path), file: file, line: line)
            XCTAssertEqual(
                entryInodes.contains("\(id.device):\(id.inode)"), linked,
                linked ? "output \(i) is the cache entry, stored once" : "output \(i) is a copy",
                file: file, line: line)
        }
        let out = URL(fileURLWithPath: (lines[0]["path"] as? String) ?? "/").deletingLastPathComponent().path
        let listing = try FileManager.default.contentsOfDirectory(atPath: out)
        XCTAssertEqual(listing.count, bodies.count, "no temp files left: \(listing)", file: file, line: line)
    }

    func testColdAndWarmOutputsAreTheCacheEntriesOnOneFileSystem() throws {
        let cache = root.appendingPathComponent("cache").path
        let cold = try fetch(cache: cache, out: root.appendingPathComponent("cold").path)
        try checkOutputs(cold, cache: cache, linked: true, source: "network")
        XCTAssertEqual(server.requestLog.count, bodies.count)
        let warm = try fetch(cache: cache, out: root.appendingPathComponent("warm").path)
        try checkOutputs(warm, cache: cache, linked: true, source: "disk")
        XCTAssertEqual(server.requestLog.count, bodies.count, "warm: no request")
        XCTAssertTrue(try entries(cache).allSatisfy { $0.links == 3 }, "entry, cold output and warm output: one file")
        // Outputs replaced in place (same names again) stay whole and linked.
        let again = try fetch(cache: cache, out: root.appendingPathComponent("warm").path)
        try checkOutputs(again, cache: cache, linked: true, source: "disk")
    }

    func testAcrossFileSystemsAndWhenAskedTheOutputIsAKernelCopy() throws {
        // The cache on tmpfs (/dev/shm), the outputs on the temporary directory's file system.
        let shmCache = "/dev/shm/dwfetch-entry-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: shmCache) }
        let cold = try fetch(cache: shmCache, out: root.appendingPathComponent("cold").path)
        try checkOutputs(cold, cache: shmCache, linked: false, source: "network")
        let warm = try fetch(
            cache: shmCache, out: root.appendingPathComponent("warm").path,
            environment: ["DWFILEIO_SENDFILE": "1"])
        try checkOutputs(warm, cache: shmCache, linked: false, source: "disk")
        // One file system, a copy asked for.
        let cache = root.appendingPathComponent("cache").path
        let copied = try fetch(
            cache: cache, out: root.appendingPathComponent("copied").path,
            environment: ["DWFETCH_OUTPUT_FROM_ENTRY": "copy"])
        try checkOutputs(copied, cache: cache, linked: false, source: "network")
        XCTAssertTrue(try entries(cache).allSatisfy { $0.links == 1 })
    }

    func testAnOutputEditedInPlaceIsNotServedFromTheCache() throws {
        let cache = root.appendingPathComponent("cache").path
        let cold = try fetch(cache: cache, out: root.appendingPathComponent("cold").path)
        try checkOutputs(cold, cache: cache, linked: true, source: "network")
        // The user edits an output in place: the cache entry it shares a file with no longer matches its checksum.
        let edited = try XCTUnwrap(cold[2]["path"] as? String)
        let fd = open(edited, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var byte: UInt8 = 0x5A
        XCTAssertEqual(pwrite(fd, &byte, 1, 5_000), 1)
        close(fd)
        server.resetStatistics()
        let warm = try DWFetchProcess.run(
            ["--cache-dir", cache, "--retries", "0", "--json", "-o", root.appendingPathComponent("warm").path] + urls)
        XCTAssertEqual(warm.status, 0, warm.stderr)
        let lines = try warm.json()
        XCTAssertEqual(lines[2]["source"] as? String, "network", "the damaged entry is a miss, fetched again")
        XCTAssertEqual(server.requestLog.count, 1, "only the damaged one")
        for (i, object) in lines.enumerated() {
            let path = try XCTUnwrap(object["path"] as? String)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bodies[i], "output \(i) is the body")
        }
    }
}
