// DWURLBytes: the URL work of every image request done on UTF-8 bytes — percent-decoding a plain source, and the
// scheme, userinfo and host of the usual `http(s)://host[:port]/…` source — without Foundation's bridged string
// searches (`URLComponents`, `removingPercentEncoding`, `range(of:)`), which cost tens of microseconds a request.
// Anything unusual is left to the Foundation path, which stays the reference.
import DWWebImage

/// Byte-level helpers for ``DWProxyURL`` and the server's source checks. Pure functions; any thread.
enum DWURLBytes {
    /// The first `byte` in `text` (a byte search on its contiguous UTF-8, not a `Character` walk).
    static func firstIndex(of byte: UInt8, in text: Substring) -> String.Index? {
        let utf8 = text.utf8
        if let found = utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: byte) }) {
            return found.map { utf8.index(utf8.startIndex, offsetBy: $0) }
        }
        return utf8.firstIndex(of: byte)
    }

    /// `text` with every `%HH` decoded, or nil when a `%` is not followed by two hex digits or the bytes are not
    /// UTF-8 (as `removingPercentEncoding` answers).
    static func percentDecoded(_ text: Substring) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        guard let bytes = PercentEncoding.decode(utf8, lenient: false) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The host of a plain `http://` or `https://` URL (scheme in any case), lower-cased, when every byte is one RFC
    /// 3986 allows outside a host literal (no `#`, no `[`/`]`, every `%` followed by two hex digits), the host is
    /// letters, digits, `.` and `-`, the port, if any, 1–65535, and at most one `@` ends a userinfo — the URLs
    /// `URLComponents` reads the same way; nil for anything else (the caller then asks `URLComponents`).
    /// `hasUserinfo` says whether `user[:password]@` came before the host.
    static func simpleHTTPAuthority(_ url: String) -> (host: String, hasUserinfo: Bool)? {
        var url = url
        return url.withUTF8 { bytes -> (host: String, hasUserinfo: Bool)? in
            let schemeLength: Int
            if hasPrefixIgnoringCase(bytes, "https://") {
                schemeLength = 8
            } else if hasPrefixIgnoringCase(bytes, "http://") {
                schemeLength = 7
            } else {
                return nil
            }
            var authorityEnd = bytes.count
            var at: Int?
            for i in schemeLength..<bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") {
                    authorityEnd = i
                    break
                }
                if byte == UInt8(ascii: "@") {
                    guard at == nil else { return nil }  // "@" twice: URLComponents' business
                    at = i
                }
            }
            guard allowedRest(bytes, schemeLength..<(at ?? schemeLength)),
                allowedRest(bytes, authorityEnd..<bytes.count)
            else { return nil }
            let hostStart = at.map { $0 + 1 } ?? schemeLength
            var hostEnd = authorityEnd
            if let colon = (hostStart..<authorityEnd).first(where: { bytes[$0] == UInt8(ascii: ":") }) {
                var port = 0
                for i in (colon + 1)..<authorityEnd {
                    guard (0x30...0x39).contains(bytes[i]), port <= 65535 else { return nil }
                    port = port * 10 + Int(bytes[i] - 0x30)
                }
                guard (1...65535).contains(port) else { return nil }
                hostEnd = colon
            }
            guard hostStart < hostEnd, (hostStart..<hostEnd).allSatisfy({ isHostByte(bytes[$0]) }) else { return nil }
            let host = String(unsafeUninitializedCapacity: hostEnd - hostStart) { buffer in
                for i in hostStart..<hostEnd {
                    let byte = bytes[i]
                    buffer[i - hostStart] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                }
                return hostEnd - hostStart
            }
            return (host, at != nil)
        }
    }

    /// Whether `source` carries `user[:password]@` before its host: the part after the first "://" up to the first
    /// "/", "?" or "#" holds an "@".
    static func hasUserinfo(_ source: String) -> Bool {
        let utf8 = Array(source.utf8)
        guard utf8.count >= 3 else { return false }
        var start = -1
        for i in 0...(utf8.count - 3)
        where utf8[i] == UInt8(ascii: ":") && utf8[i + 1] == UInt8(ascii: "/")
            && utf8[i + 2] == UInt8(ascii: "/")
        {
            start = i + 3
            break
        }
        guard start >= 0 else { return false }
        for byte in utf8[start...] {
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return false
            case UInt8(ascii: "@"): return true
            default: continue
            }
        }
        return false
    }

    private static func hasPrefixIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        for i in 0..<prefix.utf8CodeUnitCount {
            let expected = prefix.utf8Start[i]
            let byte = bytes[i]
            guard byte == expected || (byte | 0x20) == expected && (0x61...0x7A).contains(expected) else {
                return false
            }
        }
        return true
    }

    /// Path, query and userinfo bytes in `range`: unreserved, sub-delims, ":", "@", "/", "?", and "%HH".
    private static func allowedRest(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var i = range.lowerBound
        while i < range.upperBound {
            let byte = bytes[i]
            i += 1
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                continue
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
                UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
                UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
                UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
                continue
            case UInt8(ascii: "%"):
                guard i + 1 < range.upperBound, PercentEncoding.hexValue(bytes[i]) != nil,
                    PercentEncoding.hexValue(bytes[i + 1]) != nil
                else {
                    return false
                }
                i += 2
            default:
                return false
            }
        }
        return true
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
