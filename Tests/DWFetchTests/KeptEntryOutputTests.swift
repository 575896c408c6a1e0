// dwfetch -o from an entry the cache kept open: the output is linked from the file this run wrote, never from what the
// entry's path names by then (another process's newer entry), is a copy of it once it has no name left, and a
// whole run leaves no descriptor open. The runner and the output writer in-process, real downloads from the loopback
// server, real files.
import ArgumentParser
import DWFetchCLI
import DWLocking
import DWTestServer
import DWTestSupport
import DWWebImage
import Foundation
import XCTest

final class KeptEntryOutputTests: XCTestCase {
    private var root: URL!
    private var server: LoopbackHTTPServer!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dwkeptout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server = try LoopbackHTTPServer()
    }

    override func tearDown() {
        server.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    /// A manager over a cache set up as dwfetch sets it up (body-only entries, written in the callback block).
    private func manager() -> DWWebImageManager {
        let cache = DWWebImageCache(rootDirectory: root.appendingPathComponent("cache"))
        cache.configuration.bodyOnlyEntries = true
        cache.configuration.cachePolicy.remove(.memory)
        let manager = DWWebImageManager(cache: cache, removeExpiredAtStart: false)
        manager.writesCacheInCallbacks = true
        return manager
    }

    private func inode(_ path: String) -> UInt64? {
        var st = stat()
        return lstat(path, &st) == 0 ? UInt64(st.st_ino) : nil
    }

    private func fetch(_ manager: DWWebImageManager, _ url: String) throws -> DWImage {
        let done = DispatchSemaphore(value: 0)
        let result = DWLock<Result<DWImage, DWWebImageError>?>(nil)
        manager.downloadImage(withURL: url) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        return try XCTUnwrap(result.withLock { $0 }).get()
    }

    func testTheOutputIsTheFileThisRunWroteNotWhatTheEntrysPathNamesLater() throws {
        let png = SampleImages.png(width: 8, height: 8, seed: 21)
        server.setRoute("/a.png", .ok(png, contentType: "image/png"))
        let manager = manager()
        defer { manager.invalidate() }
        let image = try fetch(manager, server.url("/a.png"))
        let entry = try XCTUnwrap(image.entryFile?.path)
        let written = try XCTUnwrap(inode(entry))
        // Another process replaces the entry between the write and the output (the file this run wrote still has a
        // name elsewhere: an earlier output of it, say).
        XCTAssertEqual(link(entry, root.appendingPathComponent("earlier").path), 0)
        try Data("another process's newer entry".utf8).write(to: URL(fileURLWithPath: entry + ".new"))
        XCTAssertEqual(rename(entry + ".new", entry), 0)

        let out = root.appendingPathComponent("out").path
        let writer = OutputWriter(directory: out)
        XCTAssertNil(writer.prepare())
        let first = try writer.write(image, name: "a.png")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first)), png, "this run's bytes")
        XCTAssertEqual(inode(first), written, "linked from the file this run wrote: stored once")
        // Asked again into the same name: already this file, nothing left behind.
        XCTAssertEqual(try writer.write(image, name: "a.png"), first)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["a.png"])

        // The file has no name left (replaced, the other names removed): nothing to link, so the output is a copy of
        // the open file, this run's bytes in a file of its own.
        XCTAssertEqual(unlink(first), 0)
        XCTAssertEqual(unlink(root.appendingPathComponent("earlier").path), 0)
        let second = try writer.write(image, name: "b.png")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: second)), png)
        XCTAssertNotEqual(inode(second), written)
    }

    /// More URLs than the cache keeps descriptors for at once: every output is whole, and the run leaves no
    /// descriptor open (each kept one is closed once its output is made; past the limit, none is kept).
    func testARunLeavesNoDescriptorOpen() throws {
        let count = 400
        for i in 0..<count {
            let png = SampleImages.png(width: 4, height: 4, seed: UInt8(i % 250))
            server.setRoute("/i\(i).png", .ok(png, contentType: "image/png"))
        }
        let urls = (0..<count).map { server.url("/i\($0).png") }
        let out = root.appendingPathComponent("run").path
        let manager = manager()
        defer { manager.invalidate() }
        let command = try XCTUnwrap(DWFetch.parseAsRoot(["-q", "-j", "6", "-o", out] + urls) as? DWFetch)
        let report = FetchRunner(command: command, manager: manager, engines: .none).run(urls)
        XCTAssertEqual(report.fetched, count)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).count, count)
        XCTAssertTrue(manager.cache.waitForPendingWrites())
        manager.callbackQueue.sync {}  // the last result's block has let go of its image
        let space = manager.cache.directory.path
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        }
        let entries = open.filter { $0.hasPrefix(space) && !$0.hasSuffix("/.lock") }  // the kept lock file
        XCTAssertEqual(entries.count, 0, "entry files left open by the run: \(entries.prefix(3))")
        let outputs = open.filter { $0.hasPrefix(out) }
        XCTAssertEqual(outputs.count, 0, "output files left open by the run: \(outputs.prefix(3))")
    }
}
