// DWThumborSigner: thumbor's URL signature — URL-safe base64 (with padding) of HMAC-SHA1(key, path after it).
import Crypto
import DWImageTransform
import Foundation

/// Checks (and makes) thumbor signatures: the first path segment is the URL-safe base64, **with** its `=` padding
/// (28 characters), of HMAC-SHA1 keyed with thumbor's `SECURITY_KEY` (the key's UTF-8 bytes, not hex) over the rest
/// of the path as received, without its leading "/" and without the query. A plain value: use it on any thread.
public struct DWThumborSigner: Sendable {
    private let key: [UInt8]

    /// nil when `key` is empty.
    public init?(key: String) {
        guard !key.isEmpty else { return nil }
        self.key = Array(key.utf8)
    }

    /// The signature segment for `path` (the part after "/{signature}/", as libthumbor signs it).
    public func signature(for path: String) -> String {
        Data(mac(path)).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }

    /// Whether `signature` signs `path`; the comparison takes the same time wherever the bytes differ.
    public func isValid(signature: String, for path: String) -> Bool {
        let given = Array(signature.utf8), expected = Array(self.signature(for: path).utf8)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(given, expected) { difference |= a ^ b }
        return difference == 0
    }

    private func mac(_ path: String) -> [UInt8] {
        var hmac = HMAC<Insecure.SHA1>(key: SymmetricKey(data: key))
        hmac.update(data: Array(path.utf8))
        return Array(hmac.finalize())
    }

    /// Whether `segment` has the shape of a thumbor signature: 28 characters of URL-safe base64 ending in `=`
    /// (imgproxy's signatures are 43 characters and never padded).
    public static func isSignatureShaped(_ segment: Substring) -> Bool {
        segment.utf8.count == 28 && segment.utf8.last == UInt8(ascii: "=")
            && segment.utf8.dropLast().allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }
}

extension DWThumborSigner: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key's length only: a signer interpolated into a log line never shows it.
    public var description: String { "DWThumborSigner(key: <\(key.count) bytes>)" }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the length, never the bytes.
    public var customMirror: Mirror {
        Mirror(self, children: ["key": "<\(key.count) bytes>"], displayStyle: .struct)
    }
}
