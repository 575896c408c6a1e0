// PNGStructure: the chunk layout --verify holds a PNG to, which libvips' loader does not check.
import DWWebImage
import Foundation

/// Walks a PNG's chunks from the signature to `IEND`: every chunk whole (length, type, data, CRC inside the file),
/// `IHDR` 13 bytes with compression method 0, filter method 0 and interlace 0 or 1 (PNG's only defined values).
/// libvips decodes the pixels and stops there, so without this walk a PNG whose `IEND` is cut off, or whose `IHDR`
/// names a compression method no decoder knows, would pass `--verify`. Bytes after `IEND` are allowed (browsers ignore
/// them). An APNG (a valid `acTL`) is held to its frame structure too: `fcTL` and `fdAT` sequence numbers 0, 1, 2…
/// in file order, every `fcTL` followed by its frame's data, no `fdAT` outside a frame, and as many frames as
/// `acTL` declares (libpng's APNG patch and Pillow refuse the rest; browsers fall back to the default image).
/// Runs on the caller's thread.
enum PNGStructure {
    static func check(_ data: Data) throws(DWWebImageError) {
        if let problem = data.withUnsafeBytes({ problem(in: $0) }) { throw DWWebImageError(.notAnImage, problem) }
    }

    /// What is wrong with the chunk layout, or nil.
    private static func problem(in bytes: UnsafeRawBufferPointer) -> String? {
        func u32(_ at: Int) -> Int { Int(bytes.bigEndianUInt32(at: at)) }
        var offset = 8
        var animation = APNGWalk()
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
            let sequence = length >= 4 ? u32(offset + 8) : -1
            if let problem = animation.step(type, sequence: sequence, data: bytes, at: offset + 8, length: length) {
                return problem
            }
            if type == "IEND" { return animation.end() }
            offset = end
        }
    }
}

/// The APNG frame structure as the chunks go by (see ``PNGStructure``). Frame chunks are checked wherever they
/// are (an `fcTL` may come before the `acTL`); what is wrong counts only when a valid `acTL` makes it an APNG.
private struct APNGWalk {
    /// Frames the first valid `acTL` declares; nil: not an APNG.
    var declared: Int?
    var acTLs = 0
    var controls = 0
    var nextSequence = 0
    /// The first thing wrong with the frame chunks.
    var problem: String?
    /// Where the walk is: before any frame, after an `fcTL` (its data must come), or inside a frame's data.
    var state = State.outside
    enum State { case outside, awaitingData, inIDAT, inFdAT }

    mutating func step(_ type: String, sequence: Int, data: UnsafeRawBufferPointer, at: Int, length: Int) -> String? {
        switch type {
        case "acTL":
            acTLs += 1
            guard acTLs == 1, length >= 8 else { declared = nil; return nil }  // a second acTL: not an APNG
            let frames = Int(data.bigEndianUInt32(at: at))
            if frames > 0 && frames <= 0x8000_0000 { declared = frames }
        case "fcTL":
            checkSequence(sequence, type)
            if state == .awaitingData { note("APNG frame control \(controls - 1) has no frame data") }
            controls += 1
            state = .awaitingData
        case "fdAT":
            checkSequence(sequence, type)
            if state != .awaitingData && state != .inFdAT { note("APNG frame data (fdAT) outside a frame") }
            state = .inFdAT
        case "IDAT":
            if state == .inFdAT { note("APNG default image data (IDAT) after frame data") }
            state = .inIDAT
        default:
            if state == .inIDAT || state == .inFdAT { state = .outside }
        }
        return nil
    }

    private mutating func note(_ text: String) {
        if problem == nil { problem = text }
    }

    private mutating func checkSequence(_ sequence: Int, _ type: String) {
        if sequence != nextSequence {
            note("APNG \(type) has sequence number \(sequence) where \(nextSequence) was expected")
        }
        nextSequence = sequence + 1
    }

    /// At `IEND`: for an APNG, the frame chunks in order and at least the declared frames, the last with its data
    /// (more frames than declared are not played, as Pillow and browsers read it).
    func end() -> String? {
        guard let declared else { return nil }
        if let problem { return problem }
        if state == .awaitingData { return "APNG frame control \(controls - 1) has no frame data" }
        guard controls >= declared else { return "APNG declares \(declared) frames (acTL) but has \(controls)" }
        return nil
    }
}
