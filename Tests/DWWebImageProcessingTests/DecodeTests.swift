// DecodeTests: DWImage.bitmap() for every format, against the pixels Pillow reads from the same files.
import DWWebImage
@testable import DWWebImageProcessing
import XCTest

final class DecodeTests: XCTestCase {
    /// Lossless formats must match exactly; lossy ones (JPEG q95, AVIF q90, HEIC q95) within 12 of Pillow's reading.
    private func check(_ name: String, tolerance: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let image = try Fixtures.image(name)
        let bitmap = try image.bitmap()
        let (w, h) = try XCTUnwrap(Fixtures.size(name))
        XCTAssertEqual(bitmap.width, w, name, file: file, line: line)
        XCTAssertEqual(bitmap.height, h, name, file: file, line: line)
        XCTAssertEqual(bitmap.bytesPerRow, w * 4, name, file: file, line: line)
        XCTAssertEqual(bitmap.pixels.count, w * h * 4, name, file: file, line: line)
        let samples = Fixtures.samples(name)
        XCTAssertFalse(samples.isEmpty, "no reference samples for \(name)")
        for s in samples { assertPixel(bitmap, s.x, s.y, s.rgba, tolerance: tolerance, name, file: file, line: line) }
    }

    func testJPEG() throws { try check("q.jpg", tolerance: 12) }
    func testPNGWithAlpha() throws { try check("q.png", tolerance: 0) }
    func testWebPLossless() throws { try check("q.webp", tolerance: 0) }
    func testGIFFirstFrame() throws { try check("q.gif", tolerance: 0) }
    func testTIFF() throws { try check("q.tiff", tolerance: 0) }
    func testBMP24() throws { try check("q.bmp", tolerance: 0) }
    func testBMP8Palette() throws { try check("q8.bmp", tolerance: 0) }
    func testAVIF() throws { try check("q.avif", tolerance: 12) }
    func testHEIC() throws { try check("q.heic", tolerance: 12) }

    func testICOThroughDWImage() throws {
        let data = try Fixtures.data("q.ico")
        XCTAssertEqual(try DWImage(data: data).format, .ico, "the core's sniffer recognises ICO")
        try check("q.ico", tolerance: 0)
        try check("dib.ico", tolerance: 0)
    }

    /// The ICO reader itself (PNG entry and 32-bit DIB entry with its AND mask), whatever the sniffer knows.
    func testICOReader() throws {
        guard case .png(let png) = try DIBReader.decodeICO(Fixtures.data("q.ico"), limits: DWProcessingLimits()) else {
            return XCTFail("q.ico's entry is a PNG")
        }
        try XCTAssertEqual(DWImage(data: png).bitmap().rgba(x: 8, y: 8).r, 220)
        guard case .raster(let raster) = try DIBReader.decodeICO(Fixtures.data("dib.ico"), limits: DWProcessingLimits())
        else {
            return XCTFail("dib.ico's entry is a DIB")
        }
        XCTAssertEqual([raster.width, raster.height, raster.bands], [16, 16, 4])
        XCTAssertEqual(Array(raster.pixels[(2 * 16 + 2) * 4..<(2 * 16 + 2) * 4 + 4]), [255, 0, 0, 255])
        XCTAssertEqual(raster.pixels[(12 * 16 + 12) * 4 + 3], 0)
    }

    /// EXIF orientations 1–8 all come out upright, as Pillow's exif_transpose shows them.
    func testEXIFOrientations() throws {
        for o in 1...8 {
            try check("orient\(o).jpg", tolerance: 12)
        }
    }

    /// A Display P3 image's pixels are converted to sRGB (as littleCMS through Pillow converts them), not passed on.
    func testP3ProfileConvertedToSRGB() throws {
        let bitmap = try Fixtures.image("p3.png").bitmap()
        let reference = try XCTUnwrap(Fixtures.samples("p3.png").first)
        assertPixel(bitmap, 16, 16, reference.rgba, tolerance: 3, "P3 → sRGB")
        let p = bitmap.rgba(x: 16, y: 16)
        XCTAssertNotEqual([p.r, p.g, p.b], [200, 100, 50], "the P3 values were passed through unconverted")
    }

    /// libvips starts with only its HEIF and JPEG XL modules: ImageMagick, poppler and OpenSlide are never mapped.
    func testOnlyTheHEIFAndJPEGXLModulesAreLoaded() throws {
        _ = try Fixtures.image("q.heic").bitmap()
        let maps = try XCTUnwrap(readProcFile("/proc/self/maps"))
        let ours = maps.split(separator: "\n").filter { $0.contains("vips") || $0.contains("heif") }
        XCTAssertTrue(maps.contains("vips-heif.so"), "the HEIF module is loaded: \(ours.joined(separator: "\n"))")
        XCTAssertTrue(maps.contains("vips-jxl.so"), "the JPEG XL module is loaded (imgproxy reads and writes JPEG XL)")
        for untrusted in ["vips-magick.so", "vips-poppler.so", "vips-openslide.so"] {
            XCTAssertFalse(maps.contains(untrusted), "\(untrusted) is mapped")
        }
    }

    func testGarbageAfterValidHeaderIs10000() throws {
        var png = try Fixtures.data("q.png")
        png.replaceSubrange(40..<png.count - 12, with: Data(repeating: 0x5A, count: png.count - 52))
        let image = try DWImage(data: png)
        XCTAssertThrowsError(try image.bitmap()) { error in
            XCTAssertEqual((error as? DWWebImageError)?.code, .notAnImage)
            XCTAssertFalse((error as? DWWebImageError)?.message.isEmpty ?? true)
        }
    }
}
