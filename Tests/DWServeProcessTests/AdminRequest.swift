// AdminRequest: a signed POST to serve's admin listener (`/purge`, `/warm`), as an operator's tool sends one.
import Crypto
import Foundation

enum AdminRequest {
    /// Lowercase hex HMAC-SHA256 of `body` keyed with the bytes of `keyHex` (no salt): the `X-Signature` value.
    static func signature(of body: [UInt8], keyHex: String) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: ServeAttackTests.hex(keyHex)))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// POSTs `body` to `path` on 127.0.0.1:`port`, with `X-Signature: signature` when one is given.
    static func post(_ port: Int, _ path: String, _ body: [UInt8], signature: String?) throws -> HTTPResult {
        try HTTPClient.request(
            port: port, target: path, headers: signature.map { ["X-Signature": $0] } ?? [:],
            method: "POST", body: body)
    }
}
