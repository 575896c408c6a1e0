// DWRequestAuthorization: imgproxy's two request checks before a URL is parsed — the `Authorization: Bearer` secret
// and the URL signature (any key pair, or a trusted signature as it is).
import Foundation
import Hummingbird
import HTTPTypes

extension DWServeConfiguration {
    /// Whether `signature` signs `path` for `signers` (``signers`` for images, the `/info` signers for `/info`): any
    /// signature when there is no signer (imgproxy without a key) unless ``refusesUnsignedImgproxy`` (then none),
    /// one of ``trustedSignatures`` as it is (imgproxy's `IMGPROXY_TRUSTED_SIGNATURES`), else a valid MAC of one
    /// signer (key rotation). Any thread.
    func accepts(signature: String, for path: String, signers: [DWURLSigner]) -> Bool {
        if signers.isEmpty { return !refusesUnsignedImgproxy }
        return trustedSignatures.contains(signature) || signers.contains { $0.isValid(signature: signature, for: path) }
    }

    /// Whether `authorization` (the request's `Authorization` value) is `Bearer ` followed by ``secret``, compared
    /// in a time that does not depend on where the bytes differ (imgproxy's `subtle.ConstantTimeCompare`); true
    /// when no secret is set. Any thread.
    func authorizes(_ authorization: String?) -> Bool {
        guard let secret else { return true }
        return secret.matches(authorization: authorization ?? "")
    }
}

/// imgproxy's `IMGPROXY_SECRET`: the token a request's `Authorization: Bearer` must carry. It prints, dumps and
/// reflects as `<secret>` only (a value that holds a secret shows none of it). A plain value.
public struct DWBearerSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Bearer ` and the token, as the header must read.
    private let expected: [UInt8]

    /// The token; nil when it is empty.
    public init?(_ token: String) {
        guard !token.isEmpty else { return nil }
        expected = Array("Bearer \(token)".utf8)
    }

    /// Whether `authorization` is `Bearer <token>`; the time depends on the lengths only, never on where the
    /// bytes first differ (imgproxy's `subtle.ConstantTimeCompare`).
    func matches(authorization: String) -> Bool {
        let given = Array(authorization.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }

    /// `<secret>`.
    public var description: String { "<secret>" }
    /// `<secret>`.
    public var debugDescription: String { description }
    /// No children: nothing of the token.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension DWImageServer {
    /// The 403 for a request without the configured secret (imgproxy's "Forbidden"), noted for the access log;
    /// nil when the request carries it or no secret is set. On the request's task, before anything is parsed.
    func secretRefusal(_ request: Request) -> Response? {
        guard !configuration.authorizes(request.headers[.authorization]) else { return nil }
        return refuse(.forbidden, "Forbidden", note: " bad-secret")
    }
}
