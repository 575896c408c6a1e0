// ASCIIPrefix: case-insensitive scheme checks on a URL's bytes, for the checks every request makes.

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
