// The disk budget's room taken ahead: writes that fit in it take no lock, what is left goes back, and two caches
// writing past the limit at once still keep the space within it (to within what each holds ahead).
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class CacheReservationTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwreserve" }

    private func image(_ i: Int, size: Int = 5_000) -> Data {
        SampleImages.png(approximateSize: size, seed: UInt8(i % 250))
    }

    /// The ledger, the first 8 bytes of the space's lock file.
    private func ledger(_ cache: DWWebImageCache) throws -> Int64 {
        let lock = try Data(contentsOf: cache.directory.appendingPathComponent(DiskBudget.lockName))
        return Int64(littleEndian: lock.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) })
    }

    private func onDisk(_ cache: DWWebImageCache) -> Int64 {
        DiskBudget.scan(cache.directory.path).reduce(0) { $0 + $1.size }
    }

    /// After one locked write has taken room ahead, a write that fits in it completes while another holder keeps
    /// the space's lock (as another process would): it never asks for the lock. The ledger counts the room held
    /// until ``DWWebImageCache/waitForPendingWrites(timeout:)`` gives it back; then it is exactly what is on disk.
    func testAWriteThatFitsTheRoomHeldAheadTakesNoLockAndTheRoomGoesBack() throws {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        cache.configuration.diskSizeLimit = 64 * 100_000  // room ahead: 100,000 bytes
        try cache.store(image(0), forKey: "first", policy: [.disk])
        XCTAssertEqual(try ledger(cache), onDisk(cache) + 100_000, "the first write took 100,000 bytes ahead")

        let holder = open(cache.directory.appendingPathComponent(DiskBudget.lockName).path, O_RDWR)
        XCTAssertGreaterThanOrEqual(holder, 0)
        defer { close(holder) }
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        let stored = DispatchSemaphore(value: 0)
        let second = image(1)
        DispatchQueue.global().async {
            try? cache.store(second, forKey: "second", policy: [.disk])
            stored.signal()
        }
        let finished = stored.wait(timeout: .now() + 10) == .success
        XCTAssertEqual(flock(holder, LOCK_UN), 0)
        if !finished { stored.wait() }
        XCTAssertTrue(finished, "the write inside the room held ahead waited for the space's lock")
        XCTAssertEqual(cache.objCache(forKey: "second"), second)

        XCTAssertGreaterThan(try ledger(cache), onDisk(cache), "the unused room is still counted")
        XCTAssertTrue(cache.waitForPendingWrites())
        XCTAssertEqual(try ledger(cache), onDisk(cache), "given back: the ledger is what is on disk")
    }

    /// Two caches over one space (two processes' worth of lock files and room ahead), writing 4 MB of 10 kB
    /// entries into a 1.28 MB budget at once: evictions run while the other holds room, and the space never
    /// ends more than one entry and both caches' room (20 kB each) over the limit.
    func testTwoCachesWritingPastTheLimitAtOnceStayWithinIt() throws {
        let limit: Int64 = 64 * 20_000
        let writers = (0..<2).map { _ in DWWebImageCache(rootDirectory: root, memoryCountLimit: 0) }
        for writer in writers { writer.configuration.diskSizeLimit = limit }
        let bodies = (0..<40).map { image($0, size: 10_000) }
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            try? writers[i % 2].store(bodies[i % 40], forKey: "k\(i)", policy: [.disk])
        }
        let total = onDisk(writers[0])
        let entry = Int64(bodies.map(\.count).max() ?? 0)
        XCTAssertLessThanOrEqual(total, limit + entry + 2 * 20_000, "within one entry and the room held ahead")
        XCTAssertGreaterThan(total, limit / 2, "evicted to the low-water mark, not emptied")
        for writer in writers { XCTAssertTrue(writer.waitForPendingWrites()) }
        XCTAssertLessThanOrEqual(try ledger(writers[0]), limit, "the ledger after both gave their room back")
    }
}
