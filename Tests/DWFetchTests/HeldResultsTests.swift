// HeldResultsTests: what a dwfetch run keeps per URL stays bounded however many URLs it has (peak RSS flat in the
// number of URLs): the runner in-process, real downloads from the loopback server. Results are counted, not timed.
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
    func testResultsHeldForTheirLineStayUnderTheSpanOverManyURLs() throws {
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
        // The window is 64 URLs (-j 2), the span four windows.
        XCTAssertGreaterThan(runner.peakOutcomesHeld, 0)
        XCTAssertLessThanOrEqual(runner.peakOutcomesHeld, 4 * 64, "results held waiting for their line's turn")
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
        XCTAssertLessThanOrEqual(runner.peakOutcomesHeld, 4 * 64)
    }
}
