// DWDigest: SHA-256 as lowercase hex — the names the server gives sources, variants and cache policies.
import Crypto
import Foundation

/// Lowercase hex of SHA-256 digests. Pure; any thread.
enum DWDigest {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The first `bytes` bytes (all 32 by default) of SHA-256 of `data`, as lowercase hex.
    static func sha256Hex(_ data: Data, bytes: Int = 32) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes * 2)
        for byte in SHA256.hash(data: data).prefix(bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// SHA-256 of `text`'s UTF-8 bytes, as lowercase hex.
    static func sha256Hex(_ text: String) -> String { sha256Hex(Data(text.utf8)) }
}
