// DWLibraryVersions: the C libraries this process runs DWWebImage on, as they report themselves at run time.
internal import CCurlShim
internal import CGif
internal import CZlib

/// Versions and features of the libraries linked at run time (for `dwfetch --version` and bug reports).
/// Pure reads of static library data: callable from any thread.
public enum DWLibraryVersions {
    /// What libcurl reports: its version, the TLS, compression and HTTP/2 libraries it was built with, its
    /// protocols and its feature names (`curl_version_info`, as `curl --version` prints them).
    public struct Curl: Sendable, Equatable {
        /// "7.88.1"
        public var version: String
        /// "OpenSSL/3.0.15 zlib/1.2.13 brotli/1.0.9 zstd/1.5.4 libidn2/2.3.3 nghttp2/1.52.0 …" (curl's order).
        public var libraries: [String]
        /// "http", "https", …
        public var protocols: [String]
        /// "alt-svc", "AsynchDNS", "HTTP2", "libz", "SSL", …
        public var features: [String]
        /// The CA bundle file libcurl uses when none is configured (nil: none built in).
        public var defaultCAFile: String?
        /// The CA directory libcurl uses when none is configured (nil: none built in).
        public var defaultCAPath: String?
    }

    /// libcurl, from `curl_version_info`. Opens libcurl if no transfer has yet (CCurlShim); if it cannot be opened,
    /// `version` says why and the lists are empty.
    public static var curl: Curl {
        guard let info = dw_curl_version_info(CURLVERSION_ELEVENTH)?.pointee else {
            let reason = dw_curl_load_error().map { String(cString: $0) } ?? "curl_version_info failed"
            return Curl(version: "unavailable (\(reason))", libraries: [], protocols: [], features: [])
        }
        func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        func list(_ p: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
            guard let p else { return [] }
            var out: [String] = []
            var i = 0
            while let item = p[i] {
                out.append(String(cString: item))
                i += 1
            }
            return out
        }
        let age = info.age.rawValue
        var libraries: [String] = []
        if let ssl = string(info.ssl_version) { libraries.append(ssl) }
        if let z = string(info.libz_version) { libraries.append("zlib/\(z)") }
        if age >= CURLVERSION_FIFTH.rawValue, let brotli = string(info.brotli_version) {
            libraries.append("brotli/\(brotli)")
        }
        if age >= CURLVERSION_EIGHTH.rawValue, let zstd = string(info.zstd_version) { libraries.append("zstd/\(zstd)") }
        if let idn = string(info.libidn) { libraries.append("libidn2/\(idn)") }
        if age >= CURLVERSION_FOURTH.rawValue, let ssh = string(info.libssh_version) { libraries.append(ssh) }
        if age >= CURLVERSION_SIXTH.rawValue, let h2 = string(info.nghttp2_version) {
            libraries.append("nghttp2/\(h2)")
        }
        if age >= CURLVERSION_SIXTH.rawValue, let quic = string(info.quic_version) { libraries.append(quic) }
        let features = age >= CURLVERSION_ELEVENTH.rawValue ? list(info.feature_names) : []
        return Curl(
            version: string(info.version) ?? "?", libraries: libraries, protocols: list(info.protocols),
            features: features,
            defaultCAFile: age >= CURLVERSION_SEVENTH.rawValue ? string(info.cainfo) : nil,
            defaultCAPath: age >= CURLVERSION_SEVENTH.rawValue ? string(info.capath) : nil)
    }

    /// giflib's version ("5.2.1"), from the headers it was compiled against (giflib has no run-time query).
    public static var giflib: String { "\(GIFLIB_MAJOR).\(GIFLIB_MINOR).\(GIFLIB_RELEASE)" }

    /// zlib's version at run time (`zlibVersion()`).
    public static var zlib: String { String(cString: zlibVersion()) }
}
