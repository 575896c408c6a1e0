// DWWebImageCache: memory and disk round trips, self-validating entries, expiry, keys that cannot escape.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class CacheTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwcache" }

    private func makeCache(space: String = "defaultCacheSpace") -> DWWebImageCache {
        DWWebImageCache(rootDirectory: root, cacheSpace: space, notificationCenter: NotificationCenter())
    }

    func testDWDefaults() {
        let cache = makeCache()
        XCTAssertEqual(cache.cachePolicy, [.memory, .disk])
        XCTAssertEqual(cache.expirationTime, 7 * 24 * 3600)
        XCTAssertTrue(cache.useSecureKey)
        XCTAssertEqual(cache.cacheSpace, "defaultCacheSpace")
        XCTAssertEqual(DWWebImageCache.shared.configuration.rootDirectory.lastPathComponent, "dwwebimage")
    }

    func testMemoryAndDiskRoundTrip() {
        let cache = makeCache()
        let data = SampleImages.png(width: 3, height: 3)
        cache.cacheObj(data, forKey: "http://h/a.png")
        XCTAssertEqual(cache.objCache(forKey: "http://h/a.png"), data)
        // A new instance (another process) reads it from disk.
        let other = makeCache()
        XCTAssertEqual(other.objCache(forKey: "http://h/a.png"), data)
        let file = cache.fileURL(forKey: "http://h/a.png")
        XCTAssertEqual(file.lastPathComponent, CacheKey.md5("http://h/a.png"))
        XCTAssertEqual(file.deletingLastPathComponent().lastPathComponent, "defaultCacheSpace")
        cache.removeCache(byKey: "http://h/a.png")
        XCTAssertNil(cache.objCache(forKey: "http://h/a.png"))
        XCTAssertNil(makeCache().objCache(forKey: "http://h/a.png"))
    }

    func testMD5KeyIsOverUTF8Bytes() {
        // Reference digests from Python's hashlib over the UTF-8 bytes.
        XCTAssertEqual(CacheKey.md5(""), "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(CacheKey.md5("http://example.com/a.png"), "b876851593b9e119ed73f38561576bda")
        XCTAssertEqual(CacheKey.md5("\u{e9}"), "66ddcd97cfdeabb2f6fb8a999b4bc76f")
        XCTAssertEqual(CacheKey.md5("http://h/图片.png"), "36938ed16d368850a6af10584f4bc08a")
    }

    func testCacheSpacesAreSeparate() {
        let a = makeCache(space: "avatars"), b = makeCache(space: "thumbs")
        a.cachePolicy = [.disk]
        b.cachePolicy = [.disk]
        a.cacheObj(Data([1, 2, 3]), forKey: "k")
        XCTAssertEqual(a.objCache(forKey: "k"), Data([1, 2, 3]))
        XCTAssertNil(b.objCache(forKey: "k"))
        b.cacheSpace = "avatars"
        XCTAssertEqual(b.objCache(forKey: "k"), Data([1, 2, 3]))
    }

    func testCorruptEntryIsAMissAndIsRemoved() throws {
        let cache = makeCache()
        cache.cachePolicy = [.disk]
        let data = SampleImages.png(approximateSize: 2000)
        cache.cacheObj(data, forKey: "k")
        let file = cache.fileURL(forKey: "k")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 100] ^= 0x01  // one bit flipped in the payload
        try bytes.write(to: file)
        XCTAssertNil(cache.objCache(forKey: "k"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "a damaged entry is removed")
    }

    func testTruncatedAndEmptyEntriesAreMisses() throws {
        let cache = makeCache()
        cache.cachePolicy = [.disk]
        cache.cacheObj(SampleImages.png(approximateSize: 2000), forKey: "k")
        let file = cache.fileURL(forKey: "k")
        let bytes = try Data(contentsOf: file)
        for cut in [0, 10, 44, bytes.count / 2, bytes.count - 1] {
            try bytes.prefix(cut).write(to: file)
            XCTAssertNil(cache.objCache(forKey: "k"), "cut at \(cut)")
        }
        try (bytes + Data([0])).write(to: file)
        XCTAssertNil(cache.objCache(forKey: "k"), "trailing garbage")
    }

    func testEntriesAroundTheFirstReadSizeRoundTripAndDamageIsAMiss() throws {
        // A hit reads 64 KiB first and trusts a short read as the end of the file; longer files take fstat + read.
        let cache = makeCache()
        cache.cachePolicy = [.disk]
        cache.configuration.compression = .none
        cache.cacheObj(Data(count: 10), forKey: "probe")
        let overhead = try Data(contentsOf: cache.fileURL(forKey: "probe")).count - 10
        let first = DiskEntryCodec.firstReadSize
        for fileSize in [first - 1, first, first + 1, 3 * first + 7] {
            let payload = Data((0..<(fileSize - overhead)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ fileSize) })
            cache.cacheObj(payload, forKey: "probe")
            let file = cache.fileURL(forKey: "probe")
            let bytes = try Data(contentsOf: file)
            XCTAssertEqual(bytes.count, fileSize)
            XCTAssertEqual(cache.objCache(forKey: "probe"), payload, "file of \(fileSize) bytes")
            var flipped = bytes
            flipped[fileSize - 1] ^= 0x80
            for (damaged, what) in [
                (bytes.prefix(fileSize - 1), "truncated"), (bytes + Data([0]), "trailing byte"),
                (flipped, "last byte flipped")
            ] {
                try Data(damaged).write(to: file)
                XCTAssertNil(cache.objCache(forKey: "probe"), "\(what), file of \(fileSize) bytes")
                XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "\(what): removed")
            }
        }
    }

    func testAHitMarksTheEntryReadAtMostOnceAMinute() throws {
        let cache = makeCache()
        cache.cachePolicy = [.disk]
        cache.cacheObj(SampleImages.png(approximateSize: 2000), forKey: "k")
        let path = cache.fileURL(forKey: "k").path
        func atime() -> Int {
            var st = stat()
            XCTAssertEqual(stat(path, &st), 0)
            return st.st_atim.tv_sec
        }
        func setAtime(_ seconds: Int) {
            // UTIME_OMIT
            var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
            XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        }
        let hourAgo = Int(Date().timeIntervalSince1970) - 3600
        setAtime(hourAgo)
        XCTAssertNotNil(cache.objCache(forKey: "k"))
        XCTAssertGreaterThan(atime(), hourAgo + 3000, "the first hit marks the entry as just read")
        setAtime(hourAgo)
        XCTAssertNotNil(cache.objCache(forKey: "k"))
        XCTAssertEqual(atime(), hourAgo, "a second hit within the minute leaves it (and the kernel does not touch it)")
        XCTAssertNotNil(makeCache().objCache(forKey: "k"))
        XCTAssertGreaterThan(atime(), hourAgo + 3000, "another cache instance (another process) marks it again")
    }

    func testAnotherKeysFileIsAMiss() throws {
        // Simulated hash collision: the file at k1's name holds k2's entry.
        let cache = makeCache()
        cache.cachePolicy = [.disk]
        cache.cacheObj(Data([9, 9]), forKey: "k2")
        try FileManager.default.copyItem(at: cache.fileURL(forKey: "k2"), to: cache.fileURL(forKey: "k1"))
        XCTAssertNil(cache.objCache(forKey: "k1"))
        XCTAssertEqual(cache.objCache(forKey: "k2"), Data([9, 9]))
    }

    func testExpiredEntriesAreMissesAndSweptByRemoveExpiredCache() throws {
        let cache = makeCache()
        cache.cachePolicy = [.disk]
        let old = Date().addingTimeInterval(-8 * 24 * 3600)
        try cache.store(Data([1]), forKey: "old", metadata: DWCacheEntryMetadata(storedAt: old), policy: [.disk])
        try cache.store(Data([2]), forKey: "new", metadata: DWCacheEntryMetadata(), policy: [.disk])
        // The sweep works from the file's modification date, as DW did.
        let oldFile = cache.fileURL(forKey: "old")
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: oldFile.path)
        XCTAssertNil(cache.objCache(forKey: "old"), "expired on read")
        try cache.store(Data([1]), forKey: "old", metadata: DWCacheEntryMetadata(storedAt: old), policy: [.disk])
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: oldFile.path)
        // A temp file left by a writer that died an hour ago is swept too.
        let stray = cache.directory.appendingPathComponent(".tmp-1-1")
        try Data([0]).write(to: stray)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: stray.path)
        cache.removeExpiredCache()
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldFile.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: stray.path))
        XCTAssertEqual(cache.objCache(forKey: "new"), Data([2]))
        cache.expirationTime = 0.0001
        XCTAssertTrue(eventually { cache.objCache(forKey: "new") == nil }, "expired once 0.1 ms have passed")
    }

    func testDirectoryFollowsTheCacheSpace() {
        let cache = makeCache()
        for space in ["defaultCacheSpace", "other space", "../up"] {
            cache.cacheSpace = space
            XCTAssertEqual(
                cache.fileURL(forKey: "k").deletingLastPathComponent().standardizedFileURL.path,
                cache.directory.standardizedFileURL.path, space)
            XCTAssertTrue(cache.directory.hasDirectoryPath)
        }
    }

    func testRawKeysCannotEscapeTheCacheSpace() throws {
        let cache = makeCache()
        cache.useSecureKey = false
        cache.cachePolicy = [.disk]
        let hostile = [
            "../../escape", "/etc/passwd", "a/../../b", "..", ".", "nul\u{0}byte", String(repeating: "x", count: 5000),
            "http://h/图片.png"
        ]
        for key in hostile {
            let file = cache.fileURL(forKey: key)
            XCTAssertEqual(
                file.deletingLastPathComponent().standardizedFileURL.path,
                cache.directory.standardizedFileURL.path, key)
            XCTAssertLessThanOrEqual(file.lastPathComponent.utf8.count, 255)
            cache.cacheObj(Data(key.utf8), forKey: key)
            XCTAssertEqual(cache.objCache(forKey: key), Data(key.utf8))
        }
        let names = try entryNames(cache)
        XCTAssertEqual(names.count, hostile.count)
        XCTAssertFalse(
            FileManager.default.fileExists(
                atPath: root.deletingLastPathComponent().appendingPathComponent("escape").path))
    }

    func testWritesLeaveNoTempFilesAndSurviveADeletedDirectory() throws {
        let cache = makeCache()
        cache.cachePolicy = [.disk]
        DispatchQueue.concurrentPerform(iterations: 50) { i in
            cache.cacheObj(Data(repeating: UInt8(i), count: 1000 + i), forKey: "k\(i % 10)")
        }
        var names = try entryNames(cache)
        XCTAssertEqual(names.count, 10)
        XCTAssertFalse(names.contains { $0.hasPrefix(".tmp") })
        for i in 0..<10 { XCTAssertNotNil(cache.objCache(forKey: "k\(i)")) }
        try FileManager.default.removeItem(at: root)
        cache.cacheObj(Data([7]), forKey: "again")
        XCTAssertEqual(cache.objCache(forKey: "again"), Data([7]))
        names = try entryNames(cache)
        XCTAssertEqual(names, [CacheKey.md5("again")])
    }

    func testUnwritableDirectoryReports10008() throws {
        let cache = makeCache()
        try "not a directory".write(to: root, atomically: false, encoding: .utf8)  // root is a file: no dir can be made
        defer { try? FileManager.default.removeItem(at: root) }
        XCTAssertThrowsError(try cache.store(Data([1]), forKey: "k", policy: [.disk])) { error in
            XCTAssertEqual((error as? DWWebImageError)?.code, .cacheIO)
        }
    }

    func testMemoryCacheRespectsCostLimit() {
        let cache = makeCache()
        cache.cachePolicy = [.memory]
        cache.configuration.memoryCostLimit = 1000
        cache.cacheObj(Data(count: 2000), forKey: "huge")
        XCTAssertNil(cache.objCache(forKey: "huge"), "an entry bigger than the budget is not kept")
        cache.cacheObj(Data(count: 100), forKey: "small")
        XCTAssertNotNil(cache.objCache(forKey: "small"))
    }

    func testMemoryCacheDropsTheLeastRecentlyUsedFirst() {
        let memory = MemoryCache(countLimit: 3, costLimit: 1000)
        for k in ["a", "b", "c"] { memory.set(MemoryEntry(data: Data(count: 10), image: nil), forKey: k) }
        XCTAssertNotNil(memory.object(forKey: "a"))  // a is now the most recently used
        memory.set(MemoryEntry(data: Data(count: 10), image: nil), forKey: "d")
        XCTAssertNil(memory.object(forKey: "b"), "the least recently used went first")
        XCTAssertNotNil(memory.object(forKey: "a"))
        memory.set(MemoryEntry(data: Data(count: 240), image: nil), forKey: "big1")
        memory.set(MemoryEntry(data: Data(count: 240), image: nil), forKey: "big2")
        memory.set(MemoryEntry(data: Data(count: 240), image: nil), forKey: "big3")
        memory.set(MemoryEntry(data: Data(count: 240), image: nil), forKey: "big4")
        XCTAssertNil(memory.object(forKey: "big1"), "the byte limit holds: 4 × 240 + what was left > 1000")
        XCTAssertNotNil(memory.object(forKey: "big4"))
        memory.set(MemoryEntry(data: Data(count: 251), image: nil), forKey: "too big")
        XCTAssertNil(memory.object(forKey: "too big"), "over a quarter of the byte limit: not kept")
        memory.set(MemoryEntry(data: Data([7]), image: nil), forKey: "big4")
        XCTAssertEqual(memory.object(forKey: "big4")?.data, Data([7]), "replaced")
        memory.removeObject(forKey: "big4")
        XCTAssertNil(memory.object(forKey: "big4"))
        memory.countLimit = 1
        XCTAssertEqual(["a", "d", "big2", "big3"].filter { memory.object(forKey: $0) != nil }.count, 1)
        memory.removeAllObjects()
        XCTAssertNil(memory.object(forKey: "big3"))
    }

    func testRemoveAllCacheEmptiesTheSpace() throws {
        let cache = makeCache()
        for i in 0..<5 { cache.cacheObj(Data([UInt8(i)]), forKey: "k\(i)") }
        cache.removeAllCache()
        for i in 0..<5 { XCTAssertNil(cache.objCache(forKey: "k\(i)")) }
        XCTAssertEqual(try entryNames(cache), [])
    }

    /// The files of the space, without the budget's lock and ledger (temp files included).
    private func entryNames(_ cache: DWWebImageCache) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: cache.directory.path)
            .filter { $0 != DiskBudget.lockName }
    }
}
