// ImageSniffer + PNM: Netpbm headers (PBM, PGM, PPM in ASCII or binary; PFM), read as libvips' ppmload and Pillow do.
import Foundation

extension ImageSniffer {
    /// `P1`…`P6`, `PF` or `Pf`, then whitespace: a Netpbm header (a two-byte magic alone is too weak to claim).
    static func isPNM(_ b: Bytes) -> Bool {
        guard b.count >= 3, b[0] == 0x50, let kind = b.u8(1), Array("123456Ff".utf8).contains(kind) else {
            return false
        }
        return isSpace(b[2])
    }

    /// Width and height after the magic: decimal tokens separated by whitespace, `#` comments running to the end of
    /// their line (PFM has no comments; its tokens follow the same rule here). Then, as Pillow and Netpbm hold them,
    /// a PGM's or PPM's maxval must be 1…65535 and a PFM's scale finite and non-zero.
    static func pnm(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        var offset = 2
        var numbers: [Int] = []
        let kind = b[1]
        let wanted = kind == 0x31 || kind == 0x34 ? 2 : 3  // P1 and P4 (PBM) have no maxval
        while numbers.count < wanted {
            skipSpaceAndComments(b, &offset)
            if numbers.count == 2, kind == 0x46 || kind == 0x66 {  // PF, Pf: the scale, a decimal number
                let start = offset
                while offset < b.count, !isSpace(b[offset]), offset - start < 64 { offset += 1 }
                let token = String(decoding: (start..<offset).map { b[$0] }, as: UTF8.self)
                guard offset < b.count, isSpace(b[offset]), let scale = Double(token), scale.isFinite, scale != 0 else {
                    throw SniffFailure("PFM scale must be a finite, non-zero number (\"\(token.prefix(16))\")")
                }
                break
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
        if numbers.count == 3, !(1...65535).contains(numbers[2]) {
            throw SniffFailure("PNM maxval \(numbers[2]) is not 1…65535")
        }
        return ImageInfo(format: .pnm, width: numbers[0], height: numbers[1])
    }

    private static func skipSpaceAndComments(_ b: Bytes, _ offset: inout Int) {
        while offset < b.count, isSpace(b[offset]) || b[offset] == 0x23 {
            if b[offset] == 0x23 {
                while offset < b.count, b[offset] != 0x0A, b[offset] != 0x0D { offset += 1 }
            } else {
                offset += 1
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
}

/// A PFM's raster (32-bit floats after the three header tokens, little-endian when the scale is negative), read
/// for the decoder: libvips' ppmload takes NaN and infinities as they are. Safe on any thread.
package enum PFMSamples {
    /// The index of the first sample that is NaN or an infinity; nil when every sample present is finite, or the
    /// data is not a PFM.
    package static func firstNonFinite(_ data: Data) -> Int? {
        data.withUnsafeBytes { raw -> Int? in
            let b = Bytes(raw)
            guard b.count > 3, b[0] == 0x50, b[1] == 0x46 || b[1] == 0x66 else { return nil }
            var offset = 2
            var tokens: [String] = []
            while tokens.count < 3 {
                while offset < b.count, b[offset] == 0x20 || (0x09...0x0D).contains(b[offset]) { offset += 1 }
                let start = offset
                while offset < b.count, !(b[offset] == 0x20 || (0x09...0x0D).contains(b[offset])) { offset += 1 }
                guard offset > start, offset - start < 64 else { return nil }
                tokens.append(String(decoding: (start..<offset).map { b[$0] }, as: UTF8.self))
            }
            guard let scale = Double(tokens[2]) else { return nil }
            // One whitespace byte ends the header; the exponent's bits are in the sample's top two bytes.
            let (high, low) = scale < 0 ? (3, 2) : (0, 1)
            var index = 0
            var at = offset + 1
            while at + 4 <= b.count {
                if b[at + high] & 0x7F == 0x7F, b[at + low] & 0x80 != 0 { return index }
                index += 1
                at += 4
            }
            return nil
        }
    }
}
