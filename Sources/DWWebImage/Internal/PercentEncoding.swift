// PercentEncoding: `%HH` escapes made and decoded on UTF-8 bytes where the rule is a byte rule (the URL validator,
// S3's keys and query, the loaders, the SVG guard and the server's URL parsers); Foundation's `addingPercentEncoding`
// where a character set says it.

/// RFC 3986 percent-encoding on bytes. Pure; any thread.
package enum PercentEncoding {
    /// `bytes` with every `%HH` decoded. A `%` not followed by two hex digits stays as it is when `lenient` (as
    /// browsers read `data:` URLs); otherwise the answer is nil (as `removingPercentEncoding` answers).
    package static func decode<C: Collection>(_ bytes: C, lenient: Bool) -> [UInt8]? where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let byte = bytes[i]
            bytes.formIndex(after: &i)
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            let second = i == bytes.endIndex ? i : bytes.index(after: i)
            if i != bytes.endIndex, second != bytes.endIndex, let high = hexValue(bytes[i]),
                let low = hexValue(bytes[second])
            {
                out.append(high << 4 | low)
                i = bytes.index(after: second)
            } else if lenient {
                out.append(byte)
            } else {
                return nil
            }
        }
        return out
    }

    /// `text`'s UTF-8 bytes, each one `keeps` refuses as `%HH`.
    package static func encode(_ text: some StringProtocol, keeping keeps: (UInt8) -> Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keeps(byte) { out.append(byte) } else { appendEscaped(byte, to: &out) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `byte` as `%HH` (upper-case hex digits, RFC 3986's preference) to `out`.
    package static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        out.append(upperHexDigits[Int(byte >> 4)])
        out.append(upperHexDigits[Int(byte & 0x0F)])
    }

    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// The value of one hex digit (either case), or nil.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
