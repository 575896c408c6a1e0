// JPEG XL through the engine: sniffed in both forms (bare codestream, ISO-BMFF container), sizes from the SizeHeader
// (small and large, with and without a fixed aspect ratio), decoded by libvips' jxl module and written by `f:jxl`.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class JPEGXLTests: XCTestCase {
    func testSniffedInBothFormsWithTheSizeHeadersSize() throws {
        // 64×48: small (multiples of 8), ratio 4:3; 33×17: neither; 300×200: small height, ratio 3:2; 1000×9: large.
        for (width, height) in [(64, 48), (33, 17), (300, 200), (1000, 9), (8, 2048)] {
            let png = SampleImages.png(width: width, height: height)
            for container in [false, true] {
                let data = try LibJXLTools.cjxl(png, container: container)
                let image = try DWImage(data: data)
                XCTAssertEqual(image.format, .jxl)
                XCTAssertEqual([image.pixelWidth, image.pixelHeight], [width, height], "container \(container)")
            }
        }
        XCTAssertEqual(DWImageFormat(name: "jxl"), .jxl)
        XCTAssertEqual(DWImageFormat.jxl.mimeType, "image/jxl")
        XCTAssertEqual(DWImageFormat.jxl.fileExtension, "jxl")
        XCTAssertTrue(DWImageFormat.jxl.isWritable)
        XCTAssertThrowsError(try DWImage(data: Data([0xFF, 0x0A])), "a signature without a size header")
    }

    func testDecodedAndWritten() throws {
        let jxl = try LibJXLTools.cjxl(SampleImages.quadrants(width: 40, height: 30), container: true)
        let (png, bitmap) = try Imgproxy.run("rs:fit:20:20/f:png", on: jxl)
        XCTAssertEqual([png.pixelWidth, png.pixelHeight], [20, 15])
        XCTAssertTrue(
            bitmap.isColour(1, 1, 255, 0, 0, tolerance: 2) && bitmap.isColour(18, 13, 255, 255, 0, tolerance: 2),
            "\(bitmap.rgba(1, 1)) \(bitmap.rgba(18, 13))")
        let (written, pixels) = try Imgproxy.run("f:jxl", on: SampleImages.quadrants(width: 40, height: 30))
        XCTAssertEqual(written.format, .jxl)
        XCTAssertTrue(pixels.isColour(1, 1, 255, 0, 0, tolerance: 24), "\(pixels.rgba(1, 1))")
    }
}
