// The facts DWImageFormat holds for every target (names, MIME types, extensions, writability), and the named
// error predicates policy code uses instead of raw curl codes.
import Foundation
import XCTest

@testable import DWWebImage

final class FormatFactsTests: XCTestCase {
    func testEveryKnownFormatHasANameAMediaTypeAndAnExtension() {
        for format in DWImageFormat.allCases where format != .unknown {
            XCTAssertEqual(format.names.first, format.rawValue, "\(format)")
            XCTAssertEqual(DWImageFormat(name: format.rawValue.uppercased()), format, "names match in any case")
            XCTAssertTrue(format.mimeType?.hasPrefix("image/") ?? false, "\(format)")
            XCTAssertFalse(format.fileExtension.isEmpty)
        }
        XCTAssertNil(DWImageFormat.unknown.mimeType)
        XCTAssertEqual(DWImageFormat.unknown.names, [])
        XCTAssertEqual(DWImageFormat(name: "jpg"), .jpeg)
        XCTAssertEqual(DWImageFormat.jpeg.fileExtension, "jpg")
        XCTAssertEqual(DWImageFormat.ico.mimeType, "image/x-icon")
        XCTAssertNil(DWImageFormat(name: "unknown"), "the fallback case is not a name")
        XCTAssertEqual(DWImageFormat(name: "svg"), .svg)
        XCTAssertEqual(DWImageFormat.svg.mimeType, "image/svg+xml")
        XCTAssertFalse(DWImageFormat.svg.isWritable, "read (rasterised), never written")
    }

    func testConversionTargetsAreWritableAndNamedAsTheCLIAndURLsNameThem() {
        // Registered codecs' formats follow (another test registers QOI in this process).
        XCTAssertEqual(DWImageFormat.conversionTargets.filter(\.isBuiltIn), [.jpeg, .png, .webp, .avif, .gif])
        for format in DWImageFormat.conversionTargets { XCTAssertTrue(format.isWritable, "\(format)") }
        XCTAssertFalse(DWImageFormat.bmp.isWritable)
        XCTAssertFalse(DWImageFormat.ico.isWritable)
        XCTAssertTrue(DWImageFormat.tiff.isWritable)
        XCTAssertEqual(DWImageFormat(conversionTargetNamed: "JPG"), .jpeg)
        XCTAssertEqual(DWImageFormat(conversionTargetNamed: "webp"), .webp)
        XCTAssertNil(DWImageFormat(conversionTargetNamed: "tiff"), "readable and writable, but not a conversion target")
        XCTAssertNil(DWImageFormat(conversionTargetNamed: "bmp"))
    }

    func testConversionWritableAddsBMPAndICOAndEachFormatHasItsDefaultQuality() {
        // BMP and ICO are written by the engine itself (imgproxy's savers), so a conversion may ask for them.
        XCTAssertTrue(DWImageFormat.bmp.isConversionWritable)
        XCTAssertTrue(DWImageFormat.ico.isConversionWritable)
        XCTAssertTrue(DWImageFormat.tiff.isConversionWritable)
        XCTAssertFalse(DWImageFormat.svg.isConversionWritable)
        XCTAssertFalse(DWImageFormat.jp2.isConversionWritable)
        XCTAssertEqual(DWImageFormat.defaultQuality, 80)
        let qualities = [DWImageFormat.jpeg, .webp, .avif, .heic, .jxl, .png].map(\.defaultQuality)
        XCTAssertEqual(qualities, [80, 79, 63, 63, 77, 80], "imgproxy's per-format defaults")
    }

    func testErrorPredicatesNameTheConditions() {
        let timeout = DWWebImageError(.transport, "curl error 28", curlCode: CurlCode.timedOut)
        XCTAssertTrue(timeout.isTimeout)
        XCTAssertTrue(timeout.isTransient)
        XCTAssertFalse(DWWebImageError(.transport, "refused", curlCode: CurlCode.couldNotConnect).isTimeout)
        XCTAssertFalse(DWWebImageError(.cacheIO, "odd", curlCode: CurlCode.timedOut).isTimeout, "only transport")
        var refused = DWWebImageError(.transport, "policy", curlCode: CurlCode.couldNotConnect)
        XCTAssertFalse(refused.isRefusedAddress)
        refused.refusedAddress = "127.0.0.1"
        XCTAssertTrue(refused.isRefusedAddress)
        XCTAssertTrue(DWWebImageError.http(503, url: nil).isTransient)
        XCTAssertTrue(DWWebImageError.http(429, url: nil).isTransient)
        XCTAssertFalse(DWWebImageError.http(404, url: nil).isTransient)
        XCTAssertFalse(DWWebImageError.cancelled(nil).isTransient)
    }
}
