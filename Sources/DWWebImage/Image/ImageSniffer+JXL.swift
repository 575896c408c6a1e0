// JPEG XL headers: the bare codestream (FF 0A) and the ISO-BMFF container (a "JXL " signature box, then jxlc or
// jxlp boxes holding the codestream), read to the codestream's SizeHeader.
extension ImageSniffer {
    /// The container's signature box: size 12, type `JXL `, content 0D 0A 87 0A.
    static let jxlContainerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// Whether the bytes start like JPEG XL (either form).
    static func isJXL(_ b: Bytes) -> Bool {
        b.matches(0, [0xFF, 0x0A]) || b.matches(0, jxlContainerSignature)
    }

    /// The size from the codestream's SizeHeader (frames: 1; an animation is read as its first frame).
    static func jxl(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        let header = try jxlSizeHeader(b)
        return ImageInfo(format: .jxl, width: header.width, height: header.height)
    }

    /// The codestream's SizeHeader (either form), and a reader at the ImageMetadata that follows it.
    private static func jxlSizeHeader(_ b: Bytes) throws(SniffFailure) -> (width: Int, height: Int, next: BitReader) {
        let start = b.matches(0, [0xFF, 0x0A]) ? 0 : try jxlCodestreamStart(b)
        var bits = BitReader(b, offset: start + 2)
        guard let (width, height) = bits.jxlSize() else {
            throw SniffFailure("JPEG XL size header ends at byte \(b.count)")
        }
        return (width, height, bits)
    }

    /// The orientation in the codestream's ImageMetadata, which follows the SizeHeader: 1 when `all_default` or no
    /// `extra_fields`, else 1 + the next 3 bits. It overrides any EXIF the file carries, as libjxl reads it. nil when
    /// the bytes end first or hold no codestream.
    static func jxlOrientation(_ b: Bytes) -> Int? {
        guard var bits = try? jxlSizeHeader(b).next, let allDefault = bits.read(1) else { return nil }
        if allDefault == 1 { return 1 }
        guard let extraFields = bits.read(1) else { return nil }
        if extraFields == 0 { return 1 }
        return bits.read(3).map { $0 + 1 }
    }

    /// Where the codestream starts in a container: the content of its `jxlc` box, or of its first `jxlp` box (after
    /// the 4-byte part index). Boxes are walked by their sizes (64-bit sizes and "to the end" included).
    private static func jxlCodestreamStart(_ b: Bytes) throws(SniffFailure) -> Int {
        var offset = 0
        while let size32 = b.u32be(offset), let type = b.fourCC(offset + 4) {
            var header = 8, size = Int(size32)
            if size32 == 1 {
                guard let high = b.u32be(offset + 8), let low = b.u32be(offset + 12), high == 0 else { break }
                (header, size) = (16, Int(low))
            } else if size32 == 0 {
                size = b.count - offset
            }
            if type == "jxlc" { return offset + header }
            if type == "jxlp" { return offset + header + 4 }
            guard size >= header else { break }
            offset += size
        }
        throw SniffFailure("JPEG XL container has no codestream box (jxlc, jxlp)")
    }
}

/// Bits read least significant first, as JPEG XL's headers are written.
struct BitReader {
    let bytes: Bytes
    var position: Int

    init(_ bytes: Bytes, offset: Int) {
        self.bytes = bytes
        position = offset * 8
    }

    /// The next `n` bits (n ≤ 32), nil past the end.
    mutating func read(_ n: Int) -> Int? {
        var value = 0
        for i in 0..<n {
            guard let byte = bytes.u8(position >> 3) else { return nil }
            value |= Int((byte >> UInt8(position & 7)) & 1) << i
            position += 1
        }
        return value
    }

    /// JPEG XL's U32 for the dimensions: a 2-bit selector, then 9, 13, 18 or 30 bits, plus one.
    private mutating func dimension() -> Int? {
        guard let selector = read(2), let value = read([9, 13, 18, 30][selector]) else { return nil }
        return value + 1
    }

    /// SizeHeader: `small` (multiples of 8 up to 256), the height, a ratio code, the width (ratio 0) or the height
    /// times the ratio (1:1, 12:10, 4:3, 3:2, 16:9, 5:4, 2:1).
    mutating func jxlSize() -> (width: Int, height: Int)? {
        guard let small = read(1) else { return nil }
        let height: Int
        if small == 1 {
            guard let h = read(5) else { return nil }
            height = (h + 1) * 8
        } else {
            guard let h = dimension() else { return nil }
            height = h
        }
        guard let ratio = read(3) else { return nil }
        if ratio != 0 {
            let (num, den) = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)][ratio - 1]
            return (height * num / den, height)
        }
        if small == 1 {
            guard let w = read(5) else { return nil }
            return ((w + 1) * 8, height)
        }
        guard let w = dimension() else { return nil }
        return (w, height)
    }
}
