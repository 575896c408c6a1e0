// BMPs Pillow reads and we used to refuse: RLE8, RLE4, palette indices past the palette (black, as Pillow has it).
// Built here byte by byte; Pillow reads the same files at test time and the pixels must agree exactly.
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class BMPRLETests: XCTestCase {
    /// Red, green, blue, white (BGRA palette entries).
    private let palette: [UInt8] = [0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0]

    func testRLE8() throws {
        // 5×3, bottom row first: runs, an absolute run (odd length, padded), ends of line, end of bitmap. (Pillow
        // refuses moves and early ends — "not enough image data" — so those are not compared.)
        let rle: [UInt8] = [3, 1, 2, 2, 0, 0, 0, 3, 0, 3, 1, 0, 2, 2, 0, 0, 1, 0, 1, 3, 3, 1, 0, 1]
        try assertAgreesWithPillow(bmp(width: 5, height: 3, bpp: 8, compression: 1, colours: 4, pixels: rle), "rle8")
    }

    func testRLE4() throws {
        // 6×2: a run of alternating nibbles, an absolute run of 3 nibbles (2 bytes, padded to 16 bits), a run.
        let rle: [UInt8] = [4, 0x12, 2, 0x33, 0, 0, 0, 3, 0x01, 0x20, 3, 0x22, 0, 1]
        try assertAgreesWithPillow(bmp(width: 6, height: 2, bpp: 4, compression: 2, colours: 4, pixels: rle), "rle4")
    }

    func testPaletteIndexPastThePaletteIsBlack() throws {
        // 4×1, 8 bits, a palette of 2 colours, indices 0 1 5 200.
        let data = bmp(width: 4, height: 1, bpp: 8, compression: 0, colours: 2, pixels: [0, 1, 5, 200])
        try assertAgreesWithPillow(data, "oob")
        let bitmap = try DWImage(data: data).bitmap()
        XCTAssertEqual([bitmap.rgba(x: 3, y: 0).r, bitmap.rgba(x: 3, y: 0).g, bitmap.rgba(x: 3, y: 0).b], [0, 0, 0])
    }

    private func bmp(width: Int, height: Int, bpp: Int, compression: Int, colours: Int, pixels: [UInt8]) -> Data {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let pal = Array(palette.prefix(colours * 4))
        let offset = 14 + 40 + pal.count
        var out: [UInt8] = Array("BM".utf8) + le(offset + pixels.count, 4) + le(0, 4) + le(offset, 4)
        out += le(40, 4) + le(width, 4) + le(height, 4) + le(1, 2) + le(bpp, 2) + le(compression, 4)
        out += le(pixels.count, 4) + le(0, 4) + le(0, 4) + le(colours, 4) + le(0, 4)
        return Data(out + pal + pixels)
    }

    private func assertAgreesWithPillow(
        _ data: Data, _ name: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dwbmp-\(UUID().uuidString).bmp")
        try data.write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let script =
            "import sys; from PIL import Image; "
            + "sys.stdout.buffer.write(Image.open(sys.argv[1]).convert('RGB').tobytes())"
        let pillow = [UInt8](try Python.system.data(["-c", script, path.path]))  // Pillow (scripts/setup.sh)
        let bitmap = try DWImage(data: data).bitmap()
        var ours: [UInt8] = []
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.rgba(x: x, y: y)
                ours += [p.r, p.g, p.b]
            }
        }
        XCTAssertEqual(ours, pillow, "\(name): our pixels against Pillow's", file: file, line: line)
    }
}
