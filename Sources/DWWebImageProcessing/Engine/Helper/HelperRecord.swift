// HelperRecord: the answer a helper writes on its standard output — one layout for every helper, told apart by
// its magic.
import DWWebImage
import Foundation

/// A helper's answer: 8 bytes of magic, then three little-endian Int64s (what they mean is the helper's: the SVG
/// helper's width, height and bands; the encode helper's time, policy and byte count), then the payload; or the
/// failure magic, the error's code, two zero words, and its message (at most 4000 bytes) to the end. Any thread.
struct HelperRecord: Sendable {
    let answerMagic: [UInt8]
    let failureMagic: [UInt8]

    /// The SVG helper's pixels (width, height, bands, then width × height × bands bytes).
    static let svgPixels = HelperRecord(answerMagic: Array("DWSVGPX1".utf8), failureMagic: Array("DWSVGERR".utf8))
    /// The encode helper's bytes (nanoseconds, policy, byte count, then the bytes).
    static let encodedBytes = HelperRecord(answerMagic: Array("DWENCOK1".utf8), failureMagic: Array("DWENCERR".utf8))

    /// The magic and the three words.
    static let headerSize = 32
    /// The longest failure message written.
    static let maxMessage = 4000

    /// The three words of an answer's header.
    struct Header: Sendable {
        let first, second, third: Int
    }

    /// Why an answer's header is refused (its payload would be too large, its words make no sense).
    struct Refusal: Error {
        let reason: String
    }

    /// An answer's header: the magic and `header`'s words; the payload follows it.
    func answer(_ header: Header) -> [UInt8] {
        answerMagic + [header.first, header.second, header.third].flatMap(Self.bytes)
    }

    /// A failure record for `error`.
    func failure(_ error: DWWebImageError) -> [UInt8] {
        failureMagic + Self.bytes(error.code.rawValue) + Self.bytes(0) + Self.bytes(0)
            + Array(error.message.utf8.prefix(Self.maxMessage))
    }

    /// The header of `head` (at least ``headerSize`` bytes, starting with ``answerMagic``).
    static func header(_ head: [UInt8]) -> Header {
        Header(first: int(head, at: 8), second: int(head, at: 16), third: int(head, at: 24))
    }

    /// The error a failure record `head` (at least ``headerSize`` bytes, starting with ``failureMagic``) carries. A
    /// helper's code is taken one way for every helper: 10005 stays 10005, any other is 10000 (a helper cannot make
    /// its parent report any other kind).
    static func failureError(_ head: [UInt8]) -> DWWebImageError {
        let code: DWWebImageError.Code =
            int(head, at: 8) == DWWebImageError.Code.tooLarge.rawValue ? .tooLarge : .notAnImage
        return DWWebImageError(code, String(decoding: head[headerSize...].prefix(maxMessage), as: UTF8.self))
    }

    private static func bytes(_ value: Int) -> [UInt8] { withUnsafeBytes(of: Int64(value).littleEndian, Array.init) }

    private static func int(_ bytes: [UInt8], at offset: Int) -> Int {
        Int(truncatingIfNeeded: bytes.withUnsafeBytes { $0.littleEndianUInt64(at: offset) })
    }
}
