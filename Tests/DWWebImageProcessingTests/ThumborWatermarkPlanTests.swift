// thumbor's watermark() in a plan: the key names the watermark's bytes, and the layout is thumbor's arithmetic.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import XCTest

final class ThumborWatermarkPlanTests: XCTestCase {
    private let spec = DWThumborWatermark(
        url: "http://marks.example.com/w.png", x: .pixels(10, fromEnd: true),
        y: .center, alpha: 30, widthRatio: 20)

    /// The same transform with other watermark bytes is another variant; without its image the plan's key is yet
    /// another (nothing is ever cached under a key that does not name the image drawn).
    func testThePlanKeyNamesTheWatermarkBytes() throws {
        var transform = DWTransform()
        transform.width = 100
        transform.pixelFilters = [.watermark(spec)]
        let plan = DWVariantPlan(transform: transform)
        let a = plan.with(watermark: try DWImage(data: SampleImages.png(width: 16, height: 12)))
        let b = plan.with(watermark: try DWImage(data: SampleImages.png(width: 16, height: 12, seed: 7)))
        XCTAssertEqual(Set([plan.identifier, a.identifier, b.identifier]).count, 3)
        XCTAssertTrue(a.identifier.contains("twm:-10:center:30:20:none:http://marks.example.com/w.png"), a.identifier)
        var other = transform
        other.pixelFilters = [
            .watermark(
                DWThumborWatermark(
                    url: spec.url, x: .pixels(10, fromEnd: false), y: .center,
                    alpha: 30, widthRatio: 20))
        ]
        XCTAssertNotEqual(DWVariantPlan(transform: other).with(watermark: a.watermark!).identifier, a.identifier)
    }

    /// thumbor's sizes and positions, worked by hand from its watermark.py: the ratio fit (halves to even), a
    /// negative offset, centring towards zero, percentages, a repeat with its remainder spread, the 10-pixel gap
    /// of a watermark over half the side, and the 6 × 6 cap past 100 copies.
    func testLayoutIsThumbors() {
        XCTAssertTrue(spec.size(image: (150, 100), mark: (40, 30)) == (30, 22))  // 30 × 30/40 = 22.5 → 22
        let (x, y) = spec.layout(image: (150, 100), mark: (30, 22))
        XCTAssertEqual([x.start, x.count, y.start, y.count], [110, 1, 39, 1])
        let percent = DWThumborWatermark(
            url: "", x: .percent(20, fromEnd: false), y: .percent(10, fromEnd: true), alpha: 0)
        let p = percent.layout(image: (150, 100), mark: (40, 30))
        XCTAssertEqual([p.x.start, p.y.start], [30, 60])
        let tiled = DWThumborWatermark(url: "", x: .tiled, y: .tiled, alpha: 0)
        let t = tiled.layout(image: (150, 100), mark: (40, 30))
        // 150 = 3 · 40 + 30: two gaps of 15; 100 = 3 · 30 + 10: two gaps of 5.
        XCTAssertEqual([t.x.count, t.x.step, t.y.count, t.y.step], [3, 55, 3, 35])
        let wide = tiled.layout(image: (60, 100), mark: (40, 30))  // 60 / 40 < 2: ceil(1.5) = 2 copies, 10 apart
        XCTAssertEqual([wide.x.count, wide.x.step], [2, 50])
        let capped = tiled.layout(image: (300, 200), mark: (12, 9))  // 25 × 22 > 100: 6 × 6 over the whole sides
        XCTAssertEqual([capped.x.count, capped.x.step, capped.y.count, capped.y.step], [6, 57, 6, 38])
    }
}
