// Format sniffing and header reading: every sample format, and hostile bytes that must never trap.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class ImageSnifferTests: XCTestCase {
    func testSampleFormatsAndSizes() throws {
        let cases: [(Data, DWImageFormat, Int, Int)] = [
            (SampleImages.png(width: 37, height: 21), .png, 37, 21),
            (SampleImages.jpeg, .jpeg, 16, 12),
            (SampleImages.gif(width: 33, height: 17), .gif, 33, 17),
            (SampleImages.webp, .webp, 16, 12),
            (SampleImages.webpLossless, .webp, 16, 12),
            (SampleImages.bmp(width: 13, height: 7), .bmp, 13, 7),
            (SampleImages.tiff(width: 13, height: 7), .tiff, 13, 7)
        ]
        for (data, format, width, height) in cases {
            let image = try DWImage(data: data)
            XCTAssertEqual(image.format, format)
            XCTAssertEqual(image.pixelWidth, width, "\(format)")
            XCTAssertEqual(image.pixelHeight, height, "\(format)")
            XCTAssertEqual(image.frameCount, 1)
            XCTAssertEqual(image.loopCount, 0)
        }
    }

    func testAnimatedGIFFramesAndLoops() throws {
        let forever = try DWImage(data: SampleImages.gif(width: 8, height: 8, frames: 3, loopCount: 0))
        XCTAssertEqual(forever.frameCount, 3)
        XCTAssertEqual(forever.loopCount, 0)
        XCTAssertEqual(try DWImage(data: SampleImages.gif(width: 8, height: 8, frames: 2, loopCount: 3)).loopCount, 3)
        XCTAssertEqual(
            try DWImage(data: SampleImages.gif(width: 8, height: 8, frames: 2)).loopCount, 1, "no NETSCAPE2.0: once")
    }

    /// The loop count has one rule (``GIFLoopExtension``) for the header facts, the Swift walk and giflib's index:
    /// an ANIMEXTS1.0 block and a loop sub-block longer than 3 bytes count in all three (the sniffer read neither).
    func testTheLoopCountIsTheSameFromTheHeaderAndFromTheImage() throws {
        var gif = [UInt8](SampleImages.gif(width: 8, height: 8, frames: 2, loopCount: 3))
        let netscape = Array("NETSCAPE2.0".utf8)
        let at = try XCTUnwrap((0...(gif.count - netscape.count)).first { Array(gif[$0..<$0 + 11]) == netscape })
        gif.replaceSubrange(at..<at + 11, with: Array("ANIMEXTS1.0".utf8))
        let animexts = Data(gif)
        // The loop sub-block with a fourth byte (length 4: ID 1, loops 3, one byte more).
        gif.replaceSubrange(at..<at + 11, with: netscape)
        gif.replaceSubrange(at + 11..<at + 15, with: [0x04, 0x01, 0x03, 0x00, 0x00])
        for (name, data) in [("ANIMEXTS1.0", animexts), ("a 4-byte sub-block", Data(gif))] {
            let header = try XCTUnwrap(ImageSniffer.inspect(data), name)
            let image = try DWImage(data: data)
            XCTAssertEqual(header.loopCount, 3, name)
            XCTAssertEqual(image.loopCount, 3, name)
            XCTAssertEqual(image.animatedImage()?.loopCount, 3, name)
        }
    }

    func testHEIFAndAVIFByFtypAndIspe() throws {
        func isobmff(_ brand: String, width: UInt32, height: UInt32) -> Data {
            var d = Data([0, 0, 0, 24]) + Data("ftyp".utf8) + Data(brand.utf8) + Data([0, 0, 0, 0]) + Data("mif1".utf8)
            d += Data([0, 0, 0, 20]) + Data("ispe".utf8) + Data([0, 0, 0, 0])
            d += withUnsafeBytes(of: width.bigEndian) { Data($0) } + withUnsafeBytes(of: height.bigEndian) { Data($0) }
            return d
        }
        let avif = try DWImage(data: isobmff("avif", width: 640, height: 480))
        XCTAssertEqual(avif.format, .avif)
        XCTAssertEqual(avif.pixelWidth, 640)
        let heic = try DWImage(data: isobmff("heic", width: 100, height: 50))
        XCTAssertEqual(heic.format, .heic)
        XCTAssertEqual(heic.pixelHeight, 50)
    }

    /// A file whose first `ispe` is a thumbnail's (item 1, 64×64): the size is the primary item's (item 2), as
    /// `pitm` and `ipma` say, the way libheif and libvips read it.
    func testHEIFSizeIsThePrimaryItemsNotTheFirstIspe() throws {
        func u32(_ v: UInt32) -> Data { withUnsafeBytes(of: v.bigEndian) { Data($0) } }
        func box(_ type: String, _ payload: Data) -> Data { u32(UInt32(8 + payload.count)) + Data(type.utf8) + payload }
        func ispe(_ w: UInt32, _ h: UInt32) -> Data { box("ispe", Data([0, 0, 0, 0]) + u32(w) + u32(h)) }
        let ipco = box("ipco", ispe(64, 64) + ispe(3000, 2000))
        // ipma version 0, flags 0: item 1 → property 1, item 2 → property 2 (essential bit set on both).
        let ipma = box("ipma", Data([0, 0, 0, 0]) + u32(2) + Data([0, 1, 1, 0x81]) + Data([0, 2, 1, 0x82]))
        let meta = box("meta", Data([0, 0, 0, 0]) + box("pitm", Data([0, 0, 0, 0, 0, 2])) + box("iprp", ipco + ipma))
        let file = box("ftyp", Data("heic".utf8) + Data([0, 0, 0, 0]) + Data("mif1".utf8)) + meta
        let heic = try DWImage(data: file)
        XCTAssertEqual(heic.format, .heic)
        XCTAssertEqual(heic.pixelWidth, 3000)
        XCTAssertEqual(heic.pixelHeight, 2000)
        // The same file cut inside `ipma`: the structure is unreadable, the first `ispe` is the fallback.
        XCTAssertEqual(try DWImage(data: file.prefix(file.count - 3)).pixelWidth, 64)
    }

    func testTruncationsAndGarbageAreRejectedWithoutTrapping() {
        let samples = [
            SampleImages.png(width: 9, height: 9), SampleImages.jpeg, SampleImages.gif(width: 4, height: 4, frames: 2),
            SampleImages.webp, SampleImages.bmp(width: 3, height: 3), SampleImages.tiff(width: 3, height: 3)
        ]
        for sample in samples {
            for cut in 0..<min(sample.count, 40) {
                _ = try? DWImage(data: sample.prefix(cut))  // must not trap; most are rejected
            }
            XCTAssertThrowsError(try DWImage(data: sample.prefix(8)))
        }
        var rng = SplitMix(seed: 42)
        for _ in 0..<5000 {
            let length = Int(rng.next() % 64)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Seed some with real magic so the per-format parsers run on garbage.
            let magics: [[UInt8]] = [
                [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF], Array("GIF89a".utf8),
                Array("RIFF\0\0\0\0WEBP".utf8), Array("BM".utf8), [0x49, 0x49, 0x2A, 0], [0x4D, 0x4D, 0, 0x2A]
            ]
            let magic = magics[Int(rng.next() % UInt64(magics.count))]
            if bytes.count >= magic.count { bytes.replaceSubrange(0..<magic.count, with: magic) }
            _ = try? DWImage(data: Data(bytes))
        }
        XCTAssertThrowsError(try DWImage(data: Data())) { error in
            XCTAssertEqual((error as? DWWebImageError)?.code, .notAnImage)
        }
    }

    func testHugeDeclaredGIFScreenIs10005WithoutAllocation() {
        var gif = SampleImages.gif(width: 4, height: 4)
        gif[6] = 0xFF; gif[7] = 0xFF; gif[8] = 0xFF; gif[9] = 0xFF  // 65535 × 65535 logical screen
        XCTAssertThrowsError(try DWImage(data: gif)) { error in
            XCTAssertEqual((error as? DWWebImageError)?.code, .tooLarge)
        }
    }
}
