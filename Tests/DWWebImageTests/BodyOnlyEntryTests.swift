// Body-only entries: the file is exactly the payload, the header in its attribute; damage of either is a miss, the
// budget counts them, concurrent writers keep every entry, and a kernel copy of one equals the body.
import DWFileIO
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class BodyOnlyEntryTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwbodyonly" }

    private func image(_ i: Int, size: Int = 10_000) -> Data {
        SampleImages.png(approximateSize: size, seed: UInt8(i % 250))
    }

    /// A disk-only cache (no memory layer) writing body-only entries.
    private func bodyOnlyCache(center: NotificationCenter = NotificationCenter()) -> DWWebImageCache {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0, notificationCenter: center)
        var settings = cache.configuration
        settings.bodyOnlyEntries = true
        settings.cachePolicy = [.disk]  // every read goes to the file
        cache.configuration = settings
        return cache
    }

    private func headerAttribute(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return DiskEntryCodec.attributeHeader(fd)
    }

    func testTheFileIsExactlyThePayloadWithItsHeaderInTheAttribute() throws {
        let cache = bodyOnlyCache()
        let body = image(1)
        let metadata = DWCacheEntryMetadata(etag: "\"v1\"", contentType: "image/png")
        try cache.store(body, forKey: "k", metadata: metadata, policy: [.disk])
        let path = cache.fileURL(forKey: "k").path
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), body, "the file holds the body, nothing else")
        let header = try XCTUnwrap(headerAttribute(path), "the header is the file's attribute")
        XCTAssertEqual(Array(header.prefix(4)), DiskEntryCodec.magic)
        guard case .entry(let entry) = DiskEntryCodec.read(path: path) else { return XCTFail("not read back") }
        XCTAssertEqual(entry.payload, body)
        XCTAssertEqual(entry.key, "k")
        XCTAssertEqual(entry.metadata.etag, "\"v1\"")
        XCTAssertTrue(entry.bodyOnly)
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(
            entry.file?.identity, .inode(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)),
            "the entry names the file it was read from")
        XCTAssertEqual(cache.objCache(forKey: "k"), body)
        XCTAssertEqual(cache.totalDiskSize(), Int64(body.count), "the budget counts the file: the body")
    }

    func testATornTruncatedFlippedOrForeignBodyOnlyEntryIsNeverRead() throws {
        let cache = bodyOnlyCache()
        let body = image(2, size: 30_000)
        try cache.store(body, forKey: "other", policy: [.disk])
        let foreign = try XCTUnwrap(headerAttribute(cache.fileURL(forKey: "other").path))
        let damages: [(String, (Int32) -> Void)] = [
            ("truncated in place", { fd in _ = ftruncate(fd, off_t(body.count / 2)) }),
            ("one byte short", { fd in _ = ftruncate(fd, off_t(body.count - 1)) }),
            (
                "a trailing byte",
                { fd in
                    var z: UInt8 = 0; _ = pwrite(fd, &z, 1, off_t(body.count))
                }
            ),
            (
                "a bit flipped",
                { fd in
                    var b: UInt8 = 0
                    _ = pread(fd, &b, 1, 1000)
                    b ^= 0x10
                    _ = pwrite(fd, &b, 1, 1000)
                }
            ),
            ("no attribute", { fd in _ = removeFileAttribute(fd, DiskEntryCodec.headerAttribute) }),
            (
                "another entry's header",
                { fd in
                    _ = foreign.withUnsafeBytes { setFileAttribute(fd, DiskEntryCodec.headerAttribute, to: $0) }
                }
            ),
            (
                "a flipped header",
                { fd in
                    guard var header = DiskEntryCodec.attributeHeader(fd) else { return }
                    header[10] ^= 0x01  // the stored time: covered by the header's checksum
                    _ = header.withUnsafeBytes { setFileAttribute(fd, DiskEntryCodec.headerAttribute, to: $0) }
                }
            )
        ]
        for (what, damage) in damages {
            try cache.store(body, forKey: "k", policy: [.disk])
            let path = cache.fileURL(forKey: "k").path
            let fd = open(path, O_RDWR)
            XCTAssertGreaterThanOrEqual(fd, 0)
            damage(fd)
            close(fd)
            XCTAssertNil(cache.objCache(forKey: "k"), "\(what): a miss, never the damaged bytes")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(what): the damaged file is removed")
        }
    }

    func testTheBudgetHoldsAndNamesTheEvictedKeys() throws {
        let center = NotificationCenter()
        let cache = bodyOnlyCache(center: center)
        let entry = Int64(image(0).count)
        cache.configuration.diskSizeLimit = entry * 10 + entry / 2
        let cleaned = Recorder<[String]>()
        let observer = center.addObserver(forName: .DWWebImageCacheDidClean, object: cache, queue: nil) { note in
            cleaned.append(note.userInfo?["keys"] as? [String] ?? [])
        }
        defer { center.removeObserver(observer) }
        for i in 0..<14 { try cache.store(image(0), forKey: "k\(i)", policy: [.disk]) }
        XCTAssertLessThanOrEqual(cache.totalDiskSize(), cache.configuration.diskSizeLimit, "never over the budget")
        XCTAssertLessThan(cache.entryCount(), 14, "entries were evicted")
        var evicted: [String] = []
        _ = eventually(timeout: 10, interval: 0.01) {
            evicted = cleaned.values.flatMap { $0 }
            return !evicted.isEmpty
        }
        XCTAssertFalse(evicted.isEmpty, "DidClean names the keys it removed (read from the attribute)")
        XCTAssertTrue(evicted.allSatisfy { $0.hasPrefix("k") }, "\(evicted)")
        XCTAssertEqual(evicted.count + cache.entryCount(), 14)
    }

    func testTwoCachesWritingAtOnceLoseNoEntryAndKeepTheLedgerExact() throws {
        let writers = [bodyOnlyCache(), bodyOnlyCache()]
        let bodies = (0..<40).map { image($0, size: 4_000 + 97 * $0) }
        DispatchQueue.concurrentPerform(iterations: 80) { i in
            // Both caches write every key, in opposite orders: the same names race.
            let cache = writers[i % 2]
            let k = i % 2 == 0 ? i / 2 : 39 - i / 2
            try? cache.store(bodies[k], forKey: "k\(k)", policy: [.disk])
        }
        let reader = bodyOnlyCache()
        for (k, body) in bodies.enumerated() {
            XCTAssertEqual(reader.objCache(forKey: "k\(k)"), body, "k\(k) survived both writers whole")
        }
        let space = reader.directory.path
        let onDisk = DiskBudget.scan(space).reduce(Int64(0)) { $0 + $1.size }
        XCTAssertEqual(onDisk, Int64(bodies.reduce(0) { $0 + $1.count }), "one file per key, each the body")
        for writer in writers { XCTAssertTrue(writer.waitForPendingWrites()) }  // gives the room held ahead back
        // The ledger (first 8 bytes of the lock file) equals what is on disk.
        let lock = try Data(contentsOf: URL(fileURLWithPath: space + "/" + DiskBudget.lockName))
        let ledger = lock.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
        XCTAssertEqual(Int64(littleEndian: ledger), onDisk, "the budget counted every replacement once")
    }

    func testAKernelCopyOfAnEntryEqualsTheBodyOnTheSameAndAnotherFileSystem() throws {
        let cache = bodyOnlyCache()
        let body = image(3, size: 200_000)
        try cache.store(body, forKey: "k", policy: [.disk])
        let source = open(cache.fileURL(forKey: "k").path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(source, 0)
        defer { close(source) }
        // /dev/shm is tmpfs, the root a disk file system: copy_file_range refuses that pair, so sendfile copies.
        let shm = "/dev/shm/dwbodyonly-\(UUID().uuidString)"
        defer { unlink(shm) }
        for (target, sendfileOnly) in [(root.path + "/copy", false), (root.path + "/sent", true), (shm, false)] {
            let out = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            XCTAssertGreaterThanOrEqual(out, 0, "\(target) could not be created")
            let code = copyInKernel(
                from: source, offset: 100, to: out, count: body.count - 100, allowCopyFileRange: !sendfileOnly)
            close(out)
            XCTAssertEqual(code, 0)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: target)), body.dropFirst(100), target)
        }
        let out = open(root.path + "/short", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(out) }
        XCTAssertEqual(
            copyInKernel(from: source, offset: 0, to: out, count: body.count + 1), EIO, "a short source fails")
    }

    /// A payload that begins with the entry magic is kept in a header-first file, never as a body-only entry (a
    /// reader would take its first bytes for a header); only those four exact bytes count.
    func testOnlyAPayloadStartingWithTheMagicIsRefusedAsBodyOnly() {
        let metadata = DWCacheEntryMetadata()
        func bodyOnly(_ bytes: [UInt8]) -> Bool {
            DiskEntryWriter(
                data: Data(bytes), key: "k", metadata: metadata, compression: .none, release: false, bodyOnly: true
            ).bodyOnly
        }
        XCTAssertFalse(bodyOnly(Array("DWC1 and more".utf8)))
        XCTAssertFalse(bodyOnly(Array("DWC1".utf8)))
        XCTAssertTrue(bodyOnly(Array("DWC".utf8)))
        XCTAssertTrue(bodyOnly(Array("DWC2 and more".utf8)))
        XCTAssertTrue(bodyOnly(Array("1CWD and more".utf8)))
        XCTAssertTrue(bodyOnly([]))
    }
}
