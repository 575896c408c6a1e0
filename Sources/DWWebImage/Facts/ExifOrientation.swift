// ExifOrientation: the EXIF orientation tag (0x0112) of a JPEG's APP1 segment, every read bounds-checked.
import Foundation

enum ExifOrientation {
    /// 1…8 from a JPEG's `Exif` APP1 segment; nil when there is none (or another format, or a malformed one).
    static func read(_ b: UnsafeRawBufferPointer) -> Int? {
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 4 <= b.count, b[offset] == 0xFF {
            let marker = b[offset + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }  // image data: no APP1 after this
            let length = Int(b[offset + 2]) << 8 | Int(b[offset + 3])
            guard length >= 2 else { return nil }
            let body = offset + 4
            if marker == 0xE1, body + 6 <= b.count, Array(b[body..<body + 6]) == Array("Exif\0\0".utf8) {
                return tiffOrientation(b, start: body + 6, end: min(b.count, offset + 2 + length))
            }
            offset += 2 + length
        }
        return nil
    }

    /// The orientation entry of IFD0 in a TIFF structure at `start..<end`.
    private static func tiffOrientation(_ b: UnsafeRawBufferPointer, start: Int, end: Int) -> Int? {
        guard start + 8 <= end else { return nil }
        let little = b[start] == 0x49
        func u16(_ at: Int) -> Int? {
            guard at + 2 <= end else { return nil }
            return little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let hi = u16(little ? at + 2 : at), let lo = u16(little ? at : at + 2) else { return nil }
            return hi << 16 | lo
        }
        guard let ifd = u32(start + 4), let count = u16(start + ifd) else { return nil }
        for i in 0..<min(count, 512) {
            let entry = start + ifd + 2 + i * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, let value = u16(entry + 8), (1...8).contains(value) { return value }
        }
        return nil
    }
}
