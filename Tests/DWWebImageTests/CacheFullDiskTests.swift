// A full disk (ENOSPC) and a read-only one (EROFS/EACCES), on real file systems: a tiny tmpfs mounted for the test.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class CacheFullDiskTests: XCTestCase {
    /// Mounts a tmpfs of `size` at `dir`, or explains why it cannot (not root, no CAP_SYS_ADMIN in a container).
    private func mountTmpfs(at dir: URL, size: String) throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let (status, output) = run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "dwtest", dir.path])
        guard status == 0 else {
            throw MissingPrerequisite(
                "cannot mount a tmpfs here (\(output.trimmingCharacters(in: .whitespacesAndNewlines)));"
                    + " run the tests as root (CI does)")
        }
    }

    /// A harness whose cache root is a fresh tmpfs of `size`; pair with ``close(_:)``.
    private func harnessOnTmpfs(size: String) throws -> Harness {
        let h = try Harness()
        do {
            try mountTmpfs(at: h.root, size: size)
        } catch {
            h.close()
            throw error
        }
        return h
    }

    private func close(_ h: Harness) {
        run("/bin/umount", ["-l", h.root.path])
        h.close()
    }

    private func remount(_ dir: URL, _ options: String) {
        let (status, output) = run("/bin/mount", ["-o", "remount,\(options)", dir.path])
        XCTAssertEqual(status, 0, "remount \(options): \(output)")
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) -> (Int32, String) {
        do {
            let run = try ProcessRun.run(tool, arguments)
            return (run.status, run.output + run.errors)
        } catch {
            return (-1, "\(error)")
        }
    }

    private func cacheFailure(_ h: Harness) -> XCTestExpectation {
        expectation(forNotification: .DWWebImageCacheComplete, object: h.cache, notificationCenter: h.center) {
            ($0.userInfo?["error"] as? DWWebImageError)?.code == .cacheIO
        }
    }

    private func leftovers(_ h: Harness) throws -> [String] {
        let space = h.cache.directory.path
        guard FileManager.default.fileExists(atPath: space) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: space).filter { $0.hasPrefix(".tmp") }
    }

    func testAFullDiskIs10008LeavesNoTempFileAndTheCacheRecoversWhenSpaceReturns() throws {
        let h = try harnessOnTmpfs(size: "64k")
        defer { close(h) }
        // 160 KB does not fit in 64 KB: the store fails with ENOSPC part-way through writing its temp file.
        let big = SampleImages.png(approximateSize: 160_000, seed: 7)
        h.server.setRoute("/big.png", .ok(big))
        let failed = cacheFailure(h)
        XCTAssertEqual(try h.fetch(h.server.url("/big.png")).get().data, big, "the image is delivered anyway")
        wait(for: [failed], timeout: 5)
        _ = h.cache.waitForPendingWrites()
        XCTAssertEqual(try leftovers(h), [], "the half-written temp file is removed")
        XCTAssertEqual(h.cache.entryCount(), 0, "no entry, and certainly no truncated one")
        XCTAssertFalse(FileManager.default.fileExists(atPath: h.cache.fileURL(forKey: h.server.url("/big.png")).path))

        // Space returns: the same cache instance stores again without a restart.
        remount(h.root, "size=1m")
        h.server.setRoute("/again.png", .ok(big))
        _ = try h.fetch(h.server.url("/again.png")).get()
        _ = h.cache.waitForPendingWrites()
        XCTAssertEqual(h.cache.entryCount(), 1, "the cache works again once space returns")
        XCTAssertTrue(FileManager.default.fileExists(atPath: h.cache.fileURL(forKey: h.server.url("/again.png")).path))
    }

    func testAReadOnlyDiskIs10008AndTheImageIsStillDelivered() throws {
        let h = try harnessOnTmpfs(size: "1m")
        defer { close(h) }
        try FileManager.default.createDirectory(at: h.cache.directory, withIntermediateDirectories: true)
        remount(h.root, "ro")  // EROFS even for root, which ignores permission bits
        let png = SampleImages.png(width: 8, height: 8)
        h.server.setRoute("/a.png", .ok(png))
        let failed = cacheFailure(h)
        XCTAssertEqual(try h.fetch(h.server.url("/a.png")).get().data, png)
        wait(for: [failed], timeout: 5)
        remount(h.root, "rw")
        XCTAssertEqual(try leftovers(h), [])
        h.server.setRoute("/b.png", .ok(png))
        _ = try h.fetch(h.server.url("/b.png")).get()
        _ = h.cache.waitForPendingWrites()
        XCTAssertEqual(h.cache.entryCount(), 1, "writable again, the cache stores again")
    }

    func testALargeBodyWhosePartialFileHitsAFullDiskFinishesInMemory() throws {
        let h = try harnessOnTmpfs(size: "512k")
        defer { close(h) }
        // Resumable (strong ETag) and past the 256 KB spill threshold: the body moves to a partial file, which fills
        // the 512 KB disk part-way; the download carries on in memory and delivers every byte exactly once.
        let big = SampleImages.png(approximateSize: 900_000, seed: 9)
        h.server.setRoute("/huge.png", .resource(big, contentType: "image/png", etag: "\"v1\""))
        let failed = cacheFailure(h)
        XCTAssertEqual(try h.fetch(h.server.url("/huge.png")).get().data, big)
        wait(for: [failed], timeout: 5)
        let partials = (FileManager.default.enumerator(atPath: h.root.path)?.allObjects as? [String] ?? [])
            .filter { $0.contains(".partial") || $0.hasSuffix(".part") }
        XCTAssertEqual(partials, [], "the partial file that could not be written is gone")
        XCTAssertEqual(try leftovers(h), [])
    }
}
