// JPEGShrinkTests: the DCT scale a JPEG resize decodes at, and the image that comes out of it.
import DWTestServer
import DWWebImage
@testable import DWWebImageProcessing
import Foundation
import XCTest

final class JPEGShrinkTests: XCTestCase {
    private func factor(_ width: Double, _ height: Double, box: (Int, Int), size: Int32 = 2, crop: Int32 = 0) -> Int {
        JPEGShrink.factor(sourceWidth: width, sourceHeight: height, width: box.0, height: box.1, size: size, crop: crop)
    }

    func testFactorIsTheLargestDCTScaleThatStillCoversTheBox() {
        XCTAssertEqual(factor(2048, 1536, box: (512, 512)), 4, "fit: 2048 → 512 exactly")
        XCTAssertEqual(factor(2048, 1536, box: (511, 511)), 4)
        XCTAssertEqual(factor(2048, 1536, box: (513, 513)), 2, "1/4 would be smaller than the box")
        XCTAssertEqual(factor(2049, 1537, box: (512, 512)), 4, "libjpeg rounds up: 513 still covers 512")
        XCTAssertEqual(factor(2048, 1536, box: (512, 10_000_000)), 4, "one side given")
        XCTAssertEqual(factor(2048, 1536, box: (512, 512), crop: 1), 2, "fill: the height (1536 → 512) decides")
        XCTAssertEqual(factor(2048, 1536, box: (100, 512), size: 3), 2, "force: the less shrunk side decides")
        XCTAssertEqual(factor(8192, 8192, box: (64, 64)), 8, "libjpeg's smallest scale")
        XCTAssertEqual(factor(640, 480, box: (1000, 1000), size: 0), 1, "enlarging decodes at full size")
        XCTAssertEqual(factor(640, 480, box: (640, 480)), 1)
    }

    func testResizeOfAJPEGDecodedAtAQuarterKeepsSizeAndColours() throws {
        let converted = try DWConvert(format: .jpeg, quality: 95).process(Fixtures.image("q.png"))
        // New bytes (not the converter's own buffer), so the resize decodes the JPEG instead of taking its canvas.
        let jpeg = try DWImage(data: Data(Array(converted.data)))
        let out = try DWResize(width: 16, height: 16).process(jpeg)  // 64×48 → 16×12: libjpeg's 1/4 scale
        XCTAssertEqual([out.pixelWidth, out.pixelHeight], [16, 12])
        XCTAssertEqual(out.format, .jpeg)
        let bitmap = try out.bitmap()
        assertPixel(bitmap, 2, 2, [220, 30, 30, 255], tolerance: 20, "top-left stays red")
        assertPixel(bitmap, 13, 9, [255, 255, 255, 255], tolerance: 20, "the clear quadrant was flattened to white")
    }

    /// imgproxy's scale-on-load in its own pipeline (not only a plain resize): a fill to 128 × 96 with a gravity
    /// decodes a 1024 × 768 JPEG at 1/8, and the same fill of a left-half gradient keeps the left side dark; a trim
    /// (which measures the full image) decodes at full size.
    func testTheImgproxyStepsShrinkAJPEGOnLoad() throws {
        let png = SampleImages.png(width: 1024, height: 768) { x, _ in
            x < 512 ? (20, 20, 20, 255) : (240, 240, 240, 255)
        }
        let jpeg = try DWImage(
            data: Data(Array(try DWConvert(format: .jpeg, quality: 95).process(DWImage(data: png)).data)))
        var transform = DWTransform()
        (transform.resizingType, transform.width, transform.height) = (.fill, 128, 96)
        transform.gravity = DWGravity(.northWest)
        var canvas = try Canvas(pending: jpeg)
        try ImgproxyStage(transform: transform, watermark: nil).apply(to: &canvas)
        XCTAssertEqual(canvas.jpegShrink, 8, "decoded at libjpeg's 1/8")
        XCTAssertEqual([canvas.width, canvas.height], [128, 96])
        let out = try DWImage(data: Encoder.encode(&canvas)).bitmap()
        assertPixel(out, 10, 48, [20, 20, 20, 255], tolerance: 12, "the left half stays dark")
        assertPixel(out, 118, 48, [240, 240, 240, 255], tolerance: 12, "the right half stays light")
        transform.trim = DWTrim()
        var trimmed = try Canvas(pending: jpeg)
        try ImgproxyStage(transform: transform, watermark: nil).apply(to: &trimmed)
        XCTAssertEqual(trimmed.jpegShrink, 1, "a trim measures the image at full size")
    }
}
