// HeldResultsTests: what a dwfetch run keeps per URL stays bounded however many URLs it has (peak RSS flat in the
// number of URLs): the runner in-process, real downloads from the loopback server. A result waits for its line's
// turn only behind an older URL not finished yet, and the feed runs at most four request windows past that URL. What
// the tests count is the feed's reach at the server: how far past the oldest URL not yet asked for the run ever asked
// (each answer here is immediate, so a URL asked is a URL finished and the reach bounds the results held; a slow URL
// asked long ago is the span's business, not this measure's). Counted, not timed.
import ArgumentParser
import DWFetchCLI
import DWTestServer
import DWTestSupport
import DWWebImage
import Foundation
import XCTest

final class HeldResultsTests: XCTestCase {
    /// The manager starts waiting URLs newest first; a URL that found every slot taken must not wait until the feed
    /// runs dry, holding every later result (its line prints first) for the whole run.
    func testTheFeedReachesNoFurtherThanItsSpanPastAWaitingURL() throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/img.png", .ok(SampleImages.png(width: 4, height: 4, seed: 3), contentType: "image/png"))
        // Distinct URLs (the server ignores the query): several spans' worth.
        let count = 1_200
        let urls = (0..<count).map { server.url("/img.png?v=\($0)") }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwheld-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let command = try XCTUnwrap(DWFetch.parseAsRoot(["-q", "-j", "2", "--no-cache"] + urls) as? DWFetch)
        let manager = DWWebImageManager(cache: DWWebImageCache(rootDirectory: root), removeExpiredAtStart: false)
        defer { manager.invalidate() }
        let runner = FetchRunner(command: command, manager: manager, engines: .none)
        let report = runner.run(urls)

        XCTAssertEqual(report.fetched, count)
        XCTAssertEqual(report.failed, 0)
        XCTAssertEqual(server.requestCount(path: "/img.png"), count)
        let reach = Self.farthestReach(server.requestLog, count: count)
        XCTAssertGreaterThan(reach, 0)
        XCTAssertLessThan(
            reach, FetchRunner.feedSpan(jobs: 2),
            "URLs asked for past one left waiting (their results wait for its line)")
    }

    /// Failures move the span as results do: over several spans, every third URL answers 404, resets its connection
    /// or names a host that does not resolve, and every URL after them (the good ones included) is still fetched, in
    /// one run that ends, with no more results held than the span allows.
    func testFailuresAmongManyURLsNeitherStallTheFeedNorHoldResults() throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        server.setRoute("/img.png", .ok(SampleImages.png(width: 4, height: 4, seed: 5), contentType: "image/png"))
        server.setRoute("/missing.png", .status(404))
        server.setRoute("/reset.png", .closeImmediately)
        let count = 600
        let urls = (0..<count).map { i -> String in
            switch i % 6 {
            case 1: server.url("/missing.png?v=\(i)")
            case 3: server.url("/reset.png?v=\(i)")
            case 5 where i % 120 == 5: "http://nonexistent-\(i).invalid/a.png"
            default: server.url("/img.png?v=\(i)")
            }
        }
        let bad = urls.filter { !$0.contains("/img.png") }.count
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwheld-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let command = try XCTUnwrap(
            DWFetch.parseAsRoot(["-q", "-j", "2", "--no-cache", "--retries", "0"] + urls) as? DWFetch)
        let manager = DWWebImageManager(cache: DWWebImageCache(rootDirectory: root), removeExpiredAtStart: false)
        defer { manager.invalidate() }
        let runner = FetchRunner(command: command, manager: manager, engines: .none)
        let report = runner.run(urls)

        XCTAssertEqual(report.failed, bad)
        XCTAssertEqual(report.fetched, count - bad)
        XCTAssertEqual(server.requestCount(path: "/img.png"), count - bad, "every good URL after the bad ones")
        let unresolved = Set(urls.indices.filter { urls[$0].hasSuffix(".invalid/a.png") })
        XCTAssertLessThan(
            Self.farthestReach(server.requestLog, count: count, neverAsked: unresolved), FetchRunner.feedSpan(jobs: 2))
    }

    /// The most URLs (by input index, `?v=`) the run had asked the server for past the oldest one it had not asked
    /// for yet, over `log` in arrival order; `neverAsked`: URLs that never reach the server (counted as asked from
    /// the start). With immediate answers, the results held waiting for their line's turn are at most this many.
    private static func farthestReach(_ log: [RecordedRequest], count: Int, neverAsked: Set<Int> = []) -> Int {
        var asked = [Bool](repeating: false, count: count)
        for index in neverAsked { asked[index] = true }
        var oldest = 0, reach = 0
        for request in log {
            guard let value = request.target.split(separator: "=").last, let index = Int(value) else { continue }
            asked[index] = true
            while oldest < count && asked[oldest] { oldest += 1 }
            reach = max(reach, index - oldest)
        }
        return reach
    }
}
