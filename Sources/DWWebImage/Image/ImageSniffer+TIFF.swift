// TIFF and BigTIFF headers: the first IFD's ImageWidth and ImageLength.

extension ImageSniffer {
    // MARK: - TIFF and BigTIFF (first IFD's ImageWidth / ImageLength)

    static func tiff(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        let little = b[0] == 0x49
        let big = b[2] == 0x2B || b[3] == 0x2B
        let name = big ? "BigTIFF" : "TIFF"
        func u16(_ o: Int) -> UInt16? { little ? b.u16le(o) : b.u16be(o) }
        func u32(_ o: Int) -> UInt32? { little ? b.u32le(o) : b.u32be(o) }
        func u64(_ o: Int) -> UInt64? {
            guard let first = u32(o), let second = u32(o + 4) else { return nil }
            return little ? UInt64(second) << 32 | UInt64(first) : UInt64(first) << 32 | UInt64(second)
        }
        // Classic: u32 IFD offset; u16 count; 12-byte entries (tag, type, u32 count, 4-byte value).
        // BigTIFF: u16 8 (offset size), u16 0, u64 IFD offset; u64 count; 20-byte entries (u64 count, 8-byte value).
        let ifdOffset: UInt64
        if big {
            guard u16(4) == 8, u16(6) == 0 else { throw SniffFailure("BigTIFF header does not declare 8-byte offsets") }
            guard let offset = u64(8) else { throw SniffFailure("BigTIFF header ends at byte \(b.count)") }
            ifdOffset = offset
        } else {
            guard let offset = u32(4) else { throw SniffFailure("TIFF header ends at byte \(b.count)") }
            ifdOffset = UInt64(offset)
        }
        let (entrySize, countSize) = big ? (20, 8) : (12, 2)
        guard ifdOffset >= (big ? 16 : 8), ifdOffset < UInt64(b.count) else {
            throw SniffFailure("\(name) first IFD offset \(ifdOffset) is outside the \(b.count)-byte file")
        }
        let ifd = Int(ifdOffset)
        guard let rawCount = big ? u64(ifd) : u16(ifd).map(UInt64.init) else {
            throw SniffFailure("\(name) IFD at byte \(ifd) ends at byte \(b.count)")
        }
        guard rawCount > 0, rawCount <= UInt64((b.count - ifd) / entrySize + 1) else {
            throw SniffFailure("\(name) IFD at byte \(ifd) declares \(rawCount) entries, which the file cannot hold")
        }
        var width: Int?, height: Int?
        for i in 0..<Int(rawCount) {
            let entry = ifd + countSize + i * entrySize
            guard let tag = u16(entry), let type = u16(entry + 2) else {
                throw SniffFailure("\(name) IFD entry \(i) ends at byte \(b.count)")
            }
            guard tag == 256 || tag == 257 else { continue }
            let valueOffset = entry + (big ? 12 : 8)
            let value: Int?
            switch type {
            case 3: value = u16(valueOffset).map(Int.init)
            case 4: value = u32(valueOffset).map(Int.init)
            case 16 where big: value = u64(valueOffset).flatMap { $0 <= UInt64(Int32.max) ? Int($0) : nil }
            default: value = nil
            }
            if tag == 256 { width = value } else { height = value }
        }
        guard let width, let height else {
            throw SniffFailure("\(name) first IFD has no readable ImageWidth and ImageLength")
        }
        return ImageInfo(format: .tiff, width: width, height: height)
    }
}
