// --verify passes no PNG that cannot be fully decoded: an IEND cut short, a compression method no decoder knows.
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class VerifyStructureTests: XCTestCase {
    private let png = SampleImages.png(width: 6, height: 4)

    func testWholePNGPassesAndBytesAfterIENDAreAllowed() throws {
        XCTAssertNoThrow(try DWImage(data: png).verifyDecodes())
        XCTAssertNoThrow(try DWImage(data: png + Data("trailing".utf8)).verifyDecodes())
    }

    func testPNGWhoseEndChunkIsCutFails() throws {
        let cut = try DWImage(data: png.dropLast(5))
        XCTAssertThrowsError(try cut.verifyDecodes()) { error in
            let e = error as? DWWebImageError
            XCTAssertEqual(e?.code, .notAnImage)
            XCTAssertTrue(e?.message.contains("IEND") ?? false, e?.message ?? "")
        }
    }

    func testPNGWithAnUnknownCompressionMethodFails() throws {
        var bytes = [UInt8](png)
        bytes[26] = 1  // IHDR compression method
        let crc = SampleImages.crc32(Array(bytes[12..<29]))  // IHDR's CRC made right again: only the method is wrong
        bytes[29..<33] = [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        let image = try DWImage(data: Data(bytes))
        XCTAssertThrowsError(try image.verifyDecodes()) { error in
            XCTAssertTrue((error as? DWWebImageError)?.message.contains("compression 1") ?? false, "\(error)")
        }
    }
}
