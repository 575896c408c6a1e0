// Finer points of imgproxy's behaviour: enforce_thumbnail on a real HEIC/AVIF thumbnail (made by
// libheif's heif-enc), pixelate's edge blocks, and trim on images with alpha.
import DWTestServer
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
@testable import DWWebImageServer
import Foundation
import XCTest

final class ParityTests: XCTestCase {
    /// `eth:1` reads the embedded thumbnail (64 × 48 of a 400 × 300 image) as the source: its size without a resize,
    /// and a resize starts from it; without `eth` (or without a thumbnail in the file) the primary image is used.
    func testEnforceThumbnailReadsTheEmbeddedThumbnail() throws {
        let quads = SampleImages.quadrants(width: 400, height: 300)
        for format in ["heic", "avif"] {
            let withThumbnail = try Self.heifEnc(quads, format: format, thumbnail: 64)
            XCTAssertEqual(try size("f:png", withThumbnail), [400, 300], "\(format): the primary image by default")
            XCTAssertEqual(try size("eth:1/f:png", withThumbnail), [64, 48], "\(format): the thumbnail with eth:1")
            XCTAssertEqual(try size("enforce_thumbnail:1/f:png", withThumbnail), [64, 48], format)
            XCTAssertEqual(try size("eth:1/rs:fit:32:32/f:png", withThumbnail), [32, 24], "\(format): resized from it")
            let (image, bitmap) = try Imgproxy.run("eth:1/f:png/rot:90", on: withThumbnail)
            XCTAssertEqual([image.pixelWidth, image.pixelHeight], [48, 64], "\(format): later steps run on it")
            XCTAssertTrue(bitmap.isColour(5, 5, 0, 0, 255, tolerance: 40), "\(format) rotated: \(bitmap.rgba(5, 5))")
            let none = try Self.heifEnc(quads, format: format, thumbnail: nil)
            XCTAssertEqual(
                try size("eth:1/f:png", none), [400, 300], "\(format) without a thumbnail: the primary image")
        }
        let png = SampleImages.png(width: 30, height: 20)
        XCTAssertEqual(try size("eth:1/f:png", png), [30, 20], "other formats have no thumbnail to enforce")
    }

    /// imgproxy extends a side that is not a multiple of the block by mirroring its edge before averaging: the last,
    /// narrower blocks keep the image's colours (they were darkened by black padding before).
    func testPixelateEdgeBlocksAreNotPaddedWithBlack() throws {
        let grey = SampleImages.png(width: 25, height: 13) { _, _ in (200, 150, 100, 255) }
        let uniform = try Imgproxy.run("pix:10", on: grey).1
        XCTAssertEqual([uniform.width, uniform.height], [25, 13])
        for (x, y) in [(0, 0), (24, 0), (24, 12), (0, 12), (15, 11)] {
            XCTAssertTrue(uniform.isColour(x, y, 200, 150, 100, tolerance: 1), "at \(x),\(y): \(uniform.rgba(x, y))")
        }
        // A horizontal ramp: the partial block (columns 20…24, mirrored) averages 20…24's own values only.
        let ramp = SampleImages.png(width: 25, height: 10) { x, _ in (UInt8(x * 10), 0, 0, 255) }
        let blocks = try Imgproxy.run("pix:10", on: ramp).1
        XCTAssertEqual(blocks.rgba(24, 5).0, 220, accuracy: 2, "mean of 200…240")
        XCTAssertEqual(blocks.rgba(20, 0).0, blocks.rgba(24, 9).0, "one colour in the edge block")
        XCTAssertEqual(blocks.rgba(0, 0).0, 45, accuracy: 2, "mean of 0…90")
    }

    /// imgproxy flattens an image with alpha onto magenta before looking for the border: a transparent border goes,
    /// and the white content it framed stays (flattened onto white, all of it looked like border).
    func testTrimRemovesATransparentBorder() throws {
        let framed = SampleImages.png(width: 60, height: 50) { x, y in
            (10..<50).contains(x) && (5..<45).contains(y) ? (255, 255, 255, 255) : (0, 0, 0, 0)
        }
        let (_, trimmed) = try Imgproxy.run("t:10", on: framed)
        XCTAssertEqual([trimmed.width, trimmed.height], [40, 40])
        XCTAssertTrue(trimmed.isColour(0, 0, 255, 255, 255) && trimmed.rgba(0, 0).3 == 255, "\(trimmed.rgba(0, 0))")
        // A colour given for an image with alpha is compared with the magenta-flattened pixels too.
        let byMagenta = try Imgproxy.run("t:10:ff00ff", on: framed).1
        XCTAssertEqual([byMagenta.width, byMagenta.height], [40, 40])
        let equal = SampleImages.png(width: 60, height: 50) { x, y in
            (5..<40).contains(x) && (5..<45).contains(y) ? (255, 255, 255, 255) : (0, 0, 0, 0)
        }
        let balanced = try Imgproxy.run("t:10::1:1", on: equal).1
        XCTAssertEqual([balanced.width, balanced.height], [50, 40], "equal_hor keeps the narrower side's margin")
    }

    /// imgproxy writes every format libvips saves, TIFF and HEIC too, and BMP and ICO with savers of its own.
    func testTIFFHEICBMPAndICOOutput() throws {
        let png = SampleImages.quadrants(width: 40, height: 30)
        for (options, format) in [
            ("f:tiff", DWImageFormat.tiff), ("format:tiff", .tiff), ("w:20/f:heic", .heic),
            ("ext:heic/q:50", .heic)
        ] {
            let (image, bitmap) = try Imgproxy.run(options, on: png)
            XCTAssertEqual(image.format, format, options)
            XCTAssertTrue(bitmap.isColour(1, 1, 255, 0, 0, tolerance: 40), "\(options): \(bitmap.rgba(1, 1))")
        }
        // The decoded size: DWImage's header facts read the first `ispe` of this libheif output (64 × 64, not the
        // primary item's 20 × 15), a sniffer matter left to its owners.
        let small = try Imgproxy.run("w:20/f:heic", on: png).1
        XCTAssertEqual([small.width, small.height], [20, 15])
        for (options, format) in [("f:bmp", DWImageFormat.bmp), ("w:20/f:ico", .ico), ("pd:2/f:bmp", .bmp)] {
            let (image, bitmap) = try Imgproxy.run(options, on: png)
            XCTAssertEqual(image.format, format, options)
            XCTAssertTrue(
                bitmap.isColour(bitmap.width - 3, 3, 0, 255, 0, tolerance: 2), "\(options): \(bitmap.rgba(37, 3))")
        }
        let padded = try Imgproxy.run("pd:2/f:bmp", on: png).1
        XCTAssertEqual([padded.width, padded.height, padded.rgba(0, 0).3], [44, 34, 0], "32-bit BMP keeps alpha")
        XCTAssertEqual(
            try Imgproxy.parse("f:svg").transform.format, .svg, "as imgproxy; a raster source is 422 (SVGServeTests)")
        XCTAssertEqual(Imgproxy.refusal("f:tif").1, 400, "imgproxy knows tiff by that name only")
    }

    /// imgproxy writes an AVIF under 16 pixels on a side as PNG when it has alpha, else JPEG.
    func testAVIFUnder16PixelsIsPNGOrJPEG() throws {
        let quads = SampleImages.quadrants(width: 40, height: 30)
        XCTAssertEqual(try Imgproxy.run("w:32/f:avif", on: quads).0.format, .avif, "32 × 24: AVIF")
        XCTAssertEqual(try Imgproxy.run("w:16/f:avif", on: SampleImages.png(width: 40, height: 30)).0.format, .jpeg)
        let (png, bitmap) = try Imgproxy.run("w:10/pd:1/f:avif", on: quads)
        XCTAssertEqual([png.format, png.pixelWidth, png.pixelHeight] as [AnyHashable], [DWImageFormat.png, 12, 10])
        XCTAssertEqual(bitmap.rgba(0, 0).3, 0, "the padding stays transparent")
    }

    /// imgproxy trims the image as stored, before the EXIF rotation: `equal_hor` balances the stored image's left
    /// and right margins. A 64 × 48 JPEG (EXIF orientation 6: shown 48 × 64) with a red block 8 px from the left,
    /// 40 from the right and 8 from top and bottom trims to 48 × 32 as stored, 32 × 48 as shown (trimming the
    /// upright image instead would balance the other axis: 32 × 16).
    func testTrimRunsOnTheStoredOrientation() throws {
        let jpeg = try Self.pillow(
            """
            im = Image.new('RGB', (64, 48), (255, 255, 255)); im.paste((255, 0, 0), (8, 8, 24, 40))
            exif = Image.Exif(); exif[0x0112] = 6
            im.save(out, 'JPEG', quality=100, subsampling=0, exif=exif.tobytes())
            """)
        XCTAssertEqual(try size("t:10::1:0/f:png", jpeg), [32, 48], "trimmed as stored, then turned upright")
        XCTAssertEqual(try size("t:10/f:png", jpeg), [32, 16], "without equal_hor: the block alone, upright")
        XCTAssertEqual(try size("t:10::1:0/ar:0/f:png", jpeg), [48, 32], "ar:0 keeps it as stored")
    }

    /// imgproxy skips trim for an animation it keeps animated, and processes one frame (trimmed) when the output
    /// format cannot animate.
    func testTrimSkippedForAnimationsTrimmedWhenOneFrameIsKept() throws {
        let frame = (0..<400).map { i -> UInt8 in (5..<15).contains(i % 20) && (5..<15).contains(i / 20) ? 1 : 0 }
        let gif = SampleImages.gif(
            width: 20, height: 20, palette: [(255, 255, 255), (255, 0, 0)], frames: [frame, frame])
        let animated = try Imgproxy.run("t:10", on: gif).0
        XCTAssertEqual([animated.frameCount, animated.pixelWidth, animated.pixelHeight], [2, 20, 20], "not trimmed")
        let still = try Imgproxy.run("t:10/f:png", on: gif).0
        XCTAssertEqual([still.frameCount, still.pixelWidth, still.pixelHeight], [1, 10, 10], "one frame, trimmed")
    }

    /// Bytes Pillow writes: `script` has `Image` and `out` (a BytesIO).
    static func pillow(_ script: String) throws -> Data {
        let text = try Python.system.script(
            "import base64, io, sys\nfrom PIL import Image\nout = io.BytesIO()\n"
                + script + "\nsys.stdout.write(base64.b64encode(out.getvalue()).decode())")
        guard let data = Data(base64Encoded: text) else {
            throw MissingPrerequisite("Pillow wrote no image: \(text.prefix(200))")
        }
        return data
    }

    private func size(_ options: String, _ data: Data) throws -> [Int] {
        let image = try Imgproxy.run(options, on: data).0
        return [image.pixelWidth, image.pixelHeight]
    }

    /// `png` encoded by libheif's `heif-enc` (Debian libheif-examples) as HEIC or AVIF, with an embedded thumbnail
    /// of at most `thumbnail` pixels a side when given.
    static func heifEnc(_ png: Data, format: String, thumbnail: Int?) throws -> Data {
        try ReferenceTool.convert(
            "heif-enc", package: "libheif-examples", input: png, inputExtension: "png", outputExtension: format
        ) { input, output in
            ["-q", "90"] + (thumbnail.map { ["-t", String($0)] } ?? []) + (format == "avif" ? ["-A"] : [])
                + ["-o", output, input]
        }
    }
}
