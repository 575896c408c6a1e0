// FITS (libvips' fitsload, cfitsio, from a private temporary file): sniffed by its header, decoded upright as Pillow
// reads it, resized, verified; and the attacks: a header claiming 100000×100000 (or a third axis as large), a file
// cut short, BITPIX 0 or absurd, NAXIS 0 with no extension, too many axes. Each a 10000 or 10005, before libvips
// sees the bytes, and the next decode fine.
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class FITSTests: XCTestCase {
    /// A FITS file: the primary header's cards (SIMPLE first, END added), padded to 2880 bytes, then `data`.
    static func fits(_ cards: [(String, String)], data: [UInt8] = []) -> Data {
        var header = ""
        for (key, value) in [("SIMPLE", "T")] + cards {
            let card =
                key.padding(toLength: 8, withPad: " ", startingAt: 0) + "= "
                + String(repeating: " ", count: max(0, 20 - value.count)) + value
            header += card.padding(toLength: 80, withPad: " ", startingAt: 0)
        }
        header += "END".padding(toLength: 80, withPad: " ", startingAt: 0)
        let padded = header.padding(toLength: (header.count + 2879) / 2880 * 2880, withPad: " ", startingAt: 0)
        let dataPadding = (2880 - data.count % 2880) % 2880
        return Data(padded.utf8) + Data(data) + Data(count: dataPadding)
    }

    /// 8×6, BITPIX 8: value 40·row + 5·column, rows as stored (FITS' first row is the bottom one).
    static let small = fits(
        [("BITPIX", "8"), ("NAXIS", "2"), ("NAXIS1", "8"), ("NAXIS2", "6")],
        data: (0..<48).map { (i: Int) -> UInt8 in UInt8(i / 8 * 40 + i % 8 * 5) })

    /// 8×6, BITPIX 16 (big-endian): 30·row + column.
    static let sixteen = fits(
        [("BITPIX", "16"), ("NAXIS", "2"), ("NAXIS1", "8"), ("NAXIS2", "6")],
        data: (0..<48).flatMap { (i: Int) -> [UInt8] in [0, UInt8(i / 8 * 30 + i % 8)] })

    /// Pillow's reading of `data` converted to 8-bit grey ("L"), row by row from the top.
    static func pillow(_ data: Data) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fits-\(UUID().uuidString).fits")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let out = try Python.system.script(
            """
            import sys
            from PIL import Image
            im = Image.open(sys.argv[1]).convert("L")
            print(",".join(str(v) for v in im.tobytes()))
            """, arguments: [file.path])
        return out.split(separator: ",").map { UInt8($0.trimmingCharacters(in: .whitespacesAndNewlines))! }
    }

    func testFITSIsReadUprightAsPillowReadsItResizedAndNotWritten() throws {
        for data in [Self.small, Self.sixteen] {
            let image = try DWImage(data: data)
            XCTAssertEqual(image.format, .fits)
            XCTAssertEqual([image.pixelWidth, image.pixelHeight, image.frameCount], [8, 6, 1])
            XCTAssertNoThrow(try image.verifyDecodes())
            let bitmap = try image.bitmap()
            XCTAssertEqual([bitmap.width, bitmap.height], [8, 6])
            var grey: [UInt8] = []
            for y in 0..<6 {
                for x in 0..<8 {
                    let p = bitmap.rgba(x: x, y: y)
                    XCTAssertTrue(p.r == p.g && p.g == p.b && p.a == 255)
                    grey.append(p.r)
                }
            }
            XCTAssertEqual(grey, try Self.pillow(data), "the same pixels, the same way up, as Pillow")
            let resized = try DWResize(width: 4, height: 4).process(image)
            XCTAssertEqual(resized.format, .png, "FITS is not written: PNG")
            XCTAssertEqual([resized.pixelWidth, resized.pixelHeight], [4, 3])
        }
        XCTAssertEqual(DWImageFormat(name: "FTS"), .fits)
        XCTAssertEqual(DWImageFormat.fits.mimeType, "image/fits")
        XCTAssertFalse(DWImageFormat.fits.isWritable)
        XCTAssertNil(DWImageFormat(conversionTargetNamed: "fits"))
    }

    func testPillowsFITSFilesAreRead() throws {
        let (images, _) = try PillowCorpusTests.corpus()
        for (name, size) in [("hopper.fits", [128, 128]), ("m13.fits", [300, 300]), ("m13_gzip.fits", [300, 300])] {
            let image = try DWImage(data: Data(contentsOf: images.appendingPathComponent(name)))
            XCTAssertEqual(image.format, .fits, name)
            XCTAssertEqual([image.pixelWidth, image.pixelHeight], size, name)
            XCTAssertNoThrow(try image.verifyDecodes(), name)
        }
    }

    func testAHeaderClaiming100000SquareIsRefusedFromTheHeader() throws {
        let square = Self.fits([("BITPIX", "8"), ("NAXIS", "2"), ("NAXIS1", "100000"), ("NAXIS2", "100000")])
        let deep = Self.fits([
            ("BITPIX", "-64"), ("NAXIS", "3"), ("NAXIS1", "100"), ("NAXIS2", "100"), ("NAXIS3", "100000")
        ])
        let before = try JPEG2000Tests.resetPeakRSS()
        XCTAssertThrowsError(try DWImage(data: square)) { JPEG2000Tests.assertCode($0, .tooLarge) }
        let image = try DWImage(data: deep)
        XCTAssertEqual([image.pixelWidth, image.pixelHeight], [100, 100])
        XCTAssertThrowsError(try image.verifyDecodes()) { JPEG2000Tests.assertCode($0, .tooLarge, "100×100×100000") }
        XCTAssertThrowsError(try image.bitmap()) { JPEG2000Tests.assertCode($0, .tooLarge) }
        XCTAssertThrowsError(try DWResize(width: 10, height: 10).process(image)) {
            JPEG2000Tests.assertCode($0, .tooLarge)
        }
        let grown = try JPEG2000Tests.peakRSS() - before
        XCTAssertLessThan(grown, 64 << 20, "peak RSS grew by \(grown >> 20) MiB")
        XCTAssertNoThrow(try DWImage(data: Self.small).verifyDecodes(), "the next file is fine")
    }

    func testMalformedHeadersAreNotAnImage() throws {
        let axes = [("NAXIS1", "8"), ("NAXIS2", "6")]
        let bad: [(String, Data)] = [
            ("BITPIX 0", Self.fits([("BITPIX", "0"), ("NAXIS", "2")] + axes)),
            ("BITPIX 7", Self.fits([("BITPIX", "7"), ("NAXIS", "2")] + axes)),
            ("BITPIX absurd", Self.fits([("BITPIX", "99999999999999999999999")] + [("NAXIS", "2")] + axes)),
            ("no BITPIX", Self.fits([("NAXIS", "2")] + axes)),
            ("NAXIS 0, no extension", Self.fits([("BITPIX", "8"), ("NAXIS", "0")])),
            ("NAXIS 1", Self.fits([("BITPIX", "8"), ("NAXIS", "1"), ("NAXIS1", "8")])),
            ("NAXIS 1000", Self.fits([("BITPIX", "8"), ("NAXIS", "1000")] + axes)),
            ("NAXIS -2", Self.fits([("BITPIX", "8"), ("NAXIS", "-2")] + axes)),
            (
                "NAXIS 4, NAXIS4 2",
                Self.fits([("BITPIX", "8"), ("NAXIS", "4")] + axes + [("NAXIS3", "1"), ("NAXIS4", "2")])
            ),
            ("NAXIS2 missing", Self.fits([("BITPIX", "8"), ("NAXIS", "2"), ("NAXIS1", "8")])),
            ("no END", Self.small.prefix(80 * 5)),
            (
                "SIMPLE = F",
                Data(String(decoding: Self.small, as: UTF8.self).replacingOccurrences(of: "   T", with: "   F").utf8)
            )
        ]
        for (why, data) in bad {
            XCTAssertThrowsError(try DWImage(data: data).verifyDecodes(), why) {
                JPEG2000Tests.assertCode($0, .notAnImage)
            }
        }
        XCTAssertNoThrow(try DWImage(data: Self.small).verifyDecodes(), "the next file is fine")
    }

    /// Every prefix of a file: refused when read or when verified (10000 before libvips when the data unit is
    /// short), never a crash, never passed as whole.
    func testEveryCutIsRefused() throws {
        for data in [Self.small, Self.sixteen] {
            let end = 2880 + (data == Self.small ? 48 : 96)
            var passed: [Int] = []
            for length in stride(from: 0, to: end, by: 11) {
                guard let image = try? DWImage(data: data.prefix(length)) else { continue }
                // Once the header is whole, the short data unit is refused from the header, before libvips reads it.
                XCTAssertThrowsError(try image.verifyDecodes()) {
                    JPEG2000Tests.assertCode($0, .notAnImage, length >= 2880 ? "FITS data ends at byte \(length)" : "")
                }
                if (try? image.bitmap()) != nil { passed.append(length) }
            }
            XCTAssertEqual(passed, [], "cuts that decode")
        }
        XCTAssertNoThrow(try DWImage(data: Self.sixteen).verifyDecodes(), "the next file is fine")
    }
}
