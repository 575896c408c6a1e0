// The small tables that spare a write its hashing: entry paths remembered between a lookup and its write (never a
// stale one after the naming settings or the space change), and the last-used table behind the spaces' lock files
// and the partial folders (every entry reachable however the current one moves).
import Foundation
import XCTest

@testable import DWWebImage

final class EntryNamesTests: XCTestCase {
    func testARememberedPathIsOnlyReusedUnderTheSameSettingsAndDirectory() {
        let names = EntryNames()
        let key = "https://example.com/a/b.png?v=1"
        let md5 = names.path(for: key, in: "/c/space/", secure: true, digest: .md5)
        XCTAssertEqual(md5, "/c/space/" + CacheKey.fileName(for: key, secure: true, digest: .md5))
        XCTAssertEqual(names.path(for: key, in: "/c/space/", secure: true, digest: .md5), md5)
        XCTAssertEqual(
            names.path(for: key, in: "/c/space/", secure: true, digest: .sha256),
            "/c/space/" + CacheKey.fileName(for: key, secure: true, digest: .sha256))
        XCTAssertEqual(
            names.path(for: key, in: "/c/space/", secure: false, digest: .md5),
            "/c/space/" + CacheKey.fileName(for: key, secure: false, digest: .md5))
        XCTAssertEqual(
            names.path(for: key, in: "/c/other/", secure: true, digest: .md5),
            "/c/other/" + CacheKey.fileName(for: key, secure: true, digest: .md5))
        // Many keys sharing slots: each is named right, whichever took its slot last.
        let keys = (0..<5_000).map { "https://example.com/\($0 % 7)/img\($0).jpg" }
        for key in keys + keys.reversed() {
            XCTAssertEqual(
                names.path(for: key, in: "/s/", secure: true, digest: .md5),
                "/s/" + CacheKey.fileName(for: key, secure: true, digest: .md5))
        }
    }

    func testACacheNamesEntriesAfterItsSettingsChange() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwnames-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = DWWebImageCache(rootDirectory: root)
        let key = "https://example.com/x.png"
        let first = cache.filePath(forKey: key)
        cache.configuration.keyDigest = .sha256
        XCTAssertNotEqual(cache.filePath(forKey: key), first)
        XCTAssertEqual(cache.filePath(forKey: key), cache.fileURL(forKey: key).path)
        cache.configuration.cacheSpace = "other"
        XCTAssertEqual(cache.filePath(forKey: key), cache.fileURL(forKey: key).path)
        XCTAssertTrue(cache.filePath(forKey: key).contains("/other/"))
    }

    func testTheLastUsedTableKeepsEveryEntry() {
        var table = LastUsedTable<Int>()
        XCTAssertNil(table["a"])
        table["a"] = 1
        table["b"] = 2
        table["c"] = 3
        XCTAssertEqual(table["a"], 1)
        XCTAssertEqual(table["b"], 2)
        table["a"]? += 10
        XCTAssertEqual(table["c"], 3)
        XCTAssertEqual(table["a"], 11)
        XCTAssertEqual(table.values.sorted(), [2, 3, 11])
        table.modifyAll { $0 = -$0 }
        XCTAssertEqual(table.values.sorted(), [-11, -3, -2])
        XCTAssertEqual(table.removeValue(forKey: "c"), -3)  // not the current one
        XCTAssertEqual(table.removeValue(forKey: "a"), -11)  // the current one
        XCTAssertNil(table["a"])
        XCTAssertNil(table.removeValue(forKey: "a"))
        table["b"] = nil
        XCTAssertEqual(table.values, [])
    }
}
