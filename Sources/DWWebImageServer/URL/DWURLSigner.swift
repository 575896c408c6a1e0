// DWURLSigner: imgproxy's URL signature — base64url(HMAC-SHA256(key, salt ‖ path after the signature)).
import Crypto
import Foundation

/// Checks (and makes) imgproxy signatures: the signature segment is the URL-safe base64, without padding, of
/// HMAC-SHA256 keyed with `key` over `salt` followed by the path after the signature, starting with "/".
/// Key and salt are given hex-encoded, as `IMGPROXY_KEY` / `IMGPROXY_SALT` are. With a ``size`` under 32
/// (imgproxy's `IMGPROXY_SIGNATURE_SIZE`), the signature is the MAC's first `size` bytes.
public struct DWURLSigner: Sendable {
    private let key: [UInt8]
    private let salt: [UInt8]
    /// Bytes of the MAC a signature holds, 1-32 (default 32: the whole MAC).
    public let size: Int

    /// nil when `keyHex` or `saltHex` is not hex, the key is empty, or `size` is not 1-32.
    public init?(keyHex: String, saltHex: String, size: Int = 32) {
        guard let key = Self.bytes(hex: keyHex), !key.isEmpty, let salt = Self.bytes(hex: saltHex),
            (1...32).contains(size)
        else { return nil }
        self.key = key
        self.salt = salt
        self.size = size
    }

    /// Whether `signature` (lowercase hex) is HMAC-SHA256 of `body` keyed with this key's bytes, no salt (how an
    /// admin request such as `POST /purge` is signed); compared in constant time.
    func isValidAdmin(signature: String, for body: [UInt8]) -> Bool {
        let expected = Array(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: key)))
        guard let given = Self.bytes(hex: signature), given.count == expected.count else { return false }
        return zip(given, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The signature segment for `path` (which starts with "/").
    public func signature(for path: String) -> String {
        DWProxyURL.base64URLEncode(mac(path))
    }

    /// Whether `signature` signs `path`; the comparison takes the same time wherever the bytes differ.
    public func isValid(signature: String, for path: String) -> Bool {
        guard let given = DWProxyURL.base64URLDecode(signature[...]) else { return false }
        let expected = mac(path)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(given, expected) { difference |= a ^ b }
        return difference == 0
    }

    private func mac(_ path: String) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: key))
        hmac.update(data: salt)
        hmac.update(data: Array(path.utf8))
        return Array(Array(hmac.finalize()).prefix(size))
    }

    /// Hex (either case) to bytes; nil for odd lengths or other characters.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let high = nibble(digits[i]), let low = nibble(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 65...70: c - 55
        case 97...102: c - 87
        default: nil
        }
    }
}

extension DWURLSigner: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key's and salt's lengths only: a signer interpolated into a log line never shows them.
    public var description: String {
        "DWURLSigner(key: <\(key.count) bytes>, salt: <\(salt.count) bytes>, size: \(size))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the lengths, never the bytes.
    public var customMirror: Mirror {
        Mirror(self, children: ["key": "<\(key.count) bytes>", "salt": "<\(salt.count) bytes>"], displayStyle: .struct)
    }
}
