// MetadataScan: whether a source can be served as it is — no EXIF, XMP, IPTC, comments or ICC profile in it.
import DWWebImage
import Foundation

/// Decides whether the no-options answer may be the source's own bytes: only when they carry no metadata a client
/// should not see (EXIF — GPS included —, XMP, IPTC, comments, text chunks) and no ICC profile (served as sRGB
/// pixels instead), and no more animation frames than are processed. Anything else is re-encoded by
/// ``DWVariantPlan`` (``DWVariantPlan/stripsUnprocessed``). Only the container structure is read (no decoding); a
/// doubtful file counts as not clean, so a mistake costs a re-encode, never a leak. Pure: any thread.
enum MetadataScan {
    /// Whether `image` may be served unchanged.
    static func isClean(_ image: DWImage, maxFrames: Int) -> Bool {
        guard image.frameCount <= maxFrames else { return false }
        return image.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            let bytes = raw.bindMemory(to: UInt8.self)
            switch image.format {
            case .png: return pngIsClean(bytes)
            case .jpeg: return jpegIsClean(bytes)
            case .webp: return webpIsClean(bytes)
            case .gif: return gifIsClean(bytes)
            default: return false
            }
        }
    }

    private static func be32(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        Int(UnsafeRawBufferPointer(b).bigEndianUInt32(at: i))
    }

    private static func le32(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        Int(UnsafeRawBufferPointer(b).littleEndianUInt32(at: i))
    }

    private static func fourCC(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> String {
        UnsafeRawBufferPointer(b).fourCC(at: i)
    }

    /// Chunks that describe pixels only; any other (text, EXIF, time, ICC, private ones) makes a PNG not clean.
    private static let pixelChunks: Set<String> = [
        "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB",
        "bKGD", "pHYs", "sBIT", "acTL", "fcTL", "fdAT"
    ]

    /// PNG: every chunk up to IEND must be one of ``pixelChunks``.
    static func pngIsClean(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 8
        while i + 8 <= b.count {
            let length = be32(b, i)
            let type = fourCC(b, i + 4)
            if !pixelChunks.contains(type) { return false }
            if type == "IEND" { return true }
            i += 12 + length
        }
        return false
    }

    /// JPEG: the segments before the scan; APP1 (EXIF, XMP), APP2 (ICC, FlashPix), APP13 (IPTC) and comments are
    /// metadata (APP0 JFIF and APP14 Adobe are not).
    static func jpegIsClean(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return false }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xDA { return true }  // start of scan: no more metadata segments before the image data
            if [0xE1, 0xE2, 0xED, 0xFE].contains(marker) { return false }
            if (0xE3...0xEF).contains(marker) && marker != 0xEE { return false }  // other APPn: unknown, be safe
            i += 2 + Int(UnsafeRawBufferPointer(b).bigEndianUInt16(at: i + 2))
        }
        return false
    }

    /// WebP: RIFF chunks; EXIF, XMP and ICC chunks are metadata.
    static func webpIsClean(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 12
        while i + 8 <= b.count {
            if ["EXIF", "XMP ", "ICCP"].contains(fourCC(b, i)) { return false }
            let length = le32(b, i + 4)
            i += 8 + length + (length & 1)
        }
        return i == b.count
    }

    /// GIF: any comment extension, or an application extension other than NETSCAPE2.0's loop count (XMP, ICC…).
    /// A byte search, so pixel data that happens to look like one only costs a re-encode.
    static func gifIsClean(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count > 14 else { return false }
        for i in 0..<(b.count - 13) where b[i] == 0x21 {
            if b[i + 1] == 0xFE { return false }
            if b[i + 1] == 0xFF && b[i + 2] == 11 && fourCC(b, i + 3) != "NETS" { return false }
        }
        return true
    }
}
