// JPEGHereTests: the JPEG compressed on the calling thread is byte for byte what libvips' saver writes, and a
// pipeline computed on the calling thread holds the pixels libvips' thread pool computes.
import CJpeg
import CVips
import DWTestServer
import DWWebImage
@testable import DWWebImageProcessing
import Foundation
import XCTest

final class JPEGHereTests: XCTestCase {
    /// The PNGs `photo()` decoded: libvips reads a source's bytes lazily, so they must outlive its pipelines.
    private var sources: [Canvas] = []

    /// A 301×203 picture with edges, gradients and noise (odd sizes: partial MCUs at the right and bottom).
    private func photo() throws -> VImage {
        var state: UInt32 = 12345
        let png = SampleImages.png(width: 301, height: 203) { x, y in
            state = state &* 1_103_515_245 &+ 12345
            let noise = UInt8(truncatingIfNeeded: state >> 24) / 8
            let r = UInt8((x * 255) / 300) / 2 + noise
            let g = UInt8((y * 255) / 202) / 2 + (x / 37 % 2 == 0 ? 90 : 10)
            let b = UInt8(((x + y) * 3) % 256) / 2 + noise
            return (r, g, b, 255)
        }
        var canvas = try Canvas(pending: DWImage(data: png))
        try canvas.decode()
        sources.append(canvas)
        let opaque = try Vips.make("flatten") { cvips_flatten(canvas.frames[0].pointer, 255, 255, 255, $0) }
        // A lazy pipeline (a resize after the decode), so rendering it computes something.
        return try Vips.make("resize") { cvips_resize(opaque.pointer, 0.9, 0.9, $0) }
    }

    private func rendered(_ image: VImage) throws -> VImage {
        try Vips.make("render") { cvips_render_here(image.pointer, $0) }
    }

    func testRenderingOnTheCallingThreadComputesThePixelsTheThreadPoolDoes() throws {
        let pipeline = try photo()
        let here = try rendered(pipeline)
        let pooled = try Vips.make("copy") { cvips_copy_memory(pipeline.pointer, $0) }
        XCTAssertNotNil(cvips_memory_pixels(here.pointer), "the result is a memory image")
        XCTAssertNil(cvips_memory_pixels(pipeline.pointer), "a pipeline has no pixels until computed")
        XCTAssertEqual([here.width, here.height, here.bands], [pooled.width, pooled.height, pooled.bands])
        let (a, b) = (pixels(here), pixels(pooled))
        XCTAssertEqual(a.count, 271 * 183 * 3)
        XCTAssertTrue(a == b, "same pixels")
        let again = try rendered(here)
        XCTAssertEqual(again.pointer, here.pointer, "an image in memory is returned as it is")
    }

    func testJPEGCompressedHereIsTheBytesLibvipsWrites() throws {
        let colour = try rendered(photo())
        // VIPS_INTERPRETATION_B_W
        let grey = try rendered(Vips.make("grey") { cvips_colourspace(colour.pointer, 1, $0) })
        XCTAssertEqual(grey.bands, 1)
        for (name, image) in [("sRGB", colour), ("grey", grey)] {
            for quality in [1, 50, 80, 89, 90, 100] {  // 4:2:0 below 90, 4:4:4 from 90
                let here = try XCTUnwrap(Encoder.saveJPEGHere(image, quality: quality), "\(name) q\(quality)")
                let libvips = try Encoder.save(image, format: .jpeg, quality: quality, onThisThread: false)
                XCTAssertTrue(here == libvips, "\(name) q\(quality): \(here.count) vs \(libvips.count) bytes")
                let decoded = try DWImage(data: here)
                XCTAssertEqual([decoded.pixelWidth, decoded.pixelHeight], [271, 183])
                if name == "sRGB", quality == 100 {  // outgrows its first buffer (a quarter of the pixels + 4 KiB)
                    XCTAssertGreaterThan(here.count, 271 * 183 * 3 / 4 + 4096)
                }
            }
        }
    }

    func testLibjpegRefusalsComeBackAsMessages() {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let row = [UInt8](repeating: 128, count: 70_000 * 3)
        let status = cjpeg_encode(row, 70_000, 1, 3, row.count, 80, 1, 1, &output, &length, &message, message.count)
        XCTAssertEqual(status, -1)
        XCTAssertNil(output)
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        XCTAssertTrue(text.contains("65500"), "libjpeg's own reason: \(text)")
        XCTAssertEqual(cjpeg_encode(row, 0, 1, 3, 0, 80, 1, 1, &output, &length, &message, message.count), -1)
        XCTAssertEqual(cjpeg_encode(row, 10, 1, 4, 40, 80, 1, 1, &output, &length, &message, message.count), -1)
    }

    func testImagesThisPathDoesNotWriteAreLeftToLibvips() throws {
        let pipeline = try photo()
        XCTAssertNil(try Encoder.saveJPEGHere(pipeline, quality: 80), "not in memory: never computed here")
        let withAlpha = try rendered(Vips.make("alpha") { cvips_bandjoin_const1(pipeline.pointer, 255, $0) })
        XCTAssertNil(try Encoder.saveJPEGHere(withAlpha, quality: 80), "4 bands")
        let wide = try rendered(Vips.make("ushort") { cvips_cast(pipeline.pointer, 2, $0) })  // VIPS_FORMAT_USHORT
        XCTAssertNil(try Encoder.saveJPEGHere(wide, quality: 80), "16-bit")
    }
}
