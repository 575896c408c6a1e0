// Bytes: the sniffers' bounds-checked reader.

/// A bounds-checked view of raw bytes: every accessor returns nil past the end.
struct Bytes {
    let raw: UnsafeRawBufferPointer
    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }
    var count: Int { raw.count }
    subscript(_ i: Int) -> UInt8 { raw[i] }

    func u8(_ o: Int) -> UInt8? { o >= 0 && o < raw.count ? raw[o] : nil }
    func has(_ o: Int, _ n: Int) -> Bool { o >= 0 && n >= 0 && o <= raw.count - n }
    func matches(_ o: Int, _ bytes: [UInt8]) -> Bool {
        guard has(o, bytes.count) else { return false }
        for (i, byte) in bytes.enumerated() where raw[o + i] != byte { return false }
        return true
    }
    func u16be(_ o: Int) -> UInt16? { has(o, 2) ? raw.bigEndianUInt16(at: o) : nil }
    func u16le(_ o: Int) -> UInt16? { has(o, 2) ? raw.littleEndianUInt16(at: o) : nil }
    func u24le(_ o: Int) -> Int? { has(o, 3) ? Int(raw[o]) | Int(raw[o + 1]) << 8 | Int(raw[o + 2]) << 16 : nil }
    func u32be(_ o: Int) -> UInt32? { has(o, 4) ? raw.bigEndianUInt32(at: o) : nil }
    func u32le(_ o: Int) -> UInt32? { has(o, 4) ? raw.littleEndianUInt32(at: o) : nil }
    func u64le(_ o: Int) -> UInt64? { has(o, 8) ? raw.littleEndianUInt64(at: o) : nil }
    func fourCC(_ o: Int) -> String? { has(o, 4) ? raw.fourCC(at: o) : nil }
}
