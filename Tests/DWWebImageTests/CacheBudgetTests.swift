// The disk budget (LRU, at write time), key digests, raw keys that cannot escape, the clean notification.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class CacheBudgetTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwbudget" }

    private func image(_ i: Int) -> Data { SampleImages.png(approximateSize: 10_000, seed: UInt8(i % 250)) }

    func testTheBudgetHoldsAtWriteTimeAndEvictsLeastRecentlyRead() throws {
        let center = NotificationCenter()
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0, notificationCenter: center)
        let entry = Int64(image(0).count + 200)
        cache.configuration.diskSizeLimit = entry * 10
        let cleaned = Recorder<[String]>()
        let observer = center.addObserver(forName: .DWWebImageCacheDidClean, object: cache, queue: nil) { note in
            cleaned.append(note.userInfo?["keys"] as? [String] ?? [])
        }
        defer { center.removeObserver(observer) }
        for i in 0..<9 {
            try cache.store(image(i), forKey: "k\(i)", policy: [.disk])
            setLastRead(cache, "k\(i)", secondsAgo: 100 - i)  // distinct atimes, oldest first, without waiting
        }
        XCTAssertNotNil(cache.objCache(forKey: "k0"), "k0 read now: it becomes the most recently used")
        for i in 9..<14 { try cache.store(image(i), forKey: "k\(i)", policy: [.disk]) }
        XCTAssertLessThanOrEqual(cache.totalDiskSize(), cache.configuration.diskSizeLimit, "never over the budget")
        XCTAssertNotNil(cache.objCache(forKey: "k0"), "the recently read entry survived")
        XCTAssertNil(cache.objCache(forKey: "k1"), "the least recently read went first")
        XCTAssertNotNil(cache.objCache(forKey: "k13"))
        let evicted = eventuallyValue { cleaned.values.flatMap { $0 } }
        XCTAssertTrue(evicted.contains("k1"), "DidClean names the removed keys: \(evicted)")
        XCTAssertFalse(evicted.contains("k0"))
        XCTAssertLessThanOrEqual(
            cache.totalDiskSize(), cache.configuration.diskSizeLimit * 7 / 10 + entry * 5,
            "evicts to the low-water mark")
    }

    func testClearEmptiesOneSpaceOrEverySpaceAndKeepsPartialDownloads() throws {
        let a = DWWebImageCache(rootDirectory: root, cacheSpace: "a", memoryCountLimit: 0)
        let b = DWWebImageCache(rootDirectory: root, cacheSpace: "b", memoryCountLimit: 0)
        for i in 0..<3 {
            try a.store(image(i), forKey: "k\(i)", policy: [.disk])
            try b.store(image(i), forKey: "k\(i)", policy: [.disk])
        }
        let partial = root.appendingPathComponent("partial")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: partial.appendingPathComponent("x.part").path, contents: Data([1])))
        XCTAssertEqual(a.entryCount(), 3)
        a.clear(space: "b")
        XCTAssertEqual(b.entryCount(), 0, "the named space is emptied")
        XCTAssertEqual(a.entryCount(), 3, "the current one is not")
        XCTAssertGreaterThan(
            a.totalDiskSize(), Int64((0..<3).reduce(0) { $0 + image($1).count }), "its bytes are still counted")
        try b.store(image(5), forKey: "again", policy: [.disk])
        XCTAssertNotNil(b.objCache(forKey: "again"), "a cleared space stores again")
        a.clear(allSpaces: true)
        XCTAssertEqual(a.entryCount(), 0)
        XCTAssertEqual(b.entryCount(), 0)
        XCTAssertEqual(a.totalDiskSize(), 0)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: partial.appendingPathComponent("x.part").path),
            "partial downloads are kept")
    }

    func testAnEntryLargerThanTheBudgetIsRefusedWith10008() throws {
        let cache = DWWebImageCache(rootDirectory: root)
        cache.configuration.diskSizeLimit = 1000
        XCTAssertThrowsError(try cache.store(image(1), forKey: "big", policy: [.disk])) { error in
            XCTAssertEqual((error as? DWWebImageError)?.code, .cacheIO)
        }
        XCTAssertEqual(cache.entryCount(), 0)
    }

    func testEveryDigestNamesFilesByItsHash() throws {
        let expected: [DWCacheKeyDigest: String] = [
            .md5: "900150983cd24fb0d6963f7d28e17f72",
            .sha1: "a9993e364706816aba3e25717850c26c9cd0d89d",
            .sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        ]
        for (digest, name) in expected {
            let cache = DWWebImageCache(rootDirectory: root, cacheSpace: digest.rawValue)
            cache.configuration.keyDigest = digest
            try cache.store(image(2), forKey: "abc", policy: [.disk])
            XCTAssertEqual(cache.fileURL(forKey: "abc").lastPathComponent, name, "\(digest)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: cache.fileURL(forKey: "abc").path))
            XCTAssertEqual(
                DWWebImageCache(rootDirectory: root, cacheSpace: digest.rawValue).objCache(forKey: "abc") == nil,
                digest != .md5, "another digest does not find the entry")
        }
    }

    func testRawKeysNeverLeaveTheirSpace() throws {
        let cache = DWWebImageCache(rootDirectory: root, cacheSpace: "raw")
        cache.useSecureKey = false
        let keys = [
            "../escape", "../../etc/passwd", "a/b/c", "/abs", "nul\u{0}byte", ".", "..", "",
            String(repeating: "k", count: 10_000), "http://example.com/a b?c=d#e"
        ]
        for (i, key) in keys.enumerated() {
            try cache.store(image(i), forKey: key, policy: [.disk])
            let file = cache.fileURL(forKey: key)
            XCTAssertEqual(
                file.deletingLastPathComponent().standardizedFileURL.path, cache.directory.standardizedFileURL.path,
                "inside the space: \(key.prefix(40))")
            XCTAssertLessThanOrEqual(file.lastPathComponent.utf8.count, 255)
            let reader = DWWebImageCache(rootDirectory: root, cacheSpace: "raw", memoryCountLimit: 0)
            reader.useSecureKey = false
            XCTAssertEqual(reader.objCache(forKey: key), image(i), "read back from disk by a second cache")
        }
        let outside = try FileManager.default.contentsOfDirectory(atPath: root.path)
        XCTAssertEqual(Set(outside), ["raw"], "nothing was written outside the space")
    }

    func testAnUnwritableDirectoryIs10008AndTheImageIsStillDelivered() throws {
        let h = try Harness()
        defer { h.close() }
        // Root ignores permission bits, so make the space a *file*: every create under it fails (ENOTDIR).
        try FileManager.default.createDirectory(at: h.root, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: h.cache.directory.path, contents: Data("not a directory".utf8))
        let png = SampleImages.png(width: 5, height: 5)
        h.server.setRoute("/a.png", .ok(png))
        let complete = expectation(
            forNotification: .DWWebImageCacheComplete, object: h.cache, notificationCenter: h.center
        ) {
            ($0.userInfo?["error"] as? DWWebImageError)?.code == .cacheIO
        }
        XCTAssertEqual(try h.fetch(h.server.url("/a.png")).get().data, png, "the image is delivered anyway")
        wait(for: [complete], timeout: 5)
        try FileManager.default.removeItem(at: h.cache.directory)
        h.server.setRoute("/b.png", .ok(png))
        _ = try h.fetch(h.server.url("/b.png")).get()
        _ = h.cache.waitForPendingWrites()
        XCTAssertEqual(h.cache.entryCount(), 1, "the cache works again once it can write")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: h.cache.directory.path).filter {
            $0.hasPrefix(".tmp")
        }
        XCTAssertEqual(leftovers, [], "no temp file left behind")
    }

    func testExpirySweepKeepsRevalidatableEntriesAndReportsRemovedKeys() throws {
        let cache = DWWebImageCache(rootDirectory: root)
        try cache.store(image(1), forKey: "plain", metadata: DWCacheEntryMetadata(), policy: [.disk])
        try cache.store(image(2), forKey: "tagged", metadata: DWCacheEntryMetadata(etag: "\"t\""), policy: [.disk])
        let old = Date().addingTimeInterval(-3600)
        for key in ["plain", "tagged"] {
            try FileManager.default.setAttributes(
                [.modificationDate: old], ofItemAtPath: cache.fileURL(forKey: key).path)
        }
        cache.expirationTime = 1200  // expired 40 min ago, within 4 × 1200 s
        XCTAssertEqual(cache.removeExpiredCache(), ["plain"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: cache.fileURL(forKey: "tagged").path), "kept for a 304")
        cache.expirationTime = 600  // now 3600 s > 4 × 600: too old even to revalidate
        XCTAssertEqual(cache.removeExpiredCache(), ["tagged"])
    }

    func testTheStartUpSweepRunsAtMostOnceAnIntervalAcrossInstances() throws {
        let cache = DWWebImageCache(rootDirectory: root)
        cache.expirationTime = 60
        let old = Date().addingTimeInterval(-3600)
        try cache.store(image(1), forKey: "first", policy: [.disk])
        try FileManager.default.setAttributes(
            [.modificationDate: old], ofItemAtPath: cache.fileURL(forKey: "first").path)
        XCTAssertEqual(cache.removeExpiredCacheIfDue(), ["first"], "no sweep yet: this one runs")
        try cache.store(image(2), forKey: "second", policy: [.disk])
        try FileManager.default.setAttributes(
            [.modificationDate: old], ofItemAtPath: cache.fileURL(forKey: "second").path)
        let other = DWWebImageCache(rootDirectory: root)  // another instance (or process) sharing the space
        other.expirationTime = 60
        XCTAssertEqual(other.removeExpiredCacheIfDue(), [], "swept moments ago: skipped")
        XCTAssertEqual(other.removeExpiredCacheIfDue(interval: 0), ["second"], "due again once the interval passed")
        XCTAssertEqual(cache.entryCount(), 0, "the marker is not an entry")
    }

    /// Gives `key`'s entry a last read (atime) `secondsAgo` in the past; its write time (mtime) is left alone.
    private func setLastRead(
        _ cache: DWWebImageCache, _ key: String, secondsAgo: Int,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let now = Int(Date().timeIntervalSince1970)
        let utimeOmit = (1 << 30) - 2  // UTIME_OMIT, a macro Swift does not import
        var times = [timespec(tv_sec: now - secondsAgo, tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: utimeOmit)]
        XCTAssertEqual(utimensat(AT_FDCWD, cache.fileURL(forKey: key).path, &times, 0), 0, file: file, line: line)
    }

    private func eventuallyValue<T: Collection>(_ read: () -> T) -> T {
        _ = eventually { !read().isEmpty }
        return read()
    }
}
