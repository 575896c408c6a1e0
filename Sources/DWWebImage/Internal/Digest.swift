// DWDigest: SHA-256 as lowercase hex — the names the server gives sources, variants and cache policies, S3's
// payload hashes and the resume store's file names.
import Crypto
import Foundation

/// Lowercase hex of SHA-256 digests. Pure; any thread.
package enum DWDigest {
    /// The first `bytes` bytes (all 32 by default) of SHA-256 of `data`, as lowercase hex.
    package static func sha256Hex(_ data: Data, bytes: Int = 32) -> String {
        DWHex.encode(SHA256.hash(data: data).prefix(bytes))
    }

    /// SHA-256 of `text`'s UTF-8 bytes, as lowercase hex.
    package static func sha256Hex(_ text: String) -> String { sha256Hex(Data(text.utf8)) }
}
