// ExifOrientation: an image's orientation (EXIF tag 0x0112, or JPEG XL's own header field) from its first bytes:
// JPEG's APP1, PNG's eXIf chunk, WebP's EXIF chunk, a TIFF's first IFD, JPEG XL's ImageMetadata. Every read
// bounds-checked.
import Foundation

enum ExifOrientation {
    /// 1…8 as the image declares it; nil when it declares none (or the bytes are malformed, or end before it).
    /// HEIF and AVIF (whose `irot`/`imir` properties are not an EXIF value) give nil.
    /// `format` is what ``ImageSniffer`` found in the same bytes.
    static func read(_ b: UnsafeRawBufferPointer, format: DWImageFormat) -> Int? {
        switch format {
        case .jpeg: jpeg(b)
        case .tiff: tiffOrientation(b, start: 0, end: b.count)
        case .png: png(Bytes(b))
        case .webp: webP(Bytes(b))
        case .jxl: ImageSniffer.jxlOrientation(Bytes(b))
        default: nil
        }
    }

    /// The `Exif` APP1 segment before the image data.
    private static func jpeg(_ b: UnsafeRawBufferPointer) -> Int? {
        var offset = 2
        while offset + 4 <= b.count, b[offset] == 0xFF {
            let marker = b[offset + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }  // image data: no APP1 after this
            let length = Int(b[offset + 2]) << 8 | Int(b[offset + 3])
            guard length >= 2 else { return nil }
            let body = offset + 4
            if marker == 0xE1, Bytes(b).matches(body, exifPrefix) {
                return tiffOrientation(b, start: body + 6, end: min(b.count, offset + 2 + length))
            }
            offset += 2 + length
        }
        return nil
    }

    /// The `eXIf` chunk (a TIFF structure; some writers keep JPEG's `Exif\0\0` in front of it), up to `IEND`.
    private static func png(_ b: Bytes) -> Int? {
        var offset = 8
        while let length = b.u32be(offset), let type = b.fourCC(offset + 4), type != "IEND" {
            let body = offset + 8, end = body + Int(length)
            guard end <= b.count else { return nil }
            if type == "eXIf" { return tiff(in: b, body, end) }
            offset = end + 4  // the CRC
        }
        return nil
    }

    /// The `EXIF` chunk of a RIFF WebP (a TIFF structure, or one behind `Exif\0\0`). It usually follows the image
    /// data, so a head read of a large WebP may end before it.
    private static func webP(_ b: Bytes) -> Int? {
        var offset = 12
        while let type = b.fourCC(offset), let size = b.u32le(offset + 4) {
            let body = offset + 8, end = body + Int(size)
            guard end <= b.count else { return nil }
            if type == "EXIF" { return tiff(in: b, body, end) }
            offset = end + Int(size & 1)  // chunks are padded to an even size
        }
        return nil
    }

    /// A TIFF structure at `start..<end`, with or without JPEG's `Exif\0\0` in front.
    private static func tiff(in b: Bytes, _ start: Int, _ end: Int) -> Int? {
        let start = b.matches(start, exifPrefix) ? start + 6 : start
        return tiffOrientation(b.raw, start: start, end: end)
    }

    private static let exifPrefix: [UInt8] = Array("Exif\0\0".utf8)

    /// The orientation entry of IFD0 in a classic TIFF structure at `start..<end` (not BigTIFF: nil).
    private static func tiffOrientation(_ b: UnsafeRawBufferPointer, start: Int, end: Int) -> Int? {
        guard start >= 0, start + 8 <= end, end <= b.count else { return nil }
        let little = b[start] == 0x49
        func u16(_ at: Int) -> Int? {
            guard at >= start, at + 2 <= end else { return nil }
            return little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let hi = u16(little ? at + 2 : at), let lo = u16(little ? at : at + 2) else { return nil }
            return hi << 16 | lo
        }
        guard u16(start + 2) == 42, let ifd = u32(start + 4), let count = u16(start + ifd) else { return nil }
        for i in 0..<min(count, 512) {
            let entry = start + ifd + 2 + i * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, let value = u16(entry + 8), (1...8).contains(value) { return value }
        }
        return nil
    }
}
