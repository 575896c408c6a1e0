// URLValidator: from a user's URL string to an ASCII http(s) URL libcurl can fetch, or error 10001/10002.
import Foundation

enum URLValidator {
    /// Returns the URL with non-ASCII bytes, spaces, controls and unsafe characters percent-encoded (the cache key
    /// stays the caller's string), or the error a user should see.
    ///
    /// The usual URL (`http(s)://host[:port]` and RFC 3986 characters after it) is checked byte by byte; anything
    /// else goes through `URLComponents`, which costs tens of microseconds a URL.
    static func validate(_ raw: String, s3: DWS3Configuration? = nil) -> Result<String, DWWebImageError> {
        // Already the usual URL (no space to trim, nothing to encode: `authority` admits neither): as given.
        if raw.utf8.withContiguousStorageIfAvailable({ authority(of: $0) != nil }) == true { return .success(raw) }
        let trimmed = Substring(raw).trimmedWhitespace()
        guard !trimmed.isEmpty else { return .failure(.emptyURL()) }
        if let s3, trimmed.hasASCIIPrefixIgnoringCase("s3://") {
            guard let location = DWS3Location(String(trimmed)), !location.key.isEmpty else {
                return .failure(.invalidURL(raw, "not s3://bucket/key"))
            }
            return validate(s3.httpURL(bucket: location.bucket, key: location.key))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(trimmed.utf8.count)
        for byte in trimmed.utf8 {
            switch byte {
            case 0x21...0x7E where !unsafe(byte):
                bytes.append(byte)
            default:
                PercentEncoding.appendEscaped(byte, to: &bytes)
            }
        }
        let ascii = String(decoding: bytes, as: UTF8.self)
        if authority(of: bytes) != nil { return .success(ascii) }
        guard let components = URLComponents(string: ascii) else {
            return .failure(.invalidURL(raw, "malformed"))
        }
        guard let scheme = components.scheme?.lowercased() else {
            return .failure(.invalidURL(raw, "no scheme (expected http:// or https://)"))
        }
        guard scheme == "http" || scheme == "https" else {
            return .failure(.invalidURL(raw, "scheme \"\(scheme)\" is not http or https"))
        }
        guard let host = components.host, !host.isEmpty else {
            return .failure(.invalidURL(raw, "no host"))
        }
        if let port = components.port, !(1...65535).contains(port) {
            return .failure(.invalidURL(raw, "port \(port) out of range"))
        }
        return .success(ascii)
    }

    /// `host:port` of a validated URL, the host lowercased, the port defaulting by scheme (80, 443).
    static func hostKey(_ url: String) -> String {
        // Only the scheme and authority are read (the URL was validated whole already), and the key is made in
        // one go: `host:port` of a loopback or short name fits a small string, no allocation.
        let fast = url.utf8.withContiguousStorageIfAvailable { b -> String? in
            guard let (host, port, https, _) = authorityPrefix(of: b) else { return nil }
            let number = port ?? (https ? 443 : 80)  // 1…65535
            let digits = number >= 10000 ? 5 : number >= 1000 ? 4 : number >= 100 ? 3 : number >= 10 ? 2 : 1
            return String(unsafeUninitializedCapacity: host.count + 1 + digits) { out in
                var n = 0
                for byte in b[host] {
                    out[n] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                    n += 1
                }
                out[n] = UInt8(ascii: ":")
                var rest = number
                for place in stride(from: n + digits, to: n, by: -1) {
                    out[place] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                return n + 1 + digits
            }
        }
        if let fast = fast ?? nil { return fast }
        guard let components = URLComponents(string: url), let host = components.host?.lowercased() else { return url }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
    }

    /// Bytes that are percent-encoded although printable: `"<>\^`{|}`.
    private static func unsafe(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D: true
        default: false
        }
    }

    /// The fast path: for `http(s)://host[:port][/path][?query][#fragment]` with a host of letters, digits, `.`
    /// and `-`, a port of 1…65535 and only RFC 3986 characters (valid `%XX` escapes) after it, the host's range,
    /// the port and whether it is https; nil for anything else (which `URLComponents` then judges). `b` is indexed
    /// from 0 (an array or a buffer).
    static func authority<Bytes: RandomAccessCollection<UInt8>>(
        of b: Bytes
    ) -> (host: Range<Int>, port: Int?, https: Bool)? where Bytes.Index == Int {
        guard let (host, port, https, end) = authorityPrefix(of: b) else { return nil }
        var i = end
        var fragment = false
        while i < b.count {
            let c = b[i]
            if c == 0x25 {  // %XX
                guard i + 2 < b.count, isHex(b[i + 1]), isHex(b[i + 2]) else { return nil }
                i += 3
                continue
            }
            if c == 0x23 {  // one '#'
                guard !fragment else { return nil }
                fragment = true
            } else if !isPathByte(c) {
                return nil
            }
            i += 1
        }
        return (host, port, https)
    }

    /// ``authority(of:)``'s scheme and authority part alone: the host's range, the port, whether it is https and
    /// where the rest (`/`, `?`, `#` or the end) starts; the rest is not looked at.
    private static func authorityPrefix<Bytes: RandomAccessCollection<UInt8>>(
        of b: Bytes
    ) -> (host: Range<Int>, port: Int?, https: Bool, end: Int)? where Bytes.Index == Int {
        func lower(_ i: Int) -> UInt8 { b[i] | 0x20 }
        guard b.count > 7, lower(0) == 0x68, lower(1) == 0x74, lower(2) == 0x74, lower(3) == 0x70 else { return nil }
        var i = 4
        let https = lower(4) == 0x73
        if https { i += 1 }
        guard i + 3 <= b.count, b[i] == 0x3A, b[i + 1] == 0x2F, b[i + 2] == 0x2F else { return nil }  // "://"
        i += 3
        let hostStart = i
        while i < b.count, isHostByte(b[i]) { i += 1 }
        let host = hostStart..<i
        guard !host.isEmpty else { return nil }
        var port: Int?
        if i < b.count, b[i] == 0x3A {
            i += 1
            var value = 0, digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39, digits < 6 {
                value = value * 10 + Int(b[i] - 0x30)
                digits += 1
                i += 1
            }
            guard digits >= 1, digits <= 5, (1...65535).contains(value) else { return nil }
            port = value
        }
        guard i == b.count || b[i] == 0x2F || b[i] == 0x3F || b[i] == 0x23 else { return nil }  // / ? #
        return (host, port, https, i)
    }

    private static func isHostByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x2D
    }

    private static func isHex(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    /// unreserved, sub-delims, ":", "@", "/", "?" (RFC 3986 pchar, query and fragment characters).
    private static func isPathByte(_ c: UInt8) -> Bool {
        if isHostByte(c) { return true }
        switch c {
        case 0x5F, 0x7E,  // _ ~
            0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D,  // ! $ & ' ( ) * + , ; =
            0x3A, 0x40, 0x2F, 0x3F:  // : @ / ?
            return true
        default:
            return false
        }
    }
}
