// Netpbm (PBM, PGM, PPM, PFM) read by libvips' ppmload from memory: sniffed with comments in the header, decoded,
// resized, a cut file refused by --verify; and left out of serve's default source formats.
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class PNMTests: XCTestCase {
    /// A 6×4 binary PPM (P6) with a comment in its header: red on the left half, blue on the right.
    static let ppm: Data = {
        var bytes = Array("P6\n# made by PNMTests\n6 4\n255\n".utf8)
        for _ in 0..<4 { for x in 0..<6 { bytes += x < 3 ? [255, 0, 0] : [0, 0, 255] } }
        return Data(bytes)
    }()

    func testPPMPGMAndPBMAreReadDecodedAndResized() throws {
        let image = try DWImage(data: Self.ppm)
        XCTAssertEqual(image.format, .pnm)
        XCTAssertEqual([image.pixelWidth, image.pixelHeight, image.frameCount], [6, 4, 1])
        XCTAssertNoThrow(try image.verifyDecodes())
        let bitmap = try image.bitmap()
        XCTAssertEqual([bitmap.width, bitmap.height], [6, 4])
        XCTAssertTrue(bitmap.rgba(x: 0, y: 0) == (255, 0, 0, 255))
        XCTAssertTrue(bitmap.rgba(x: 5, y: 3) == (0, 0, 255, 255))
        let small = try DWResize(width: 3, height: 3).process(image)
        XCTAssertEqual(small.format, .png, "libvips does not write PNM: PNG")
        XCTAssertEqual([small.pixelWidth, small.pixelHeight], [3, 2])

        let pgm = try DWImage(data: Data("P2 3 2 255\n0 128 255\n255 128 0\n".utf8))
        XCTAssertEqual([pgm.pixelWidth, pgm.pixelHeight], [3, 2])
        XCTAssertTrue(try pgm.bitmap().rgba(x: 2, y: 0) == (255, 255, 255, 255))
        let pbm = try DWImage(data: Data("P4\n8 2\n".utf8) + Data([0b1010_1010, 0xFF]))
        XCTAssertEqual(pbm.format, .pnm)
        XCTAssertNoThrow(try pbm.verifyDecodes())
        XCTAssertEqual(DWImageFormat(name: "PGM"), .pnm)
        XCTAssertEqual(DWImageFormat.pnm.mimeType, "image/x-portable-anymap")
    }

    func testACutPPMFailsVerifyAndAMalformedHeaderIsNotAnImage() throws {
        let cut = try DWImage(data: Self.ppm.prefix(Self.ppm.count - 10))
        XCTAssertThrowsError(try cut.verifyDecodes()) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage, "\($0)")
        }
        for text in ["P6\n6", "P6 x 4 255\n", "P9 6 4 255\n", "P6"] {
            XCTAssertThrowsError(try DWImage(data: Data(text.utf8)), text) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage, text)
            }
        }
    }

    /// The attacks: a maxval past Netpbm's 65535 (libvips would read 32-bit samples) or of 0, dimensions past the
    /// pixel limit or past ten digits, a PFM whose scale or samples are NaN or infinite. Each a clear error from the
    /// header or before libvips decodes, and the next file fine.
    func testAbsurdMaxvalDimensionsAndNonFinitePFMAreRefused() throws {
        for header in [
            "P6\n4 4\n70000\n", "P5 4 4 0\n", "PF\n2 2\nnan\n", "Pf\n2 2\n0\n", "Pf 2 2 inf\n",
            "P6 12345678901 2 255\n"
        ] {
            let data = Data(header.utf8) + Data(count: 4 * 4 * 6)
            XCTAssertThrowsError(try DWImage(data: data), header) {
                XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage, "\(header): \($0)")
            }
        }
        let huge = Data("P6 99999999 99999999 255\n".utf8) + Data(count: 64)
        XCTAssertThrowsError(try DWImage(data: huge)) { XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge) }

        let finite: [Float] = [0.5, 0.25, 1, 0.75]
        for (index, bad) in [Float.nan, .infinity, -.infinity].enumerated() {
            for (magic, scale, bigEndian) in [("Pf", "-1.0", false), ("Pf", "1.0", true)] {
                var samples = finite
                samples[index + 1] = bad
                let raster = samples.flatMap { sample in
                    withUnsafeBytes(
                        of: bigEndian ? sample.bitPattern.bigEndian : sample.bitPattern.littleEndian, Array.init)
                }
                let pfm = try DWImage(data: Data("\(magic)\n2 2\n\(scale)\n".utf8) + Data(raster))
                XCTAssertThrowsError(try pfm.verifyDecodes(), "\(bad) \(scale)") {
                    let error = $0 as? DWWebImageError
                    XCTAssertEqual(error?.code, .notAnImage)
                    XCTAssertEqual(error?.message.contains("sample \(index + 1) is not a finite"), true, "\($0)")
                }
                XCTAssertThrowsError(try pfm.bitmap()) { XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage) }
            }
        }
        let fine =
            Data("Pf\n2 2\n-1.0\n".utf8)
            + Data(finite.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
        XCTAssertNoThrow(try DWImage(data: fine).verifyDecodes(), "the next file is fine")
        XCTAssertEqual([try DWImage(data: Self.ppm).bitmap().width], [6])
    }
}
