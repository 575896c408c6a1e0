// HEIF / AVIF header reading: the primary item's size, found through the box structure.

extension ImageSniffer {
    /// The size of a HEIF/AVIF file's primary image: `meta` → `pitm` names the primary item, `iprp` → `ipma` lists
    /// the properties associated with it, `ipco` holds them; the primary item's `ispe` is its size. A file may hold
    /// other `ispe` boxes before it (thumbnails, grid tiles, auxiliary images), so the first one is not the answer.
    /// When the structure cannot be walked (a cut header), the first `ispe` in the first MiB is the fallback.
    static func isobmff(_ b: Bytes, _ format: DWImageFormat) throws(SniffFailure) -> ImageInfo {
        if let (w, h) = HEIFBoxes(b).primaryItemSize() {
            return ImageInfo(format: format, width: Int(w), height: Int(h))
        }
        let limit = min(b.count, 1 << 20)
        let ispe = Array("ispe".utf8)
        var offset = 8
        while offset + 16 <= limit {
            if b.matches(offset, ispe), let w = b.u32be(offset + 8), let h = b.u32be(offset + 12) {
                return ImageInfo(format: format, width: Int(w), height: Int(h))
            }
            offset += 1
        }
        throw SniffFailure("\(format.rawValue) has no image size (ispe) in its first \(limit) bytes")
    }
}

/// A walk over ISO-BMFF boxes (ISO/IEC 14496-12 and 23008-12) bounded by the bytes at hand: every read is checked.
struct HEIFBoxes {
    let b: Bytes

    init(_ b: Bytes) { self.b = b }

    /// One box: its type, where its payload starts and where the box ends.
    struct Box {
        let type: String
        let payload: Int
        let end: Int
    }

    /// The boxes between `start` and `end`, stopping at the first one that does not fit.
    func children(_ start: Int, _ end: Int) -> [Box] {
        var boxes: [Box] = []
        var offset = start
        while offset + 8 <= end, let size32 = b.u32be(offset), let type = b.fourCC(offset + 4) {
            var size = Int(size32), header = 8
            if size32 == 1 {
                guard let hi = b.u32be(offset + 8), let lo = b.u32be(offset + 12), hi == 0 else { break }
                size = Int(lo)
                header = 16
            } else if size32 == 0 {
                size = end - offset
            }
            guard size >= header, size <= end - offset else { break }
            boxes.append(Box(type: type, payload: offset + header, end: offset + size))
            offset += size
        }
        return boxes
    }

    /// The primary item's `ispe` width and height, or nil when any box on the way is missing or cut.
    func primaryItemSize() -> (UInt32, UInt32)? {
        guard let meta = children(0, b.count).first(where: { $0.type == "meta" }) else { return nil }
        let inMeta = children(meta.payload + 4, meta.end)  // meta is a FullBox: version and flags first
        guard let pitm = inMeta.first(where: { $0.type == "pitm" }), let version = b.u8(pitm.payload),
            let primary = version == 0 ? b.u16be(pitm.payload + 4).map(UInt32.init) : b.u32be(pitm.payload + 4),
            let iprp = inMeta.first(where: { $0.type == "iprp" })
        else { return nil }
        let inIprp = children(iprp.payload, iprp.end)
        guard let ipco = inIprp.first(where: { $0.type == "ipco" }) else { return nil }
        let properties = children(ipco.payload, ipco.end)
        for ipma in inIprp where ipma.type == "ipma" {
            for index in associations(ipma, item: primary) where index >= 1 && index <= properties.count {
                let property = properties[index - 1]
                if property.type == "ispe", let w = b.u32be(property.payload + 4), let h = b.u32be(property.payload + 8)
                {
                    return (w, h)
                }
            }
        }
        return nil
    }

    /// The 1-based `ipco` indices an `ipma` box associates with `item` (version 0/1 item IDs, flag 1: 15-bit indices).
    private func associations(_ ipma: Box, item: UInt32) -> [Int] {
        guard let version = b.u8(ipma.payload), let flags = b.u8(ipma.payload + 3),
            let count = b.u32be(ipma.payload + 4)
        else { return [] }
        var offset = ipma.payload + 8
        for _ in 0..<min(Int(count), ipma.end - offset) {
            let id: UInt32?
            if version < 1 {
                id = b.u16be(offset).map(UInt32.init)
                offset += 2
            } else {
                id = b.u32be(offset)
                offset += 4
            }
            guard let id, let n = b.u8(offset) else { return [] }
            offset += 1
            var indices: [Int] = []
            for _ in 0..<Int(n) {
                if flags & 1 != 0 {
                    guard let v = b.u16be(offset) else { return [] }
                    indices.append(Int(v & 0x7FFF))
                    offset += 2
                } else {
                    guard let v = b.u8(offset) else { return [] }
                    indices.append(Int(v & 0x7F))
                    offset += 1
                }
            }
            guard offset <= ipma.end else { return [] }
            if id == item { return indices }
        }
        return []
    }
}
