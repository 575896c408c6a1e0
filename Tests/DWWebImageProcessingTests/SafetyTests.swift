// SafetyTests: limits refuse before decoding, truncated bodies are 10000 with verification, bombs stay small.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class SafetyTests: XCTestCase {
    override func tearDown() {
        DWImageProcessing.limits = DWProcessingLimits()
    }

    /// Peak resident memory (VmHWM) of this process in bytes, after resetting it (clear_refs 5) before `body`.
    private func peakRSSGrowth(_ body: () throws -> Void) rethrows -> Int? {
        func value(_ key: String) -> Int? {
            guard let status = readProcFile("/proc/self/status") else { return nil }
            for line in status.split(separator: "\n") where line.hasPrefix(key) {
                return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
            }
            return nil
        }
        guard let fd = Optional(open("/proc/self/clear_refs", O_WRONLY)), fd >= 0 else { return nil }
        _ = write(fd, "5", 1)
        close(fd)
        guard let before = value("VmRSS:") else { return nil }
        try body()
        return value("VmHWM:").map { $0 - before }
    }

    /// An 8-bit RGBA PNG header claiming `width` × `height`, with a tiny IDAT.
    private func pngHeader(width: UInt32, height: UInt32) -> Data {
        func be(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += be(13) + Array("IHDR".utf8) + be(width) + be(height) + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
        bytes += be(2) + Array("IDAT".utf8) + [0x78, 0x9C] + [0, 0, 0, 0]
        bytes += be(0) + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        return Data(bytes)
    }

    /// A 30000×30000 PNG header is refused (10005) by the limits before libvips sees it: memory stays flat.
    func testHugePNGHeaderRefusedBeforeDecoding() throws {
        let image = try DWImage(data: pngHeader(width: 30000, height: 30000), maxPixelCount: .max)
        let growth = try peakRSSGrowth {
            for attempt in [
                { _ = try image.bitmap() }, { try image.verifyDecodes() },
                { _ = try DWResize(width: 100, height: 100).process(image) },
                { _ = try DWGrayscale().process(image) }
            ] as [() throws -> Void] {
                XCTAssertThrowsError(try attempt()) { error in
                    XCTAssertEqual((error as? DWWebImageError)?.code, .tooLarge)
                    XCTAssertEqual((error as? DWWebImageError)?.size, 900_000_000)
                }
            }
        }
        guard let growth else {
            throw MissingPrerequisite("/proc/self/clear_refs is not writable: peak RSS cannot be reset")
        }
        XCTAssertLessThan(growth, 16 << 20, "peak RSS grew by \(growth) bytes")
    }

    func testFrameAndByteLimits() throws {
        let gif = try Fixtures.image("anim12.gif")  // 12 frames of 40×30
        DWImageProcessing.limits = DWProcessingLimits(maxFrameCount: 11)
        XCTAssertEqual(code { _ = try DWResize(width: 10, height: nil).process(gif) }, .tooLarge)
        DWImageProcessing.limits = DWProcessingLimits(maxTotalPixelCount: 12 * 40 * 30 - 1)
        XCTAssertEqual(code { _ = try DWResize(width: 10, height: nil).process(gif) }, .tooLarge)
        DWImageProcessing.limits = DWProcessingLimits(maxTotalPixelCount: 12 * 40 * 30)
        XCTAssertNil(code { _ = try DWResize(width: 10, height: nil).process(gif) })
        DWImageProcessing.limits = DWProcessingLimits(maxByteCount: 100)
        XCTAssertEqual(code { _ = try Fixtures.image("q.jpg").bitmap() }, .tooLarge)
        DWImageProcessing.limits = DWProcessingLimits(maxPixelCount: 64 * 48 - 1)
        XCTAssertEqual(code { _ = try Fixtures.image("q.bmp").bitmap() }, .tooLarge)
    }

    private func code(_ body: () throws -> Void) -> DWWebImageError.Code? {
        do { try body(); return nil } catch { return (error as? DWWebImageError)?.code ?? .cacheIO }
    }

    /// A 512×384 image with detail everywhere, in `format`.
    private func detailed(_ format: DWImageFormat) throws -> Data {
        let chain: [any DWImageProcessor] = [
            DWResize(width: 512, height: nil, enlarge: true), DWBlur(sigma: 0.7),
            DWConvert(format: format, quality: 90)
        ]
        return try DWImageProcessors.apply(chain, to: Fixtures.image("q.jpg")).data
    }

    /// Truncated JPEG, PNG and WebP bodies keep a valid header (DWImage accepts them) but do not decode: 10000 from
    /// verifyDecodes(), bitmap() and processing; the whole bodies pass.
    func testTruncatedBodiesAre10000WhenVerified() throws {
        for format in [DWImageFormat.jpeg, .png, .webp] {
            let whole = try detailed(format)
            XCTAssertNoThrow(try DWImage(data: whole).verifyDecodes(), "\(format) whole")
            let cut = try DWImage(data: whole.prefix(whole.count * 6 / 10))
            XCTAssertEqual(cut.format, format)
            for (what, attempt) in [
                ("verify", { try cut.verifyDecodes() }), ("bitmap", { _ = try cut.bitmap() }),
                ("resize", { _ = try DWResize(width: 64, height: nil).process(cut) })
            ]
                as [(String, () throws -> Void)]
            {
                XCTAssertThrowsError(try attempt(), "\(format) \(what)") { error in
                    XCTAssertEqual((error as? DWWebImageError)?.code, .notAnImage, "\(format) \(what)")
                    XCTAssertFalse((error as? DWWebImageError)?.message.isEmpty ?? true)
                }
            }
        }
    }

    func testTruncatedGIFIs10000WhenVerified() throws {
        let whole = try Fixtures.data("anim12.gif")
        let cut = try DWImage(data: whole.prefix(whole.count * 7 / 10))
        XCTAssertTrue(cut.isPartial)
        XCTAssertEqual(code { try cut.verifyDecodes() }, .notAnImage)
        XCTAssertNoThrow(try DWImage(data: whole).verifyDecodes())
    }

    /// zTXt and iCCP chunks that inflate to 200 MiB each: libpng's chunk limits (libvips' unlimited=false) keep
    /// memory small; the 8×8 pixels still decode.
    func testAncillaryChunkBombStaysSmall() throws {
        let image = try Fixtures.image("ztxt-bomb.png")
        var bitmap: DWBitmap?
        let growth = peakRSSGrowth {
            bitmap = try? image.bitmap()
            _ = try? image.verifyDecodes()
            _ = try? DWResize(width: 4, height: nil).process(image)
        }
        if let bitmap { XCTAssertEqual([bitmap.width, bitmap.height], [8, 8]) }
        guard let growth else {
            throw MissingPrerequisite("/proc/self/clear_refs is not writable: peak RSS cannot be reset")
        }
        XCTAssertLessThan(growth, 48 << 20, "peak RSS grew by \(growth) bytes")
    }

    /// Bytes libvips cannot read (garbage after a valid signature and size) are 10000 with libvips' reason.
    func testUndecodableIs10000WithReason() throws {
        var jpeg = try Fixtures.data("q.jpg")
        let sos = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        jpeg.replaceSubrange((sos + 2)..<jpeg.count, with: Data(repeating: 0xFF, count: jpeg.count - sos - 2))
        let image = try DWImage(data: jpeg)
        XCTAssertThrowsError(try image.verifyDecodes()) { error in
            let e = error as? DWWebImageError
            XCTAssertEqual(e?.code, .notAnImage)
            XCTAssertTrue(e?.message.contains("jpeg") ?? false, e?.message ?? "")
        }
    }

    /// Inputs made of random bytes after every known signature never crash and fail with 10000/10005.
    /// A HEIC's EXIF (copyright kept by default) and colours, through a resize into each output format, arrive
    /// whole. libvips 8.14's HEIF loader leaves its EXIF, XMP and ICC blocks pointing into memory it frees during the
    /// load, and `vips_thumbnail_buffer` made loads of its own; the decoder now loads HEIF itself and gives each
    /// block a copy of its own. Here the freed memory still held the same bytes, so this test passed before that
    /// change too: the use-after-free itself is AddressSanitizer's to see, in fuzz/pixels-fuzzer, whose seeds hold
    /// this file (`seed-heic-exif-icc.heic`).
    func testHEICMetadataSurvivesAResize() throws {
        let source = try Fixtures.image("exif-icc.heic")
        for format in [DWImageFormat.jpeg, .png, .heic] {
            let chain: [any DWImageProcessor] = [DWResize(width: 32, height: 32), DWConvert(format: format)]
            let output = try DWImageProcessors.apply(chain, to: source)
            XCTAssertEqual([output.pixelWidth, output.pixelHeight], [32, 24], "\(format)")
            let header = try VipsHeader.all(output.data)
            XCTAssertTrue(header.contains("exif-ifd0-Copyright: ACME-COPYRIGHT"), "\(format): \(header)")
            let pixel = try output.bitmap().rgba(x: 16, y: 12)
            let distance = [Int(pixel.r) - 200, Int(pixel.g) - 100, Int(pixel.b) - 50].map(abs).max() ?? 0
            XCTAssertLessThanOrEqual(distance, 8, "\(format): colour \(pixel)")
        }
    }

    func testRandomBodiesNeverCrash() throws {
        var generator = SystemRandomNumberGenerator()
        let signatures: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            Array("GIF89a".utf8), Array("BM".utf8), [0x49, 0x49, 0x2A, 0x00]
        ]
        for signature in signatures {
            for length in [16, 64, 300] {
                let body = signature + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                guard let image = try? DWImage(data: Data(body)) else { continue }
                let outcome = code { _ = try image.bitmap() }
                XCTAssertTrue(outcome == nil || outcome == .notAnImage || outcome == .tooLarge)
            }
        }
    }
}
