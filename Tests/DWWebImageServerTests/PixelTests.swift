// Pixel checks where sizes cannot tell: gravity, padding and background, rotate and flip, trim, watermark,
// pixelate, monochrome and adjust.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import XCTest

final class PixelTests: XCTestCase {
    /// 100 × 100: red top-left, green top-right, blue bottom-left, yellow bottom-right.
    let quads = SampleImages.quadrants(width: 100, height: 100)

    func testGravityPicksTheQuadrant() throws {
        let cases: [(String, (Int, Int, Int))] = [
            ("c:50:50/g:nowe", (255, 0, 0)), ("c:50:50/g:noea", (0, 255, 0)), ("c:50:50/g:sowe", (0, 0, 255)),
            ("c:50:50/g:soea", (255, 255, 0)), ("c:50:50:soea", (255, 255, 0)), ("c:50:50/g:fp:0.2:0.2", (255, 0, 0)),
            ("c:50:50/g:fp:0.9:0.9", (255, 255, 0)), ("rs:fill:50:100/g:ea", (0, 255, 0)),
            ("rs:fill:50:100/g:we", (255, 0, 0)), ("c:40:40/g:nowe:50:50", (255, 255, 0))  // offsets from the corner
        ]
        for (options, colour) in cases {
            let (_, bitmap) = try Imgproxy.run(options, on: quads)
            XCTAssertTrue(bitmap.isColour(2, 2, colour.0, colour.1, colour.2), "\(options): \(bitmap.rgba(2, 2))")
        }
        let north = try Imgproxy.run("c:50:50/g:no", on: quads).1
        XCTAssertTrue(north.isColour(5, 5, 255, 0, 0) && north.isColour(45, 45, 0, 255, 0), "north spans red and green")
    }

    func testPaddingExtendAndBackgroundColours() throws {
        let red = SampleImages.png(width: 40, height: 40) { _, _ in (255, 0, 0, 255) }
        let padded = try Imgproxy.run("pd:10:20/bg:ff00ff", on: red).1
        XCTAssertEqual([padded.width, padded.height], [80, 60])
        XCTAssertTrue(padded.isColour(0, 0, 255, 0, 255) && padded.isColour(79, 59, 255, 0, 255), "padding is bg")
        XCTAssertTrue(padded.isColour(30, 15, 255, 0, 0))
        let clear = try Imgproxy.run("pd:5", on: red).1
        XCTAssertEqual(clear.rgba(0, 0).3, 0, "padding without bg is transparent in PNG")
        let white = try Imgproxy.run("pd:20/f:jpg", on: red).1  // 20: a whole JPEG block of padding
        XCTAssertTrue(white.isColour(0, 0, 255, 255, 255), "and white in JPEG: \(white.rgba(0, 0))")
        let extended = try Imgproxy.run("rs:fit:80:40/ex:1:nowe/bg:0000ff", on: red).1
        XCTAssertEqual([extended.width, extended.height], [80, 40])
        XCTAssertTrue(extended.isColour(5, 5, 255, 0, 0) && extended.isColour(75, 35, 0, 0, 255), "image at nowe")
        let alpha = SampleImages.png(width: 10, height: 10) { _, _ in (0, 0, 0, 0) }
        XCTAssertTrue(
            try Imgproxy.run("bg:00ff00/f:jpg", on: alpha).1.isColour(5, 5, 0, 255, 0), "bg fills transparency")
    }

    func testRotateAndFlip() throws {
        let wide = SampleImages.quadrants(width: 100, height: 50)
        let turned = try Imgproxy.run("rot:90", on: wide).1
        XCTAssertEqual([turned.width, turned.height], [50, 100])
        XCTAssertTrue(turned.isColour(5, 5, 0, 0, 255), "90° clockwise: bottom-left comes to the top-left")
        XCTAssertTrue(try Imgproxy.run("rot:180", on: quads).1.isColour(5, 5, 255, 255, 0))
        XCTAssertTrue(try Imgproxy.run("rot:270", on: quads).1.isColour(5, 5, 0, 255, 0))
        XCTAssertTrue(try Imgproxy.run("fl:1", on: quads).1.isColour(5, 5, 0, 255, 0), "horizontal flip")
        XCTAssertTrue(try Imgproxy.run("fl:0:1", on: quads).1.isColour(5, 5, 0, 0, 255), "vertical flip")
        XCTAssertTrue(try Imgproxy.run("fl:1:1", on: quads).1.isColour(5, 5, 255, 255, 0))
    }

    func testTrimRemovesAUniformBorder() throws {
        let framed = SampleImages.png(width: 60, height: 50) { x, y in
            (10..<50).contains(x) && (5..<45).contains(y) ? (255, 0, 0, 255) : (255, 255, 255, 255)
        }
        let trimmed = try Imgproxy.run("t:10", on: framed).1
        XCTAssertEqual([trimmed.width, trimmed.height], [40, 40])
        XCTAssertTrue(trimmed.isColour(0, 0, 255, 0, 0) && trimmed.isColour(39, 39, 255, 0, 0))
        let byColour = try Imgproxy.run("t:10:ffffff", on: framed).1
        XCTAssertEqual([byColour.width, byColour.height], [40, 40])
    }

    /// No border to trim (a gradient: the box is the whole image), so the frame the trim measured goes on to the
    /// encoder as it is. Found by fuzz/url-fuzzer: the encoder's one-thread render left the rendered image with
    /// raw pointers to the decoder's images, freed by then, and the PNG save crashed the process.
    func testTrimWithNothingToTrimKeepsTheImage() throws {
        let gradient = SampleImages.png(width: 120, height: 80) { x, y in
            (UInt8(x * 2), UInt8(y * 3), UInt8(x + y), x < 100 ? 255 : 128)
        }
        for options in ["t:10", "t:10:ff00ff:1:1", "t:300/f:jpg", "t:10/rs:fit:60:60"] {
            let (image, bitmap) = try Imgproxy.run(options, on: gradient)
            let expected = options.contains("rs:") ? [60, 40] : [120, 80]
            XCTAssertEqual([bitmap.width, bitmap.height], expected, options)
            XCTAssertEqual(image.format, options.contains("f:jpg") ? .jpeg : .png, options)
        }
        let kept = try Imgproxy.run("t:10", on: gradient).1
        XCTAssertTrue(kept.isColour(50, 20, 100, 60, 70), "pixels unchanged: \(kept.rgba(50, 20))")
    }

    func testWatermarkPosition() throws {
        let red = SampleImages.png(width: 100, height: 100) { _, _ in (255, 0, 0, 255) }
        let blue = SampleImages.png(width: 10, height: 10) { _, _ in (0, 0, 255, 255) }
        let corner = try Imgproxy.run("wm:1:nowe", on: red, watermark: blue).1
        XCTAssertTrue(corner.isColour(2, 2, 0, 0, 255) && corner.isColour(50, 50, 255, 0, 0))
        let other = try Imgproxy.run("wm:1:soea", on: red, watermark: blue).1
        XCTAssertTrue(other.isColour(97, 97, 0, 0, 255) && other.isColour(2, 2, 255, 0, 0))
        let centre = try Imgproxy.run("wm:1", on: red, watermark: blue).1
        XCTAssertTrue(centre.isColour(50, 50, 0, 0, 255) && centre.isColour(30, 30, 255, 0, 0))
        let half = try Imgproxy.run("wm:0.5:nowe", on: red, watermark: blue).1
        XCTAssertTrue(half.isColour(2, 2, 128, 0, 128, tolerance: 12), "opacity 0.5 blends: \(half.rgba(2, 2))")
        let scaled = try Imgproxy.run("wm:1:nowe:0:0:0.5", on: red, watermark: blue).1
        XCTAssertTrue(
            scaled.isColour(45, 45, 0, 0, 255) && scaled.isColour(55, 55, 255, 0, 0), "scale 0.5 of the width")
        // A tall watermark fits into 0.5 × the width and the height (50 × 50): 12.5 × 50, not 50 × 200.
        let tall = SampleImages.png(width: 10, height: 40) { _, _ in (0, 0, 255, 255) }
        let fitted = try Imgproxy.run("wm:1:nowe:0:0:0.5", on: red, watermark: tall).1
        XCTAssertTrue(fitted.isColour(5, 45, 0, 0, 255), "inside the fitted mark: \(fitted.rgba(5, 45))")
        XCTAssertTrue(fitted.isColour(30, 10, 255, 0, 0), "right of it: \(fitted.rgba(30, 10))")
        XCTAssertTrue(fitted.isColour(5, 70, 255, 0, 0), "below it: \(fitted.rgba(5, 70))")
        let tiled = try Imgproxy.run("wm:1:re", on: red, watermark: blue).1
        XCTAssertTrue(tiled.isColour(95, 95, 0, 0, 255) && tiled.isColour(5, 55, 0, 0, 255), "re tiles it")
    }

    func testPixelateBlockSizeMonochromeAndAdjust() throws {
        let gradient = SampleImages.png(width: 40, height: 40)
        let blocks = try Imgproxy.run("pix:10", on: gradient).1
        for (x, y) in [(0, 0), (10, 0), (20, 30)] {
            XCTAssertTrue(blocks.rgba(x, y) == blocks.rgba(x + 9, y + 9), "one colour per 10×10 block at \(x),\(y)")
        }
        XCTAssertFalse(blocks.rgba(0, 0) == blocks.rgba(10, 0), "neighbouring blocks differ")
        for options in ["mc:1", "mc::b3b3b3", "monochrome:1:ffffff"] {
            let mono = try Imgproxy.run(options, on: quads).1
            for (x, y) in [(5, 5), (95, 5), (5, 95), (95, 95)] {
                let p = mono.rgba(x, y)
                XCTAssertTrue(abs(p.0 - p.1) <= 2 && abs(p.1 - p.2) <= 2, "\(options): no chroma at \(x),\(y): \(p)")
            }
        }
        let grey = try Imgproxy.run("a:0:1:0", on: quads).1.rgba(5, 5)
        XCTAssertTrue(abs(grey.0 - grey.1) <= 3 && abs(grey.1 - grey.2) <= 3, "saturation 0: grey \(grey)")
        let brighter = try Imgproxy.run(
            "a:50", on: SampleImages.png(width: 4, height: 4) { _, _ in (100, 100, 100, 255) }
        ).1
        XCTAssertTrue(brighter.isColour(1, 1, 150, 150, 150, tolerance: 2))
        let contrast = try Imgproxy.run(
            "a:0:2", on: SampleImages.png(width: 4, height: 4) { _, _ in (100, 100, 100, 255) }
        ).1
        XCTAssertTrue(contrast.isColour(1, 1, 72, 72, 72, tolerance: 2), "contrast 2 around mid-grey")
    }
}
