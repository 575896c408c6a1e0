// QOICodec: the "Quite OK Image" format (qoiformat.org), written here only to test the codec registry end to end:
// sniffing, bitmap(), verifyDecodes(), processors and `serve` on a format the library does not know.
import DWLocking
import DWWebImage
import Foundation

/// QOI's decoder and encoder (the specification's reference algorithm). Stateless: safe on any thread.
public struct QOICodec: DWImageDecoding, DWImageEncoding {
    /// The format, "qoi".
    public static let format = DWImageFormat(rawValue: "qoi")

    public init() {}

    public var format: DWImageFormat { Self.format }
    public var mimeType: String { "image/qoi" }

    /// Registers the decoder and the encoder (idempotent).
    public static func register() {
        DWImageCodecs.register(decoder: QOICodec())
        DWImageCodecs.register(encoder: QOICodec())
    }

    private static let decodes = DWLock(0)

    /// How many times ``decode(_:)`` ran in this process (tests of the decoded tier count decodes with it).
    public static var decodeCount: Int { decodes.withLock { $0 } }

    private static let end: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]

    public func header(_ data: Data) -> DWImageHeader? {
        guard data.count >= 14 else { return nil }
        let b = [UInt8](data.prefix(14))
        guard b[0..<4].elementsEqual(Array("qoif".utf8)), b[12] == 3 || b[12] == 4, b[13] <= 1 else { return nil }
        let width = Int(b[4]) << 24 | Int(b[5]) << 16 | Int(b[6]) << 8 | Int(b[7])
        let height = Int(b[8]) << 24 | Int(b[9]) << 16 | Int(b[10]) << 8 | Int(b[11])
        guard width > 0, height > 0 else { return nil }
        return DWImageHeader(width: width, height: height)
    }

    public func decode(_ data: Data) throws(DWWebImageError) -> DWBitmap {
        Self.decodes.withLock { $0 += 1 }
        guard let header = header(data) else { throw DWWebImageError(.notAnImage, "not a QOI image") }
        let bytes = [UInt8](data)
        let count = header.width * header.height
        var out = [UInt8](repeating: 0, count: count * 4)
        var index = [UInt8](repeating: 0, count: 64 * 4)
        var px: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) = (0, 0, 0, 255)
        var p = 14, run = 0
        let chunksEnd = bytes.count - Self.end.count
        for pixel in 0..<count {
            if run > 0 {
                run -= 1
            } else {
                guard p < chunksEnd else {
                    throw DWWebImageError(.notAnImage, "QOI data ends at pixel \(pixel) of \(count)")
                }
                let b1 = bytes[p]
                p += 1
                if b1 == 0xFE || b1 == 0xFF {
                    let n = b1 == 0xFE ? 3 : 4
                    guard p + n <= chunksEnd else { throw DWWebImageError(.notAnImage, "QOI chunk cut short") }
                    px.r = bytes[p]; px.g = bytes[p + 1]; px.b = bytes[p + 2]
                    if n == 4 { px.a = bytes[p + 3] }
                    p += n
                } else if b1 & 0xC0 == 0x00 {
                    let i = Int(b1) * 4
                    px = (index[i], index[i + 1], index[i + 2], index[i + 3])
                } else if b1 & 0xC0 == 0x40 {
                    px.r = px.r &+ ((b1 >> 4) & 3) &- 2
                    px.g = px.g &+ ((b1 >> 2) & 3) &- 2
                    px.b = px.b &+ (b1 & 3) &- 2
                } else if b1 & 0xC0 == 0x80 {
                    guard p < chunksEnd else { throw DWWebImageError(.notAnImage, "QOI chunk cut short") }
                    let b2 = bytes[p]
                    p += 1
                    let vg = (b1 & 0x3F) &- 32
                    px.r = px.r &+ vg &- 8 &+ ((b2 >> 4) & 0x0F)
                    px.g = px.g &+ vg
                    px.b = px.b &+ vg &- 8 &+ (b2 & 0x0F)
                } else {
                    run = Int(b1 & 0x3F)
                }
                let h = Self.hash(px) * 4
                index[h] = px.r; index[h + 1] = px.g; index[h + 2] = px.b; index[h + 3] = px.a
            }
            let o = pixel * 4
            out[o] = px.r; out[o + 1] = px.g; out[o + 2] = px.b; out[o + 3] = px.a
        }
        guard bytes.count >= Self.end.count, bytes.suffix(Self.end.count).elementsEqual(Self.end) else {
            throw DWWebImageError(.notAnImage, "QOI end marker missing (truncated)")
        }
        guard let bitmap = DWBitmap(width: header.width, height: header.height, pixels: Data(out)) else {
            throw DWWebImageError(.notAnImage, "QOI size does not fit")
        }
        return bitmap
    }

    public func encode(_ bitmap: DWBitmap, quality: Int?) throws(DWWebImageError) -> Data {
        var out: [UInt8] = Array("qoif".utf8)
        for value in [UInt32(bitmap.width), UInt32(bitmap.height)] {
            out += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        }
        out += [4, 0]
        var index = [(r: UInt8, g: UInt8, b: UInt8, a: UInt8)](repeating: (0, 0, 0, 0), count: 64)
        var prev: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) = (0, 0, 0, 255)
        var run = 0
        let total = bitmap.width * bitmap.height
        for i in 0..<total {
            let px = bitmap.rgba(x: i % bitmap.width, y: i / bitmap.width)
            if px == prev {
                run += 1
                if run == 62 || i == total - 1 { out.append(0xC0 | UInt8(run - 1)); run = 0 }
                continue
            }
            if run > 0 { out.append(0xC0 | UInt8(run - 1)); run = 0 }
            let h = Self.hash(px)
            if index[h] == px {
                out.append(UInt8(h))
            } else {
                index[h] = px
                if px.a == prev.a {
                    let vr = Int(Int8(bitPattern: px.r &- prev.r)), vg = Int(Int8(bitPattern: px.g &- prev.g))
                    let vb = Int(Int8(bitPattern: px.b &- prev.b))
                    let vgr = vr - vg, vgb = vb - vg
                    if (-2...1).contains(vr), (-2...1).contains(vg), (-2...1).contains(vb) {
                        out.append(0x40 | UInt8(vr + 2) << 4 | UInt8(vg + 2) << 2 | UInt8(vb + 2))
                    } else if (-8...7).contains(vgr), (-32...31).contains(vg), (-8...7).contains(vgb) {
                        out += [0x80 | UInt8(vg + 32), UInt8(vgr + 8) << 4 | UInt8(vgb + 8)]
                    } else {
                        out += [0xFE, px.r, px.g, px.b]
                    }
                } else {
                    out += [0xFF, px.r, px.g, px.b, px.a]
                }
            }
            prev = px
        }
        out += Self.end
        return Data(out)
    }

    private static func hash(_ px: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Int {
        (Int(px.r) * 3 + Int(px.g) * 5 + Int(px.b) * 7 + Int(px.a) * 11) % 64
    }
}
