// Every filter's strength is clamped by one table as the URL is parsed, so a clamped URL is its clamp's
// variant (one cache key) and no filter costs more than its clamp.
import DWImageTransform
import DWWebImage
@testable import DWWebImageServer
import XCTest

final class FilterClampTests: XCTestCase {
    private func transform(_ options: String) throws -> DWTransform {
        try DWProxyURL(target: "/insecure/\(options)/plain/http://example.com/a.jpg").options.transform
    }

    func testSharpenBlurAndPixelateAreClampedToTheTable() throws {
        XCTAssertEqual(try transform("sh:999.9").sharpen, DWFilterClamps.sharpenSigma)
        XCTAssertEqual(try transform("sh:1000").sharpen, 50)
        XCTAssertEqual(try transform("bl:999.8").blur, DWFilterClamps.blurSigma)
        XCTAssertEqual(try transform("pix:9999").pixelate, DWFilterClamps.pixelateSize)
        XCTAssertEqual(try transform("sh:2.345").sharpen, 2.35, "rounded to 0.01")
        XCTAssertEqual(try transform("sh:7").sharpen, 7)
        XCTAssertThrowsError(try transform("sh:1001"), "the accepted range is unchanged")
    }

    func testAClampedURLHasItsClampsCacheKey() throws {
        for (asked, clamp) in [
            ("sh:999.1", "sh:50"), ("sh:999.2", "sh:50"), ("bl:300", "bl:50"), ("pix:5000", "pix:256")
        ] {
            XCTAssertEqual(try transform(asked).identifier, try transform(clamp).identifier, asked)
        }
    }
}
