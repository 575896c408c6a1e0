// JPEGDecodeHereTests: a JPEG decoded by libjpeg straight into memory holds libvips' loader's pixels and header, at
// every DCT scale, and what that path does not take (truncated, CMYK) stays with libvips.
import CVips
import DWTestServer
import DWWebImage
@testable import DWWebImageProcessing
import Foundation
import XCTest

final class JPEGDecodeHereTests: XCTestCase {
    /// A 301×203 picture with edges, gradients and noise (odd sizes: partial MCUs at the right and bottom).
    private func photo() throws -> VImage {
        var state: UInt32 = 987
        let png = SampleImages.png(width: 301, height: 203) { x, y in
            state = state &* 1_103_515_245 &+ 12345
            let noise = UInt8(truncatingIfNeeded: state >> 24) / 8
            return (
                UInt8((x * 255) / 300) / 2 + noise, UInt8((y * 255) / 202) / 2 + (x / 37 % 2 == 0 ? 90 : 10),
                UInt8(((x + y) * 3) % 256) / 2 + noise, 255
            )
        }
        var canvas = try Canvas(pending: DWImage(data: png))
        try canvas.decode()
        let opaque = try Vips.make("flatten") { cvips_flatten(canvas.frames[0].pointer, 255, 255, 255, $0) }
        return try Vips.make("memory") { cvips_copy_memory(opaque.pointer, $0) }
    }

    /// `image` as libvips' saver writes it; `strip`: no metadata at all (else an EXIF block with an orientation).
    private func jpeg(_ image: VImage, quality: Int, progressive: Bool = false, strip: Bool = false) throws -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = cvips_save_buffer(
            Int32(CVIPS_SAVER_JPEG), image.pointer, Int32(quality), -1, strip ? 1 : 0, progressive ? 1 : 0, 0,
            &buffer,
            &length)
        guard status == 0, let buffer else { throw DWWebImageError.failed("jpegsave", reason: "") }
        defer { cvips_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    private func loader(_ data: Data, shrink: Int) throws -> VImage {
        try Vips.make("jpegload") { out in
            data.withUnsafeBytes {
                cvips_jpegload_shrink_buffer($0.baseAddress!, $0.count, Int32(shrink), Decoder.failOnTruncated, 1, out)
            }
        }
    }

    func testPixelsAndHeaderAreLibvipsOwnAtEveryScale() throws {
        let colour = try photo()
        let grey = try Vips.make("grey") { cvips_colourspace(colour.pointer, 1, $0) }  // VIPS_INTERPRETATION_B_W
        let sources: [(String, Data)] = [
            ("4:2:0", try jpeg(colour, quality: 80)), ("4:4:4", try jpeg(colour, quality: 95)),
            ("progressive", try jpeg(colour, quality: 80, progressive: true)), ("grey", try jpeg(grey, quality: 80)),
            ("EXIF orientation 6", try Fixtures.data("orient6.jpg"))
        ]
        for (name, data) in sources {
            for shrink in [1, 2, 4, 8] {
                let header = try loader(data, shrink: shrink)
                let here = try XCTUnwrap(
                    Decoder.decodeJPEGHere(header, data: data, shrink: shrink, sequential: false), "\(name) 1/\(shrink)"
                )
                XCTAssertNotNil(cvips_memory_pixels(here.pointer), "\(name): in memory")
                let libvips = try loader(data, shrink: shrink)
                XCTAssertEqual(
                    [here.width, here.height, here.bands], [libvips.width, libvips.height, libvips.bands], name)
                XCTAssertEqual(here.int("orientation"), libvips.int("orientation"), name)
                XCTAssertEqual(cvips_interpretation(here.pointer), cvips_interpretation(libvips.pointer), name)
                let (a, b) = (pixels(here), pixels(libvips))
                XCTAssertFalse(a.isEmpty)
                XCTAssertTrue(a == b, "\(name) 1/\(shrink): the same pixels")
            }
        }
    }

    func testTruncatedAndCMYKFilesAreLeftToLibvips() throws {
        let colour = try photo()
        let whole = try jpeg(colour, quality: 80)
        let cut = whole.prefix(whole.count * 2 / 3)
        let header = try loader(cut, shrink: 2)
        XCTAssertNil(
            Decoder.decodeJPEGHere(header, data: cut, shrink: 2, sequential: true),
            "truncated: libvips' fail_on decides")
        XCTAssertThrowsError(try DWResize(width: 100, height: 100).process(DWImage(data: Data(cut)))) { error in
            XCTAssertNotEqual((error as? DWWebImageError)?.code, nil, "a DWWebImageError, as before")
        }
        let cmyk = try Vips.make("cmyk") { cvips_colourspace(colour.pointer, 15, $0) }  // VIPS_INTERPRETATION_CMYK
        let data = try jpeg(cmyk, quality: 80)
        let cmykHeader = try loader(data, shrink: 2)
        XCTAssertEqual(cmykHeader.bands, 4)
        XCTAssertNil(Decoder.decodeJPEGHere(cmykHeader, data: data, shrink: 2, sequential: true), "CMYK: libvips")
    }

    func testALargeDecodeReadOnceStaysAStreamingPipeline() throws {
        let png = SampleImages.png(width: 1300, height: 1100) { x, y in (UInt8(x % 256), UInt8(y % 256), 90, 255) }
        var canvas = try Canvas(pending: DWImage(data: png))
        try canvas.decode()
        let data = try jpeg(canvas.frames[0], quality: 80, strip: true)
        let header = try loader(data, shrink: 1)
        XCTAssertGreaterThan(header.width * header.height * 3, Decoder.decodeHereSequentialLimit)
        XCTAssertNil(
            Decoder.decodeJPEGHere(header, data: data, shrink: 1, sequential: true), "read once: libvips' strips")
        XCTAssertNotNil(
            Decoder.decodeJPEGHere(header, data: data, shrink: 1, sequential: false), "read again: into memory")
    }

    /// The thumbnail step of a JPEG resize (``Decoder/thumbnail(_:width:height:size:crop:)``) against libvips' own
    /// (its sequential loader, then `vips_thumbnail_image`): the same pixels whether or not the decoded image was
    /// already the thumbnail's size, and no pipeline left when it was.
    func testThumbnailOfADecodedJPEGIsLibvipsOwn() throws {
        // 301×203: decoded at 1/2 as 150×101 into the smaller boxes, at full size into 320×240
        let data = try jpeg(photo(), quality: 80, strip: true)
        let boxes: [(Int, Int, Int32, Int32, Bool)] = [
            (150, 101, VipsSize.both, VipsInteresting.none, true),
            (150, 500, VipsSize.both, VipsInteresting.none, true),
            (151, 101, VipsSize.both, VipsInteresting.none, true),
            (320, 240, VipsSize.down, VipsInteresting.none, true),
            (149, 100, VipsSize.both, VipsInteresting.none, false),
            (150, 101, VipsSize.force, VipsInteresting.none, false),
            (140, 90, VipsSize.both, VipsInteresting.centre, false)
        ]
        for (width, height, size, crop, kept) in boxes {
            let name = "\(width)×\(height) size \(size) crop \(crop)"
            let decoded = try Decoder.thumbnail(
                DWImage(data: data), width: width, height: height, size: size, crop: crop)
            let frame = decoded.frames[0]
            XCTAssertEqual(cvips_memory_pixels(frame.pointer) != nil, kept, "\(name): the decoded image itself")
            let shrink = JPEGShrink.factor(
                sourceWidth: 301, sourceHeight: 203, width: width, height: height, size: size, crop: crop)
            let source = try loader(data, shrink: shrink)
            let reference = try Vips.make("thumbnail") {
                cvips_thumbnail_image(source.pointer, Int32(width), Int32(height), size, crop, $0)
            }
            XCTAssertEqual([frame.width, frame.height], [reference.width, reference.height], name)
            XCTAssertTrue(pixels(frame) == pixels(reference), "\(name): the same pixels")
        }
        let oriented = try Decoder.thumbnail(
            DWImage(data: jpeg(photo(), quality: 80)), width: 150, height: 101, size: VipsSize.both,
            crop: VipsInteresting.none)
        XCTAssertNil(cvips_memory_pixels(oriented.frames[0].pointer), "an EXIF orientation: libvips' thumbnail")
    }
}
