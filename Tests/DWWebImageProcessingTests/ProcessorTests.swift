// ProcessorTests: each processor's output size, format and visible effect, on real files through real libvips.
import DWWebImage
import DWWebImageProcessing
import XCTest

final class ProcessorTests: XCTestCase {
    private func quadrants() throws -> DWImage { try Fixtures.image("q.png") }  // 64×48 RGBA, BR quadrant clear

    func testIdentifiersAreStable() {
        XCTAssertEqual(DWResize(width: 200, height: nil).identifier, "resize(200x,fit)")
        XCTAssertEqual(
            DWResize(width: 20, height: 30, mode: .fill, enlarge: true).identifier, "resize(20x30,fill,enlarge)")
        XCTAssertEqual(DWCrop(x: 1, y: 2, width: 3, height: 4).identifier, "crop(1,2,3x4)")
        XCTAssertEqual(DWRoundCorners(radius: 8).identifier, "round(8.0)")
        XCTAssertEqual(DWBlur(sigma: 1.5).identifier, "blur(1.5)")
        XCTAssertEqual(DWGrayscale().identifier, "grayscale")
        XCTAssertEqual(DWTint(red: 1, green: 0, blue: 0, alpha: 0.5).identifier, "tint(1.0,0.0,0.0,0.5)")
        XCTAssertEqual(DWConvert(format: .webp, quality: 70).identifier, "convert(webp,q70)")
        XCTAssertEqual(
            DWImageProcessors.cacheKey(url: "u", processors: [DWResize(width: 1, height: 1), DWGrayscale()]),
            "1:u@15:resize(1x1,fit)|9:grayscale")
    }

    func testResizeFitKeepsAspectAndFormat() throws {
        let out = try DWResize(width: 32, height: 32).process(quadrants())
        XCTAssertEqual([out.pixelWidth, out.pixelHeight], [32, 24])
        XCTAssertEqual(out.format, .png)
        let bitmap = try out.bitmap()
        assertPixel(bitmap, 4, 4, [220, 30, 30, 255], tolerance: 2, "top-left stays red")
        XCTAssertEqual(bitmap.rgba(x: 28, y: 20).a, 0, "bottom-right stays clear")
    }

    func testResizeOneSideAndNeverEnlarges() throws {
        let jpeg = try Fixtures.image("q.jpg")
        let byWidth = try DWResize(width: 16, height: nil).process(jpeg)
        XCTAssertEqual([byWidth.pixelWidth, byWidth.pixelHeight, byWidth.format == .jpeg ? 1 : 0], [16, 12, 1])
        let byHeight = try DWResize(width: nil, height: 12).process(jpeg)
        XCTAssertEqual([byHeight.pixelWidth, byHeight.pixelHeight], [16, 12])
        let notEnlarged = try DWResize(width: 640, height: 480).process(jpeg)
        XCTAssertEqual([notEnlarged.pixelWidth, notEnlarged.pixelHeight], [64, 48])
        let enlarged = try DWResize(width: 128, height: 128, enlarge: true).process(jpeg)
        XCTAssertEqual([enlarged.pixelWidth, enlarged.pixelHeight], [128, 96])
    }

    func testResizeFillCoversAndCropsCentre() throws {
        let out = try DWResize(width: 20, height: 20, mode: .fill).process(quadrants())
        XCTAssertEqual([out.pixelWidth, out.pixelHeight], [20, 20])
        let bitmap = try out.bitmap()
        // 64×48 → 27×20, centre 20 columns: the four quadrants still meet in the middle.
        assertPixel(bitmap, 2, 2, [220, 30, 30, 255], tolerance: 3, "TL")
        assertPixel(bitmap, 17, 2, [30, 200, 40, 255], tolerance: 3, "TR")
        assertPixel(bitmap, 2, 17, [40, 60, 210, 255], tolerance: 3, "BL")
    }

    func testResizeFillNeverEnlargesASmallImage() throws {
        let out = try DWResize(width: 100, height: 20, mode: .fill).process(quadrants())
        XCTAssertEqual([out.pixelWidth, out.pixelHeight], [64, 20], "the short side is kept, the other cropped")
        let enlarged = try DWResize(width: 100, height: 20, mode: .fill, enlarge: true).process(quadrants())
        XCTAssertEqual([enlarged.pixelWidth, enlarged.pixelHeight], [100, 20])
    }

    func testResizeForceStretches() throws {
        let out = try DWResize(width: 30, height: 40, mode: .force).process(quadrants())
        XCTAssertEqual([out.pixelWidth, out.pixelHeight], [30, 40])
        let clamped = try DWResize(width: 100, height: 10, mode: .force).process(quadrants())
        XCTAssertEqual([clamped.pixelWidth, clamped.pixelHeight], [64, 10], "never enlarges either side")
    }

    func testResizeAppliesOrientationFirst() throws {
        for o in [6, 8] {  // stored 48×64, shown 64×48
            let out = try DWResize(width: 32, height: nil).process(Fixtures.image("orient\(o).jpg"))
            XCTAssertEqual([out.pixelWidth, out.pixelHeight], [32, 24], "orientation \(o)")
            assertPixel(try out.bitmap(), 4, 4, [220, 30, 30, 255], tolerance: 16, "orientation \(o) top-left")
        }
    }

    func testCrop() throws {
        let out = try DWCrop(x: 30, y: 0, width: 20, height: 10).process(quadrants())
        XCTAssertEqual([out.pixelWidth, out.pixelHeight], [20, 10])
        let bitmap = try out.bitmap()
        assertPixel(bitmap, 0, 0, [220, 30, 30, 255], tolerance: 0, "left of the split")
        assertPixel(bitmap, 19, 0, [30, 200, 40, 255], tolerance: 0, "right of the split")
        let clipped = try DWCrop(x: 50, y: 40, width: 100, height: 100).process(quadrants())
        XCTAssertEqual([clipped.pixelWidth, clipped.pixelHeight], [14, 8])
        XCTAssertThrowsError(try DWCrop(x: 100, y: 0, width: 5, height: 5).process(quadrants())) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage)
        }
    }

    func testRoundCornersMakesJPEGIntoPNGWithClearCorners() throws {
        let out = try DWRoundCorners(radius: 12).process(Fixtures.image("q.jpg"))
        XCTAssertEqual(out.format, .png, "JPEG has no alpha: the output is PNG")
        XCTAssertEqual([out.pixelWidth, out.pixelHeight], [64, 48])
        let bitmap = try out.bitmap()
        XCTAssertEqual(bitmap.rgba(x: 0, y: 0).a, 0, "corner is transparent")
        XCTAssertEqual(bitmap.rgba(x: 63, y: 47).a, 0)
        XCTAssertEqual(bitmap.rgba(x: 32, y: 24).a, 255, "centre is opaque")
        XCTAssertEqual(bitmap.rgba(x: 0, y: 24).a, 255, "edge middle is opaque")
        let circle = try DWRoundCorners(radius: 24).process(Fixtures.image("q.webp"))
        XCTAssertEqual(circle.format, .webp, "WebP keeps its format")
        XCTAssertEqual(try circle.bitmap().rgba(x: 4, y: 4).a, 0)
    }

    func testBlurSoftensAnEdge() throws {
        let out = try DWBlur(sigma: 3).process(Fixtures.image("q.tiff"))
        XCTAssertEqual(out.format, .tiff)
        let bitmap = try out.bitmap()
        let atEdge = bitmap.rgba(x: 31, y: 8), farFromEdge = bitmap.rgba(x: 4, y: 8)
        XCTAssertEqual(farFromEdge.r, 220, accuracy: 2)
        XCTAssertTrue(atEdge.r < 200 && atEdge.g > 60, "the red/green edge is blurred: \(atEdge)")
    }

    func testGrayscale() throws {
        let bitmap = try DWGrayscale().process(quadrants()).bitmap()
        for (x, y) in [(4, 4), (60, 4), (4, 44)] {
            let p = bitmap.rgba(x: x, y: y)
            XCTAssertTrue(abs(Int(p.r) - Int(p.g)) <= 1 && abs(Int(p.g) - Int(p.b)) <= 1, "grey at (\(x),\(y)): \(p)")
        }
        XCTAssertEqual(bitmap.rgba(x: 60, y: 44).a, 0, "alpha kept")
    }

    func testTintBlendsColour() throws {
        let bitmap = try DWTint(red: 0, green: 0, blue: 1, alpha: 0.5).process(quadrants()).bitmap()
        assertPixel(bitmap, 4, 4, [110, 15, 143, 255], tolerance: 2, "red + 50% blue")
        XCTAssertEqual(bitmap.rgba(x: 60, y: 44).a, 0, "alpha kept")
    }

    func testConvertToEachFormat() throws {
        for format in DWConvert.formats {
            let out = try DWConvert(format: format, quality: 90).process(quadrants())
            XCTAssertEqual(out.format, format)
            XCTAssertEqual([out.pixelWidth, out.pixelHeight], [64, 48])
            let bitmap = try out.bitmap()
            assertPixel(bitmap, 8, 8, [220, 30, 30, 255], tolerance: format == .gif ? 12 : 16, "\(format) TL")
            let clear = bitmap.rgba(x: 56, y: 40)
            if format == .jpeg {
                XCTAssertTrue(clear.a == 255 && clear.r > 235, "JPEG puts transparency on white: \(clear)")
            } else {
                XCTAssertEqual(clear.a, 0, "\(format) keeps transparency")
            }
        }
        // BMP and ICO are written as imgproxy's own savers write them (Encoder+DIB); nothing writes "unknown".
        XCTAssertEqual(try DWConvert(format: .bmp).process(quadrants()).format, .bmp)
        XCTAssertThrowsError(try DWConvert(format: .unknown).process(quadrants()))
    }

    func testChainAppliesInOrderAndEncodesOnce() throws {
        let chain: [any DWImageProcessor] = [
            DWResize(width: 32, height: nil), DWCrop(x: 0, y: 0, width: 16, height: 12),
            DWConvert(format: .webp, quality: 80)
        ]
        let out = try DWImageProcessors.apply(chain, to: Fixtures.image("q.jpg"))
        XCTAssertEqual([out.pixelWidth, out.pixelHeight], [16, 12])
        XCTAssertEqual(out.format, .webp)
        assertPixel(try out.bitmap(), 8, 6, [220, 30, 30, 255], tolerance: 16, "red quadrant")
    }

    func testBMPAndICOSourcesBecomePNG() throws {
        let out = try DWResize(width: 32, height: nil).process(Fixtures.image("q.bmp"))
        XCTAssertEqual(out.format, .png)
        XCTAssertEqual([out.pixelWidth, out.pixelHeight], [32, 24])
    }

    /// A 12-frame GIF, resized, keeps 12 frames, each delay and the loop count; every frame is resized.
    func testAnimatedGIFResizeKeepsFramesDelaysAndLoop() throws {
        let source = try Fixtures.image("anim12.gif")
        XCTAssertEqual(source.frameCount, 12)
        let expectedDelays = (Fixtures.expected["anim12.gif"]?["delays_ms"] as? [Int]) ?? []
        for processors in [
            [DWResize(width: 20, height: nil)] as [any DWImageProcessor],
            [DWCrop(x: 5, y: 5, width: 20, height: 10), DWGrayscale()],
            [DWResize(width: 20, height: nil), DWConvert(format: .gif)],
            [DWResize(width: 20, height: nil), DWConvert(format: .webp)]
        ] {
            let out = try DWImageProcessors.apply(processors, to: source)
            let what = DWImageProcessors.identifier(of: processors)
            XCTAssertEqual(out.frameCount, 12, what)
            guard out.format == .gif else {
                XCTAssertEqual(out.format, .webp, what)
                continue
            }
            XCTAssertEqual(out.loopCount, source.loopCount, what)
            XCTAssertEqual(out.loopCount, 3, what)
            XCTAssertEqual(out.frameDelays.map { Int(($0 * 1000).rounded()) }, expectedDelays, what)
            let frames = try XCTUnwrap(out.animatedImage())
            let last = frames.frame(at: 11)
            XCTAssertEqual([last.width, last.height], [out.pixelWidth, out.pixelHeight])
        }
        // Each frame keeps its own colour (frame i is (20i, 255 − 20i, 50i mod 256)).
        let resized = try DWResize(width: 20, height: nil).process(source)
        let frames = try XCTUnwrap(resized.animatedImage())
        for i in [0, 5, 11] {
            let p = frames.frame(at: i).rgba(x: 10, y: 7)
            XCTAssertEqual(Int(p.r), i * 20, accuracy: 10, "frame \(i)")
            XCTAssertEqual(Int(p.g), 255 - i * 20, accuracy: 10, "frame \(i)")
        }
    }
}
