// DWDigest: SHA-256 as lowercase hex — the names the server gives sources, variants and cache policies.
import Crypto
import DWWebImage
import Foundation

/// Lowercase hex of SHA-256 digests. Pure; any thread.
enum DWDigest {
    /// The first `bytes` bytes (all 32 by default) of SHA-256 of `data`, as lowercase hex.
    static func sha256Hex(_ data: Data, bytes: Int = 32) -> String {
        DWHex.encode(SHA256.hash(data: data).prefix(bytes))
    }

    /// SHA-256 of `text`'s UTF-8 bytes, as lowercase hex.
    static func sha256Hex(_ text: String) -> String { sha256Hex(Data(text.utf8)) }
}
