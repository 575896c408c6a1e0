// DWWebImageManager.Configuration.TLS: how HTTPS servers are trusted and how the client proves who it is.
import Foundation

extension DWWebImageManager.Configuration {
    /// libcurl's TLS settings, as `curl --cacert --capath --cert --key --pinnedpubkey -k` spells them. The
    /// defaults trust the system's CA store (Debian: /etc/ssl/certs) and verify every peer.
    public struct TLS: Sendable, Equatable, Hashable {
        /// A PEM file of CA certificates to trust instead of the built-in bundle (`CURLOPT_CAINFO`).
        public var caFile: String?
        /// A directory of CA certificates named by subject hash (`openssl rehash`) to trust (`CURLOPT_CAPATH`).
        public var caDirectory: String?
        /// A PEM client certificate (with its chain) for servers that ask for one (`CURLOPT_SSLCERT`).
        public var clientCertificate: String?
        /// The PEM private key of ``clientCertificate``, when it is not in the same file (`CURLOPT_SSLKEY`).
        public var clientKey: String?
        /// The server's public key must be this one: `sha256//<base64>` (several joined by `;`) or a PEM/DER
        /// file (`CURLOPT_PINNEDPUBLICKEY`). Checked in addition to the CA chain unless ``insecure``.
        public var pinnedPublicKey: String?
        /// Skip verifying the server's certificate chain and name (`CURLOPT_SSL_VERIFYPEER`/`VERIFYHOST` 0, curl's
        /// `-k`). Anyone on the path can then read and change the images; for tests and broken intranets only.
        public var insecure = false

        /// The defaults: the system's CAs, full verification.
        public init() {}
    }
}
