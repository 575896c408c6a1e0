// CacheWrite: a disk write is one value, taken once and consumed once; one dropped or cancelled ends its
// announcement and gives back its backlog place, and background writes are waited for.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class CacheWriteTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwcachewrite" }

    func testDroppedOrCancelledWritesEndTheirAnnouncementAndGiveBackTheirPlaces() throws {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        for round in 0..<3 {
            // Every backlog place reserved, then dropped or cancelled without a write: none may stay taken.
            var writes = (0..<16).compactMap { cache.reserveWrite(forKey: "k\($0)") }
            XCTAssertEqual(writes.count, 16, "round \(round): the whole backlog is free again")
            XCTAssertNil(cache.reserveWrite(forKey: "one more"), "round \(round): 16 places, no more")
            XCTAssertFalse(cache.waitForPendingWrites(timeout: 0.05), "announced writes are waited for")
            if round % 2 == 0 { writes.forEach { $0.cancel() } }
            writes.removeAll()
            XCTAssertTrue(cache.waitForPendingWrites(timeout: 5), "round \(round): nothing left announced")
        }
        let image = try DWImage(data: SampleImages.png(width: 8, height: 8, seed: 1))
        let held = cache.takeWrite(forKey: "held")
        held.hold(image)
        XCTAssertEqual(cache.memoryOrPendingImage(forKey: "held"), image, "findable while its write is pending")
        held.cancel()
        XCTAssertNil(cache.memoryOrPendingImage(forKey: "held"), "and no longer once it is cancelled")
        XCTAssertTrue(cache.waitForPendingWrites(timeout: 5))
    }

    func testAVariantWriteAndABackgroundWriteAreWaitedForAndStored() throws {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        let image = try DWImage(data: SampleImages.png(width: 8, height: 8, seed: 2))
        cache.takeWrite(forKey: "variant").writeVariant(image)
        cache.takeWrite(forKey: "failed").writeVariant(nil)
        for i in 0..<50 { cache.writeInBackground(Data("{\"n\":\(i)}".utf8), forKey: "info\(i)") }
        XCTAssertTrue(cache.waitForPendingWrites(timeout: 10))
        // Read straight from disk (a fresh cache, so nothing comes from memory).
        let reader = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        XCTAssertEqual(reader.objCache(forKey: "variant"), image.data)
        XCTAssertNil(reader.objCache(forKey: "failed"), "a failed variant writes nothing")
        for i in 0..<50 {
            XCTAssertEqual(
                reader.objCache(forKey: "info\(i)"), Data("{\"n\":\(i)}".utf8),
                "info\(i) was written before the wait ended")
        }
    }
}
