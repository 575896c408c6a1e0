// ASCII: byte-level ASCII checks every request makes — case-insensitive scheme prefixes, white space.

extension StringProtocol {
    /// Whether the text starts with `prefix`, ASCII letters compared without case (`prefix` is ASCII and lower
    /// case, e.g. `"s3://"`). The same answer as `self.prefix(n).lowercased() == prefix` for such a prefix — no
    /// other character lowercases to an ASCII one of a URL scheme — without building Characters or Strings (a request
    /// asks several of these: loaders, S3). Any thread.
    func hasASCIIPrefixIgnoringCase(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        return prefix.withUTF8Buffer { expected in
            var bytes = utf8.makeIterator()
            for index in 0..<count {
                guard let byte = bytes.next() else { return false }
                let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                if lower != expected[index] { return false }
            }
            return true
        }
    }
}

extension UInt8 {
    /// Whether the byte is XML's and HTTP's white space: space, tab, line feed or carriage return (XML 1.0 `S`;
    /// RFC 9110's OWS and the line ends around it). Any thread.
    package var isASCIISpace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
