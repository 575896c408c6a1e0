// ICO's four-byte magic is weak: a true-colour TGA starts 00 00 02 00 (CUR's). No ICO without a valid directory.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class IcoSniffTests: XCTestCase {
    func testTrueColourTGAIsNotGuessedAsIcoOrCur() {
        // An 18-byte TGA header (no ID, no colour map, type 2, 2×2, 24 bits) and four BGR pixels.
        var tga: [UInt8] = [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0]
        tga += [UInt8](repeating: 0x80, count: 12)
        XCTAssertEqual(ImageSniffer.format(of: Data(tga)), .unknown)
        // Even when its colour-map bytes happen to read as an entry count.
        tga[5] = 1
        XCTAssertEqual(ImageSniffer.format(of: Data(tga + [UInt8](repeating: 0, count: 16))), .unknown)
    }

    func testIcoWithAValidDirectoryIsStillIco() {
        let png = SampleImages.png(width: 16, height: 16)
        var ico: [UInt8] = [0, 0, 1, 0, 1, 0]
        ico += [16, 16, 0, 0, 1, 0, 32, 0] + le32(png.count) + le32(22)
        let data = Data(ico) + png
        XCTAssertEqual(ImageSniffer.format(of: data), .ico)
        XCTAssertEqual(ImageSniffer.inspect(data)?.width, 16)
    }

    private func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
}
