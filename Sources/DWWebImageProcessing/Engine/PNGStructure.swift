// PNGStructure: the chunk layout --verify holds a PNG to, which libvips' loader does not check.
import DWWebImage
import Foundation

/// Walks a PNG's chunks from the signature to `IEND`: every chunk whole (length, type, data, CRC inside the file),
/// `IHDR` 13 bytes with compression method 0, filter method 0 and interlace 0 or 1 (PNG's only defined values).
/// libvips decodes the pixels and stops there, so a PNG whose `IEND` is cut off, or whose `IHDR` names a
/// compression method no decoder knows, used to pass `--verify`. Bytes after `IEND` are allowed (browsers ignore
/// them). Runs on the caller's thread.
enum PNGStructure {
    static func check(_ data: Data) throws(DWWebImageError) {
        if let problem = data.withUnsafeBytes({ problem(in: $0) }) { throw DWWebImageError(.notAnImage, problem) }
    }

    /// What is wrong with the chunk layout, or nil.
    private static func problem(in bytes: UnsafeRawBufferPointer) -> String? {
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        var offset = 8
        while true {
            guard offset + 8 <= bytes.count else {
                return "PNG ends at byte \(bytes.count) without IEND"
            }
            let length = u32(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let end = offset + 12 + length
            guard length <= Int(Int32.max), end <= bytes.count else {
                return "PNG chunk \(type) at byte \(offset) is cut off (the file ends at \(bytes.count))"
            }
            if type == "IHDR" {
                guard length == 13 else { return "PNG IHDR has \(length) bytes, not 13" }
                let (compression, filter, interlace) = (bytes[offset + 18], bytes[offset + 19], bytes[offset + 20])
                guard compression == 0, filter == 0, interlace <= 1 else {
                    return "PNG IHDR names compression \(compression), filter \(filter), interlace \(interlace)"
                        + " (defined: 0, 0, 0 or 1)"
                }
            }
            if type == "IEND" { return nil }
            offset = end
        }
    }
}
