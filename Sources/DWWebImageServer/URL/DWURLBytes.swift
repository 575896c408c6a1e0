// DWURLBytes: the URL work of every image request done on UTF-8 bytes — percent-decoding a plain source, and the
// scheme, userinfo and host of the usual `http(s)://host[:port]/…` source — without Foundation's bridged string
// searches (`URLComponents`, `removingPercentEncoding`, `range(of:)`), which cost tens of microseconds a request.
// Anything unusual is left to the Foundation path, which stays the reference.

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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard index != utf8.endIndex, let high = hexValue(utf8[index]) else { return nil }
            utf8.formIndex(after: &index)
            guard index != utf8.endIndex, let low = hexValue(utf8[index]) else { return nil }
            utf8.formIndex(after: &index)
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The authority of a plain `http://` or `https://` URL (scheme in any case) whose every byte is one RFC 3986
    /// allows outside a host literal (no `#`, no `[`/`]`, every `%` followed by two hex digits), whose host is
    /// letters, digits, `.` and `-`, and whose port, if any, is 1–65535 — the URLs `URLComponents` reads the same
    /// way; nil for anything else (the caller then asks `URLComponents`). The host keeps its case; `hasUserinfo`
    /// says whether `user[:password]@` came before it.
    static func simpleHTTPAuthority(_ url: String) -> (host: Substring, hasUserinfo: Bool)? {
        let utf8 = url.utf8
        let schemeLength: Int
        if hasPrefixIgnoringCase(utf8, "https://") {
            schemeLength = 8
        } else if hasPrefixIgnoringCase(utf8, "http://") {
            schemeLength = 7
        } else {
            return nil
        }
        let authorityStart = utf8.index(utf8.startIndex, offsetBy: schemeLength)
        var authorityEnd = utf8.endIndex
        var index = authorityStart
        var at: String.UTF8View.Index?
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") {
                authorityEnd = index
                break
            }
            if byte == UInt8(ascii: "@") {
                guard at == nil else { return nil }  // "@" twice: URLComponents' business
                at = index
            }
            utf8.formIndex(after: &index)
        }
        guard allowedRest(utf8[authorityEnd...]) else { return nil }
        let hostStart = at.map { utf8.index(after: $0) } ?? authorityStart
        if let at, !allowedRest(utf8[authorityStart..<at]) { return nil }
        var hostEnd = authorityEnd
        if let colon = utf8[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: ":")) {
            let port = utf8[utf8.index(after: colon)..<authorityEnd]
            guard (1...5).contains(port.count), port.allSatisfy({ (0x30...0x39).contains($0) }),
                  let value = Int(Substring(port)), (1...65535).contains(value) else { return nil }
            hostEnd = colon
        }
        let host = utf8[hostStart..<hostEnd]
        guard !host.isEmpty, host.allSatisfy(isHostByte) else { return nil }
        return (Substring(host), at != nil)
    }

    /// Whether `source` carries `user[:password]@` before its host: the part after the first "://" up to the first
    /// "/", "?" or "#" holds an "@".
    static func hasUserinfo(_ source: String) -> Bool {
        let utf8 = Array(source.utf8)
        guard utf8.count >= 3 else { return false }
        var start = -1
        for i in 0...(utf8.count - 3) where utf8[i] == UInt8(ascii: ":") && utf8[i + 1] == UInt8(ascii: "/")
            && utf8[i + 2] == UInt8(ascii: "/") {
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

    private static func hasPrefixIgnoringCase(_ utf8: String.UTF8View, _ prefix: StaticString) -> Bool {
        var index = utf8.startIndex
        for i in 0..<prefix.utf8CodeUnitCount {
            guard index != utf8.endIndex else { return false }
            let expected = prefix.utf8Start[i]
            let byte = utf8[index]
            guard byte == expected || (byte | 0x20) == expected && (0x61...0x7A).contains(expected) else { return false }
            utf8.formIndex(after: &index)
        }
        return true
    }

    /// Path, query and userinfo bytes: unreserved, sub-delims, ":", "@", "/", "?", and "%HH".
    private static func allowedRest(_ bytes: Substring.UTF8View) -> Bool {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
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
                guard index != bytes.endIndex, hexValue(bytes[index]) != nil else { return false }
                bytes.formIndex(after: &index)
                guard index != bytes.endIndex, hexValue(bytes[index]) != nil else { return false }
                bytes.formIndex(after: &index)
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

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
