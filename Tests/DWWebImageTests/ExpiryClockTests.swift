// One expiry clock: the entry file's modification time decides a hit's freshness, the sweep and the statistics,
// so moving it (touch -d, rsync -t, find -mtime) moves the entry's age everywhere.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class ExpiryClockTests: XCTestCase {
    private let png = SampleImages.png(width: 20, height: 12, seed: 4)
    private let week: TimeInterval = 7 * 24 * 3600

    private func setModified(_ h: Harness, _ url: String, ago seconds: TimeInterval) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -seconds)],
            ofItemAtPath: h.cache.filePath(forKey: url))
    }

    func testAnEntryAgedByItsModificationTimeIsRevalidatedOrRefetched() throws {
        let h = try Harness()
        defer { h.close() }
        let png = self.png
        h.server.setHandler("/tagged.png") { request in
            request.header("If-None-Match") == "\"t1\""
                ? .status(304, headers: [("ETag", "\"t1\"")])
                : .ok(png, contentType: "image/png", headers: [("ETag", "\"t1\"")])
        }
        h.server.setRoute("/plain.png", .ok(png, contentType: "image/png"))
        let tagged = h.server.url("/tagged.png"), plain = h.server.url("/plain.png")
        _ = try h.fetch(tagged).get()
        _ = try h.fetch(plain).get()
        _ = h.cache.waitForPendingWrites()

        // Fresh by the file's clock: served from disk, no request.
        let (fresh, _) = h.anotherManager()
        XCTAssertEqual(try Harness.fetch(fresh, tagged).source, .disk)
        fresh.invalidate()
        XCTAssertEqual(h.server.requestCount(path: "/tagged.png"), 1)

        // Eight days old by the file's clock (the header still says "just now"): expired.
        try setModified(h, tagged, ago: week + 24 * 3600)
        try setModified(h, plain, ago: week + 24 * 3600)
        let (aged, agedCache) = h.anotherManager()
        defer { aged.invalidate() }
        let revalidated = try Harness.fetch(aged, tagged)
        XCTAssertEqual(revalidated.source, .revalidated)
        XCTAssertEqual(revalidated.metrics?.httpStatus, 304)
        XCTAssertEqual(h.server.requestLog.last?.header("If-None-Match"), "\"t1\"")
        let refetched = try Harness.fetch(aged, plain)
        XCTAssertEqual(refetched.source, .network, "no validator: fetched again")
        _ = agedCache.waitForPendingWrites()
        // The 304 and the refetch wrote the entries again: their clocks restart.
        for url in [tagged, plain] {
            let attributes = try FileManager.default.attributesOfItem(atPath: h.cache.filePath(forKey: url))
            let modified = try XCTUnwrap(attributes[.modificationDate] as? Date)
            XCTAssertLessThan(Date().timeIntervalSince(modified), 3600, url)
        }
    }

    func testTheSweepAndTheStatisticsReadTheSameClock() throws {
        let h = try Harness()
        defer { h.close() }
        for name in ["old", "revalidatable", "new"] {
            let etag = name == "revalidatable" ? "\"r\"" : nil
            h.server.setRoute("/\(name).png", .resource(png, contentType: "image/png", etag: etag))
            _ = try h.fetch(h.server.url("/\(name).png")).get()
        }
        _ = h.cache.waitForPendingWrites()
        try setModified(h, h.server.url("/old.png"), ago: week + 60)
        try setModified(h, h.server.url("/revalidatable.png"), ago: 2 * week)
        let stats = h.cache.diskStatistics()
        XCTAssertEqual(stats.entryCount, 3)
        let oldest = try XCTUnwrap(stats.oldest)
        XCTAssertEqual(oldest.timeIntervalSinceNow, -2 * week, accuracy: 120, "the oldest entry by its file's time")
        let removed = h.cache.removeExpiredCache()
        XCTAssertEqual(removed, [h.server.url("/old.png")], "expired without a validator: swept")
        XCTAssertFalse(FileManager.default.fileExists(atPath: h.cache.filePath(forKey: h.server.url("/old.png"))))
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: h.cache.filePath(forKey: h.server.url("/revalidatable.png"))),
            "expired with a validator: kept for a 304, up to four expiration times")
        try setModified(h, h.server.url("/revalidatable.png"), ago: 5 * week)
        XCTAssertEqual(h.cache.removeExpiredCache(), [h.server.url("/revalidatable.png")])
        XCTAssertEqual(h.cache.diskStatistics().entryCount, 1)
    }
}
