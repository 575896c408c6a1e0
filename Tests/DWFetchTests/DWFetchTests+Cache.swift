// dwfetch's cache flags: offline hits and misses, --no-cache, Cache-Control, --refresh and --clear-cache, spaces, the
// disk budget under two processes.
import DWTestServer
import Foundation
import XCTest

extension DWFetchTests {
    func testOfflineHitsAndMisses() throws {
        _ = try fetch([url("/dog.png")])
        server.resetStatistics()
        let hit = try fetch(["--json", "--offline", url("/dog.png")])
        XCTAssertEqual(hit.status, 0)
        XCTAssertEqual(try hit.json()[0]["source"] as? String, "disk")
        let miss = try fetch(["--json", "--offline", url("/a/cat.png")])
        XCTAssertEqual(miss.status, 1)
        XCTAssertEqual((try miss.json()[0]["error"] as? [String: Any])?["code"] as? Int, 10006)
        XCTAssertEqual(server.requestLog.count, 0, "--offline never touches the network")
    }

    func testNoCacheLeavesTheCacheUntouched() throws {
        let run = try fetch(["--json", "--no-cache", url("/dog.png"), url("/a/cat.png")])
        XCTAssertEqual(run.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheDir), "nothing created under the cache root")
        _ = try fetch([url("/dog.png")])  // now cache it
        let before = try snapshot(cacheDir)
        let again = try fetch(["--json", "--no-cache", url("/dog.png")])
        XCTAssertEqual(try again.json()[0]["source"] as? String, "network", "--no-cache does not read the cache")
        XCTAssertEqual(try snapshot(cacheDir), before, "nor write it")
    }

    func testHonorCacheControlRevalidatesNoCacheAndSkipsNoStore() throws {
        let dog = self.dog
        server.setHandler("/nc.png") { request in
            request.header("If-None-Match") == "\"n1\""
                ? .status(304, headers: [("ETag", "\"n1\"")])
                : .ok(dog, contentType: "image/png", headers: [("ETag", "\"n1\""), ("Cache-Control", "no-cache")])
        }
        server.setRoute("/ns.png", .ok(cat, contentType: "image/png", headers: [("Cache-Control", "no-store")]))
        let urls = [url("/nc.png"), url("/ns.png")]
        XCTAssertEqual(try fetch(["--json"] + urls).json().map { $0["source"] as? String }, ["network", "network"])
        XCTAssertEqual(
            try fetch(["--json"] + urls).json().map { $0["source"] as? String }, ["disk", "disk"],
            "without the flag the header is ignored")
        let honoured = try fetch(["--json", "--honor-cache-control"] + urls)
        XCTAssertEqual(honoured.status, 0)
        XCTAssertEqual(try honoured.json().map { $0["source"] as? String }, ["revalidated", "network"])
        XCTAssertEqual(server.requestLog.last { $0.path == "/nc.png" }?.header("If-None-Match"), "\"n1\"")
        let again = try fetch(["--json", "--honor-cache-control"] + urls)
        XCTAssertEqual(
            try again.json().map { $0["source"] as? String }, ["revalidated", "network"],
            "no-store: the old entry was removed and nothing new written")
        XCTAssertEqual(server.requestCount(path: "/ns.png"), 3)
    }

    func testRefreshDownloadsAgainAndClearCacheEmptiesTheSpace() throws {
        _ = try fetch([url("/dog.png")])
        let refreshed = try fetch(["--json", "--refresh", url("/dog.png")])
        XCTAssertEqual(try refreshed.json()[0]["source"] as? String, "network")
        XCTAssertEqual(server.requestCount(path: "/dog.png"), 2)
        let warm = try fetch(["--json", url("/dog.png")])
        XCTAssertEqual(try warm.json()[0]["source"] as? String, "disk")

        let cleared = try fetch(["--clear-cache"])
        XCTAssertEqual(cleared.status, 0)
        let cold = try fetch(["--json", url("/dog.png")])
        XCTAssertEqual(try cold.json()[0]["source"] as? String, "network", "the entry is gone")
    }

    func testCacheSpacesAreSeparate() throws {
        _ = try fetch(["--cache-space", "avatars", url("/dog.png")])
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("cache/avatars").path))
        let other = try fetch(["--json", "--cache-space", "thumbs", "--offline", url("/dog.png")])
        XCTAssertEqual(other.status, 1, "another space does not see the entry")
        let same = try fetch(["--json", "--cache-space", "avatars", "--offline", url("/dog.png")])
        XCTAssertEqual(same.status, 0)
    }

    func testTheDiskBudgetHoldsUnderAWriteStormFromTwoProcesses() throws {
        let image = SampleImages.png(approximateSize: 20_000, seed: 4)
        for i in 0..<80 { server.setRoute("/s\(i).png", .ok(image, contentType: "image/png")) }
        let limit = 400_000
        let a = try DWFetchProcess.start(
            ["--cache-dir", cacheDir, "--cache-limit", "\(limit)", "-q", "-j", "6"]
                + (0..<40).map { url("/s\($0).png") })
        let b = try DWFetchProcess.start(
            ["--cache-dir", cacheDir, "--cache-limit", "\(limit)", "-q", "-j", "6"]
                + (40..<80).map { url("/s\($0).png") })
        XCTAssertEqual(a.wait(timeout: 60).status, 0)
        XCTAssertEqual(b.wait(timeout: 60).status, 0)
        let space = root.appendingPathComponent("cache/defaultCacheSpace").path
        let entries = try FileManager.default.contentsOfDirectory(atPath: space).filter { !$0.hasPrefix(".") }
        let total = try entries.reduce(0) {
            try $0 + ((FileManager.default.attributesOfItem(atPath: space + "/" + $1)[.size] as? Int) ?? 0)
        }
        XCTAssertLessThanOrEqual(total, limit + image.count + 300, "within one entry of the budget: \(total)")
        XCTAssertGreaterThan(entries.count, 5)

        let stats = try DWFetchProcess.run(["--cache-dir", cacheDir, "--cache-stats"])
        XCTAssertEqual(stats.status, 0)
        XCTAssertTrue(stats.stdout.contains("entries \(entries.count)  bytes \(total)"), stats.stdout)
        let expire = try DWFetchProcess.run(["--cache-dir", cacheDir, "--expire"])
        XCTAssertEqual(expire.status, 0)
        XCTAssertTrue(expire.stderr.contains("expired 0 entries"), expire.stderr)
    }
}
