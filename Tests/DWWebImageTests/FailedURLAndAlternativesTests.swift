// The negative cache (Configuration.failedURLTTL, .retryFailed) and .alternativeSources, against the fault server.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

final class FailedURLAndAlternativesTests: XCTestCase {
    private let png = SampleImages.png(width: 4, height: 3)

    func testAFailedURLIsAnsweredFromTheFailureWithinItsTTL() throws {
        let h = try Harness { $0.failedURLTTL = 60 }
        defer { h.close() }
        h.server.setRoute("/missing.png", .status(404))
        let url = h.server.url("/missing.png")
        for _ in 0..<3 {
            guard case .failure(let error) = h.fetch(url) else { return XCTFail("a 404 cannot succeed") }
            XCTAssertEqual(error.code, .httpStatus)
            XCTAssertEqual(error.httpStatus, 404)
        }
        XCTAssertEqual(h.server.requestCount(path: "/missing.png"), 1, "one request; the others answered from it")
        // .retryFailed sends it; a success replaces the failure.
        h.server.setRoute("/missing.png", .ok(png))
        XCTAssertEqual(h.fetch(url, options: [.retryFailed]).value?.data, png)
        XCTAssertEqual(h.server.requestCount(path: "/missing.png"), 2)
        XCTAssertEqual(h.fetch(url, options: [.noCache]).value?.data, png, "the failure is gone after the success")
        XCTAssertEqual(h.server.requestCount(path: "/missing.png"), 3)
    }

    func testTheFailureExpiresAndIsOffByDefault() throws {
        let h = try Harness { $0.failedURLTTL = 0.2 }
        defer { h.close() }
        h.server.setRoute("/gone.png", .status(410))
        h.server.setRoute("/fake.png", .ok(SampleImages.notAnImage))
        XCTAssertNil(h.fetch(h.server.url("/gone.png")).value)
        XCTAssertNil(h.fetch(h.server.url("/fake.png")).value)
        usleep(400_000)  // past the TTL: a request again
        XCTAssertNil(h.fetch(h.server.url("/gone.png")).value)
        XCTAssertEqual(h.server.requestCount(path: "/gone.png"), 2)
        guard case .failure(let error) = h.fetch(h.server.url("/fake.png")) else { return XCTFail() }
        XCTAssertEqual(error.code, .notAnImage)

        let off = try Harness()
        defer { off.close() }
        off.server.setRoute("/gone.png", .status(410))
        for _ in 0..<2 { XCTAssertNil(off.fetch(off.server.url("/gone.png")).value) }
        XCTAssertEqual(off.server.requestCount(path: "/gone.png"), 2, "failedURLTTL 0: every request is sent")
    }

    func testAlternativeSourcesAreTriedInOrderAndTheFirstSuccessIsCachedUnderItsURL() throws {
        let h = try Harness { $0.failedURLTTL = 60 }
        defer { h.close() }
        h.server.setRoute("/a.png", .status(404))
        h.server.setRoute("/b.png", .status(500))
        h.server.setRoute("/c.png", .ok(png))
        h.server.setRoute("/d.png", .ok(SampleImages.png(width: 9, height: 9)))
        let (a, b, c, d) = (
            h.server.url("/a.png"), h.server.url("/b.png"), h.server.url("/c.png"), h.server.url("/d.png")
        )
        let result = h.fetch(a, options: [.alternativeSources([b, c, d])])
        XCTAssertEqual(result.value?.data, png, "c, the first that works")
        XCTAssertEqual(h.server.requestLog.map(\.path), ["/a.png", "/b.png", "/c.png"], "in order, d never asked")
        h.drainCallbacks()
        XCTAssertEqual(h.cache.objCache(forKey: c), png, "cached under the URL that gave it")
        XCTAssertNil(h.cache.objCache(forKey: a))

        h.server.setRoute("/e.png", .status(404))
        h.server.setRoute("/f.png", .status(403))
        guard
            case .failure(let last) = h.fetch(
                h.server.url("/e.png"), options: [.alternativeSources([h.server.url("/f.png")])])
        else { return XCTFail("all fail") }
        XCTAssertEqual(last.httpStatus, 403, "the last failure")
    }

    func testCancellingTheTokenStopsTheChain() throws {
        let h = try Harness()
        defer { h.close() }
        h.server.setRoute("/slow.png", .delayed(2, .status(404)))
        h.server.setRoute("/next.png", .ok(png))
        let box = ResultBox()
        let token = h.manager.downloadImage(
            withURL: h.server.url("/slow.png"), options: [.alternativeSources([h.server.url("/next.png")])]
        ) { box.set($0) }
        XCTAssertTrue(eventually { h.server.requestCount(path: "/slow.png") == 1 }, "the first source is asked")
        token.cancel()
        let result = try XCTUnwrap(box.wait(timeout: 10))
        guard case .failure(let error) = result else { return XCTFail("cancelled") }
        XCTAssertEqual(error.code, .cancelled)
        usleep(300_000)
        XCTAssertEqual(h.server.requestCount(path: "/next.png"), 0, "no next attempt after a cancel")
        XCTAssertEqual(box.all.count, 1, "one completion")
    }
}
