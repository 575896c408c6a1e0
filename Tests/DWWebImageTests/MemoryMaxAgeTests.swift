// The memory cache's own expiry (DWWebImageCache.Configuration.memoryMaxAge): what serve's --cache-max-age needs so
// that a copy held in memory expires as its disk entry does.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class MemoryMaxAgeTests: XCTestCase {
    private func memoryOnlyCache(maxAge: TimeInterval) -> DWWebImageCache {
        var configuration = DWWebImageCache.Configuration(
            rootDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("dwmem-\(UUID().uuidString)"))
        configuration.cachePolicy = [.memory]
        configuration.memoryMaxAge = maxAge
        return DWWebImageCache(configuration: configuration, notificationCenter: NotificationCenter())
    }

    /// An entry older than memoryMaxAge is a miss (and gone); 0 keeps entries until evicted; clearing the cache keeps
    /// the age limit.
    func testEntriesLeaveMemoryAfterMaxAge() throws {
        let data = SampleImages.png(width: 8, height: 8)
        let aging = memoryOnlyCache(maxAge: 0.3)
        aging.clear()  // the limit outlives a clear (serve's policy marker clears a new space)
        aging.cacheObj(data, forKey: "k")
        XCTAssertEqual(aging.objCache(forKey: "k"), data)
        let lasting = memoryOnlyCache(maxAge: 0)
        lasting.cacheObj(data, forKey: "k")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertNil(aging.objCache(forKey: "k"), "older than memoryMaxAge: a miss")
        XCTAssertEqual(lasting.objCache(forKey: "k"), data, "0: until evicted")
        aging.cacheObj(data, forKey: "k")
        XCTAssertEqual(aging.objCache(forKey: "k"), data, "stored again: fresh again")
    }
}
