// `--encode-budget` over a thumbor URL with `watermark()`: the watermark is fetched after the request was planned,
// and the plan that draws it keeps the budget's gate.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class EncodeBudgetWatermarkTests: ServeTestCase {
    /// A watermarked variant whose format `Accept` picks is put off as any other: answered at once in WebP, the
    /// AVIF made in the background under its own key and served from there next.
    func testAWatermarkedThumborVariantIsPutOffLikeAnyOther() throws {
        origin.setRoute("/t.png", .ok(SampleImages.png(width: 800, height: 600, seed: 4)))
        origin.setRoute("/mark.png", .ok(SampleImages.png(width: 40, height: 30, seed: 5)))
        let server = try serve(
            EncodeBudgetTests.negotiating + [
                "--encode-budget", "1", "--thumbor-key", "k", "--thumbor-allow-unsafe",
                "--watermark-allow-host", "127.0.0.1"
            ])
        let path = "/unsafe/400x0/filters:watermark(\(origin.url("/mark.png")),10,10,0)/\(origin.url("/t.png"))"
        let first = try server.get(path, headers: EncodeBudgetTests.accept)
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(first.header("Content-Type"), "image/webp", "the stand-in: the AVIF is over the budget")
        let stored = "dwserve_background_encodes_total{outcome=\"stored\"}"
        XCTAssertTrue(try eventually(timeout: 30) { try server.metric(stored) == 1 }, "the AVIF made in the background")
        let second = try server.get(path, headers: EncodeBudgetTests.accept)
        XCTAssertEqual(second.status, 200, second.text)
        XCTAssertEqual(second.header("Content-Type"), "image/avif", "from the cache, no encode in the request")
    }
}
