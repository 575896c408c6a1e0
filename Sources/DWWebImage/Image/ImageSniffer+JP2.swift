// ImageSniffer + JPEG 2000: the JP2 box file (size from jp2h/ihdr, as Pillow reads it) and the bare codestream (size
// from SIZ), and the codestream's SIZ marker segment for the decoder's checks before OpenJPEG sees the bytes.
import Foundation

extension ImageSniffer {
    /// The JP2 signature box (`jP  \r\n\x87\n`, ISO 15444-1 I.5.1) or a codestream's SOC then SIZ (`FF 4F FF 51`).
    static func isJP2(_ b: Bytes) -> Bool {
        b.matches(0, [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
            || b.matches(0, [0xFF, 0x4F, 0xFF, 0x51])
    }

    /// A box file's size from the image header box (`ihdr` in `jp2h`: height, then width), a codestream's from SIZ
    /// (Xsiz − XOsiz by Ysiz − YOsiz), as Pillow reads them.
    static func jp2(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        if b.matches(0, [0xFF, 0x4F]) {
            let siz = try JPEG2000SIZ.read(b, at: 2)
            return ImageInfo(format: .jp2, width: siz.width, height: siz.height)
        }
        guard let header = JPEG2000SIZ.box("jp2h", in: b, from: 12, to: b.count) else {
            throw SniffFailure("JPEG 2000 has no header box (jp2h)")
        }
        guard let ihdr = JPEG2000SIZ.box("ihdr", in: b, from: header.start, to: header.end),
            ihdr.end - ihdr.start >= 14, let height = b.u32be(ihdr.start), let width = b.u32be(ihdr.start + 4)
        else { throw SniffFailure("JPEG 2000 has no image header box (ihdr)") }
        return ImageInfo(format: .jp2, width: Int(width), height: Int(height))
    }
}

/// A JPEG 2000 codestream's SIZ marker segment (ISO 15444-1 A.5.1): the image and tile grid and each component's
/// subsampling. Read by the decoder before libvips' jp2kload (OpenJPEG) is given the bytes. Safe on any thread.
package struct JPEG2000SIZ: Equatable, Sendable {
    /// Xsiz − XOsiz and Ysiz − YOsiz: the image's size on the reference grid.
    package var width: Int
    package var height: Int
    /// Tiles on the grid (at most 65535 in a valid codestream: a tile-part's Isot is 16 bits).
    package var tileCount: Int
    /// Each component's horizontal and vertical subsampling (XRsiz, YRsiz), 1…255.
    package var subsampling: [(x: Int, y: Int)]

    package static func == (a: JPEG2000SIZ, b: JPEG2000SIZ) -> Bool {
        [a.width, a.height, a.tileCount] == [b.width, b.height, b.tileCount]
            && a.subsampling.map { [$0.x, $0.y] } == b.subsampling.map { [$0.x, $0.y] }
    }

    /// The SIZ of the codestream in `data`: a bare codestream, or the contiguous codestream box (`jp2c`) of a JP2
    /// file; 10000 with the reason when there is none or it is malformed.
    package static func read(_ data: Data) throws(DWWebImageError) -> JPEG2000SIZ {
        let result = data.withUnsafeBytes { raw in
            let b = Bytes(raw)
            return Result { () throws(SniffFailure) -> JPEG2000SIZ in
                if b.matches(0, [0xFF, 0x4F]) { return try read(b, at: 2) }
                guard let stream = box("jp2c", in: b, from: 12, to: b.count), b.matches(stream.start, [0xFF, 0x4F])
                else { throw SniffFailure("JPEG 2000 has no codestream box (jp2c) starting with SOC") }
                return try read(b, at: stream.start + 2)
            }
        }
        switch result {
        case .success(let siz): return siz
        case .failure(let failure): throw DWWebImageError(.notAnImage, failure.reason)
        }
    }

    /// A JP2 file's size as its image header box (`ihdr`) declares it, `[width, height]`; nil for a bare codestream
    /// or a file without one.
    package static func declaredSize(_ data: Data) -> [Int]? {
        data.withUnsafeBytes { raw in
            let b = Bytes(raw)
            guard !b.matches(0, [0xFF, 0x4F]) else { return nil }
            return (try? ImageSniffer.jp2(b)).map { [$0.width, $0.height] }
        }
    }

    /// SIZ at `offset` (right after SOC).
    static func read(_ b: Bytes, at offset: Int) throws(SniffFailure) -> JPEG2000SIZ {
        guard b.matches(offset, [0xFF, 0x51]), let length = b.u16be(offset + 2), let count = b.u16be(offset + 38)
        else { throw SniffFailure("JPEG 2000 codestream has no complete SIZ marker at byte \(offset)") }
        let field = { (i: Int) in Int(b.u32be(offset + 6 + 4 * i) ?? 0) }
        let (xsiz, ysiz, xosiz, yosiz, xtsiz, ytsiz, xtosiz, ytosiz) =
            (field(0), field(1), field(2), field(3), field(4), field(5), field(6), field(7))
        guard count >= 1, count <= 16384, Int(length) == 38 + 3 * Int(count), b.has(offset + 2, Int(length)) else {
            throw SniffFailure("JPEG 2000 SIZ marker is malformed (length \(length), \(count) components)")
        }
        // A.5.1's constraints: the origin inside the image, the first tile covering it.
        guard xsiz > xosiz, ysiz > yosiz, xtsiz > 0, ytsiz > 0, xtosiz <= xosiz, ytosiz <= yosiz,
            xtosiz + xtsiz > xosiz, ytosiz + ytsiz > yosiz
        else {
            throw SniffFailure("JPEG 2000 SIZ marker has an invalid grid (\(xsiz)×\(ysiz) from \(xosiz),\(yosiz))")
        }
        let across = (xsiz - xtosiz + xtsiz - 1) / xtsiz, down = (ysiz - ytosiz + ytsiz - 1) / ytsiz
        let tiles = across.multipliedReportingOverflow(by: down)
        var subsampling: [(x: Int, y: Int)] = []
        for c in 0..<Int(count) {
            let at = offset + 41 + 3 * c
            subsampling.append((Int(b.u8(at) ?? 0), Int(b.u8(at + 1) ?? 0)))
        }
        return JPEG2000SIZ(
            width: xsiz - xosiz, height: ysiz - yosiz, tileCount: tiles.overflow ? .max : tiles.partialValue,
            subsampling: subsampling)
    }

    /// The contents of the first box of `type` between `from` and `to` (a box's length 0 runs to `to`; 1 gives an
    /// 8-byte length); nil if none, or a box's length is invalid before it.
    static func box(_ type: String, in b: Bytes, from: Int, to: Int) -> (start: Int, end: Int)? {
        var offset = from
        while offset + 8 <= to, let length = b.u32be(offset), let name = b.fourCC(offset + 4) {
            var header = 8, size = Int(length)
            if length == 1 {
                guard let high = b.u32be(offset + 8), let low = b.u32be(offset + 12), high == 0 else { return nil }
                (header, size) = (16, Int(low))
            } else if length == 0 {
                size = to - offset
            }
            guard size >= header, offset + size <= to else {
                return name == type && length != 1 ? (offset + header, to) : nil  // a last box cut short
            }
            if name == type { return (offset + header, offset + size) }
            offset += size
        }
        return nil
    }
}
