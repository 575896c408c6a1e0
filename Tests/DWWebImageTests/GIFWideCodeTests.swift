// GIF frames whose LZW minimum code size is 9…11 (Pillow's issue_2811.gif has 11): giflib refuses them, libnsgif
// (libvips' gifload) and Pillow decode them, and so do we — with a full LZW encoder here, so that the table fills,
// the code width grows to 12 bits and the table is cleared, as a real encoder's output does.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class GIFWideCodeTests: XCTestCase {
    /// 256 distinct colours: index i → (i, 255 - i, i / 2).
    static let palette: [RGB] = (0..<256).map { (UInt8($0), UInt8(255 - $0), UInt8($0 / 2)) }

    /// A GIF of one or more frames of `width × height` indices, each with minimum code size `codeSize`.
    static func gif(_ frames: [[Int]], width: Int, height: Int, codeSize: Int) -> [UInt8] {
        var out = [UInt8]("GIF89a".utf8) + le16(width) + le16(height) + [0xF7, 0, 0]
        for c in palette { out += [c.r, c.g, c.b] }
        for pixels in frames {
            out += [0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00]
            out += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0x00]
            out += lzw(pixels, codeSize: codeSize)
        }
        return out + [0x3B]
    }

    func testCodeSize11DecodesLikePillowAndLibnsgif() throws {
        let (w, h) = (96, 80)
        // Runs and noise: long strings fill the 4096-entry table (so it is cleared), noise keeps codes short.
        let pixels = (0..<w * h).map { i in (i / 7 + (i * i) % 13) % 256 }
        for codeSize in 9...11 {
            let bytes = Self.gif([pixels], width: w, height: h, codeSize: codeSize)
            let image = try DWImage(data: Data(bytes))
            XCTAssertEqual(image.format, .gif)
            XCTAssertEqual([image.pixelWidth, image.pixelHeight], [w, h])
            let frame = try DWAnimatedImage(data: Data(bytes)).frame(at: 0)
            XCTAssertTrue(frame.isComplete, "code size \(codeSize)")
            let expected: [UInt8] = pixels.flatMap { i -> [UInt8] in
                let c = Self.palette[i]
                return [c.r, c.g, c.b, 255]
            }
            XCTAssertEqual(frame.pixels, expected, "code size \(codeSize)")
        }
    }

    func testCodesPastTheColourMapAreBlackAndTwelveIsRefused() throws {
        // Literal codes 256…2047 exist only with a wide code size; like an index past the map, they are black.
        let pixels = [0, 300, 2047, 5]
        let frame = try DWAnimatedImage(data: Data(Self.gif([pixels], width: 4, height: 1, codeSize: 11))).frame(at: 0)
        XCTAssertEqual(frame.pixels, [0, 255, 0, 255] + [0, 0, 0, 255] + [0, 0, 0, 255] + [5, 250, 2, 255])
        // 12 would start at 13-bit codes, past any GIF table: refused as libnsgif refuses it.
        var twelve = Self.gif([[1, 2]], width: 2, height: 1, codeSize: 11)
        let at = 13 + 3 * 256 + 8 + 10  // header, colour map, GCB, image descriptor
        XCTAssertEqual(twelve[at], 11)
        twelve[at] = 12
        XCTAssertThrowsError(try DWImage(data: Data(twelve))) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .notAnImage)
        }
    }

    func testWideFramesCutOrCorruptNeverReadPastTheBytes() throws {
        let pixels = (0..<32 * 32).map { ($0 * 31) % 256 }
        let bytes = Self.gif([pixels, pixels.reversed()], width: 32, height: 32, codeSize: 10)
        let whole = try DWAnimatedImage(data: Data(bytes))
        XCTAssertEqual(whole.frameCount, 2)
        // Once a byte of the second frame's data has arrived, it counts (with the rows that arrived).
        let first = Self.lzw(pixels, codeSize: 10).count
        let secondData = 13 + 3 * 256 + 2 * (8 + 10) + first + 1
        XCTAssertEqual(bytes[secondData - 1], 10)
        for cut in stride(from: secondData + 2, to: bytes.count, by: 7) {
            let animation = try DWAnimatedImage(data: Data(bytes[..<cut]))
            XCTAssertEqual(animation.frameCount, 2, "cut at \(cut)")
            XCTAssertTrue(animation.frame(at: 0).isComplete)
            XCTAssertEqual(animation.frame(at: 1).pixels.count, 32 * 32 * 4)
        }
        var corrupt = bytes
        for i in stride(from: 900, to: bytes.count - 1, by: 3) { corrupt[i] = UInt8(truncatingIfNeeded: i * 37) }
        if let animation = try? DWAnimatedImage(data: Data(corrupt)) {
            animation.forEachFrame {
                XCTAssertEqual($0.pixels.count, 32 * 32 * 4); return true
            }
        }
    }

    // MARK: - A GIF LZW encoder (dictionary codes, growing width, clear when full)

    static func lzw(_ pixels: [Int], codeSize m: Int) -> [UInt8] {
        let clear = 1 << m
        var dict: [Int: Int] = [:], next = clear + 2, width = m + 1
        var data: [UInt8] = [], acc = 0, bits = 0
        func emit(_ code: Int) {
            acc |= code << bits
            bits += width
            while bits >= 8 {
                data.append(UInt8(acc & 0xFF))
                acc >>= 8
                bits -= 8
            }
        }
        // The decoder adds an entry one code after the encoder: the width grows when `next` passes 2^width.
        func added() {
            next += 1
            if next > 1 << width && width < 12 { width += 1 }
        }
        emit(clear)
        var prefix = pixels[0]
        for p in pixels.dropFirst() {
            let key = prefix << 12 | p
            if let code = dict[key] {
                prefix = code
                continue
            }
            emit(prefix)
            if next < 4096 {
                dict[key] = next
                added()
            } else {
                emit(clear)
                dict = [:]
                next = clear + 2
                width = m + 1
            }
            prefix = p
        }
        emit(prefix)
        if next < 4096 { added() }
        emit(clear + 1)
        if bits > 0 { data.append(UInt8(acc & 0xFF)) }
        var out: [UInt8] = [UInt8(m)]
        var offset = 0
        while offset < data.count {
            let n = min(255, data.count - offset)
            out += [UInt8(n)] + data[offset..<offset + n]
            offset += n
        }
        return out + [0]
    }

    private static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
}
