// ImageSniffer + PNM: Netpbm headers (PBM, PGM, PPM in ASCII or binary; PFM), read as libvips' ppmload and Pillow do.

extension ImageSniffer {
    /// `P1`…`P6`, `PF` or `Pf`, then whitespace: a Netpbm header (a two-byte magic alone is too weak to claim).
    static func isPNM(_ b: Bytes) -> Bool {
        guard b.count >= 3, b[0] == 0x50, let kind = b.u8(1), Array("123456Ff".utf8).contains(kind) else {
            return false
        }
        return isSpace(b[2])
    }

    /// Width and height after the magic: decimal tokens separated by whitespace, `#` comments running to the end of
    /// their line (PFM has no comments; its tokens follow the same rule here).
    static func pnm(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        var offset = 2
        var numbers: [Int] = []
        while numbers.count < 2 {
            while offset < b.count, isSpace(b[offset]) || b[offset] == 0x23 {
                if b[offset] == 0x23 {
                    while offset < b.count, b[offset] != 0x0A, b[offset] != 0x0D { offset += 1 }
                } else {
                    offset += 1
                }
            }
            var value = 0, digits = 0
            while offset < b.count, (0x30...0x39).contains(b[offset]), digits < 10 {
                value = value * 10 + Int(b[offset] - 0x30)
                digits += 1
                offset += 1
            }
            guard digits > 0, offset < b.count, isSpace(b[offset]) || b[offset] == 0x23 else {
                throw SniffFailure("PNM header ends or is malformed at byte \(offset)")
            }
            numbers.append(value)
        }
        return ImageInfo(format: .pnm, width: numbers[0], height: numbers[1])
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
}
