// DIBReader: BMP files and ICO/CUR icons, read by us — libvips reads them only through ImageMagick, which is blocked.
internal import CVips
import DWWebImage
import Foundation

/// Decoded pixels in memory: RGB or RGBA (straight alpha), rows top first.
struct Raster {
    let width: Int
    let height: Int
    /// 3 (opaque) or 4.
    let bands: Int
    let pixels: [UInt8]

    func vipsImage() throws(DWWebImageError) -> VImage {
        try Vips.start()
        let w = Int32(width), h = Int32(height), b = Int32(bands)
        let pixels = self.pixels
        return try borrowBytes(pixels) { (bytes: UnsafeRawBufferPointer) throws(DWWebImageError) -> VImage in
            try Vips.make("cannot wrap decoded pixels") {
                cvips_from_memory(bytes.baseAddress!, bytes.count, w, h, b, $0)
            }
        }
    }
}

/// Windows device-independent bitmaps: uncompressed, bit-field and RLE8/RLE4 BMPs of 1, 4, 8, 16, 24 and 32 bits
/// per pixel (core, v3, v4 and v5 headers; bottom-up or top-down), and ICO/CUR files (the largest entry, PNG or DIB
/// with its AND mask). JPEG/PNG-in-BMP are refused (10000). Every read is bounds-checked and the
/// pixel count is checked against the limits before the pixel buffer is allocated.
enum DIBReader {
    /// What an ICO entry holds.
    enum IconImage {
        case raster(Raster)
        case png(Data)
    }

    /// Bounds-checked little-endian reads over the file's bytes (the core's checked reader, `Bytes`, is internal to
    /// it; the loads are ByteLoads').
    private struct Reader {
        let bytes: [UInt8]
        func u8(_ at: Int) -> Int? { at >= 0 && at < bytes.count ? Int(bytes[at]) : nil }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return Int(bytes.withUnsafeBytes { $0.littleEndianUInt16(at: at) })
        }
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int(bytes.withUnsafeBytes { $0.littleEndianUInt32(at: at) })
        }
        func i32(_ at: Int) -> Int? { u32(at).map { Int(Int32(truncatingIfNeeded: UInt32($0))) } }
    }

    private static func bad(_ why: String) -> DWWebImageError { .malformed("BMP", why) }

    /// A `.bmp` file (14-byte file header, then the DIB).
    static func decodeBMP(_ data: Data, limits: DWProcessingLimits) throws(DWWebImageError) -> Raster {
        let r = Reader(bytes: [UInt8](data))
        guard r.u8(0) == 0x42, r.u8(1) == 0x4D, let pixelOffset = r.u32(10) else { throw bad("no BM file header") }
        return try decodeDIB(r, at: 14, pixelOffset: pixelOffset, icon: false, limits: limits)
    }

    /// An `.ico` / `.cur` file: its largest entry (then the deepest).
    static func decodeICO(_ data: Data, limits: DWProcessingLimits) throws(DWWebImageError) -> IconImage {
        let r = Reader(bytes: [UInt8](data))
        guard r.u16(0) == 0, let type = r.u16(2), type == 1 || type == 2, let count = r.u16(4), count > 0 else {
            throw .malformed("ICO", "bad header")
        }
        var best: (area: Int, bpp: Int, size: Int, offset: Int)?
        for i in 0..<count {
            let e = 6 + 16 * i
            guard let w = r.u8(e), let h = r.u8(e + 1), let bpp = r.u16(e + 6), let size = r.u32(e + 8),
                let offset = r.u32(e + 12)
            else { throw .malformed("ICO", "directory is truncated") }
            let area = (w == 0 ? 256 : w) * (h == 0 ? 256 : h)
            let depth = type == 2 ? 0 : bpp  // a cursor's directory holds its hotspot there
            if best == nil || area > best!.area || (area == best!.area && depth > best!.bpp) {
                best = (area, depth, size, offset)
            }
        }
        guard let entry = best, entry.size > 0, entry.offset >= 6 + 16 * count, entry.offset < r.bytes.count else {
            throw .malformed("ICO", "entry outside the file")
        }
        // A PNG entry is read from its offset as a PNG stream, whatever byte count the directory gives it (Pillow
        // does so; the PNG ends at its IEND, and its size is its own IHDR's).
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if Array(r.bytes[entry.offset..<min(entry.offset + 8, r.bytes.count)]) == pngSignature {
            return .png(Data(r.bytes[entry.offset...]))
        }
        guard entry.offset + entry.size <= r.bytes.count else {
            throw .malformed("ICO", "entry outside the file")
        }
        let dib = Reader(bytes: Array(r.bytes[entry.offset..<entry.offset + entry.size]))
        return .raster(try decodeDIB(dib, at: 0, pixelOffset: nil, icon: true, limits: limits))
    }

    /// The DIB at `at`: header, masks, palette, pixels (at `pixelOffset`, else right after the palette), and for
    /// icons the 1-bit AND mask after the pixels.
    private static func decodeDIB(
        _ r: Reader, at h: Int, pixelOffset: Int?, icon: Bool,
        limits: DWProcessingLimits
    ) throws(DWWebImageError) -> Raster {
        guard let headerSize = r.u32(h), headerSize >= 12 else { throw bad("truncated header") }
        // The header sizes Windows and OS/2 define; another (bmpsuite's badheadersize) is not a bitmap decoders agree
        // on.
        guard [12, 40, 52, 56, 64, 108, 124].contains(headerSize) else { throw bad("header of \(headerSize) bytes") }
        var width: Int, rawHeight: Int, bpp: Int, compression = 0, colorsUsed = 0
        if headerSize == 12 {
            guard let w = r.u16(h + 4), let hh = r.u16(h + 6), let b = r.u16(h + 10) else {
                throw bad("truncated header")
            }
            (width, rawHeight, bpp) = (w, hh, b)
        } else {
            guard headerSize >= 40, let w = r.i32(h + 4), let hh = r.i32(h + 8), let b = r.u16(h + 14),
                let c = r.u32(h + 16), let used = r.u32(h + 32)
            else { throw bad("truncated header") }
            (width, rawHeight, bpp, compression, colorsUsed) = (w, hh, b, c, used)
        }
        let topDown = rawHeight < 0
        var height = abs(rawHeight)
        if icon { height /= 2 }  // an icon's DIB counts the AND mask's rows too
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else {
            throw bad("bad size \(width)×\(height)")
        }
        try Decoder.checkArea(width, height, limits: limits)
        guard [1, 4, 8, 16, 24, 32].contains(bpp) else { throw bad("\(bpp) bits per pixel is not supported") }
        guard [0, 1, 2, 3, 6].contains(compression) else {
            throw bad("compression \(compression) (JPEG or PNG in BMP) is not supported")
        }

        // Bit-field masks: in the header (v2+), after a 40-byte header, or the defaults.
        var masks: [Int] = bpp == 16 ? [0x7C00, 0x03E0, 0x001F, 0] : [0xFF0000, 0x00FF00, 0x0000FF, 0]
        var afterHeader = h + headerSize
        if compression == 3 || compression == 6 {
            let count = compression == 6 ? 4 : 3
            let base = headerSize >= 52 ? h + 40 : h + headerSize
            for i in 0..<count {
                guard let m = r.u32(base + 4 * i) else { throw bad("truncated bit masks") }
                masks[i] = m
            }
            if headerSize >= 56, let a = r.u32(h + 52) { masks[3] = a }
            if headerSize == 40 { afterHeader += 4 * count }
        } else if headerSize >= 56, bpp == 32, let a = r.u32(h + 52) {
            masks[3] = a
        }
        if bpp == 32 && compression == 0 && icon { masks[3] = 0xFF00_0000 }  // icons' 32-bit DIBs carry alpha

        if bpp <= 8, colorsUsed > 0, afterHeader + colorsUsed * (headerSize == 12 ? 3 : 4) > r.bytes.count {
            throw bad("a palette of \(colorsUsed) colours does not fit in the file")
        }
        let palette = try readPalette(r, at: afterHeader, bpp: bpp, colorsUsed: colorsUsed, core: headerSize == 12)
        if bpp <= 8 { afterHeader += (colorsUsed > 0 ? colorsUsed : 1 << bpp) * (headerSize == 12 ? 3 : 4) }
        let start = pixelOffset ?? afterHeader
        let rowBytes = ((width * bpp + 31) / 32) * 4
        let (pixels, pixelStart) = try uncompressed(
            r, from: start, compression: compression, width: width,
            height: height, bpp: bpp, rowBytes: rowBytes, topDown: topDown)
        guard start >= 0, pixelStart + rowBytes * height <= pixels.bytes.count else {
            throw bad("pixel data is truncated")
        }

        let hasAlphaMask = masks[3] != 0 && bpp >= 16
        let layout = PixelLayout(
            width: width, height: height, topDown: topDown, bpp: bpp, rowBytes: rowBytes,
            palette: palette, fields: masks.map(Field.init), hasAlphaMask: hasAlphaMask)
        let converted = convert(pixels, from: pixelStart, layout)
        var out = converted.0
        let anyAlpha = converted.1
        // A 32-bit BMP whose alpha is all zero means "no alpha" (as browsers read it).
        var transparent = hasAlphaMask && anyAlpha
        if hasAlphaMask && !anyAlpha { for i in stride(from: 3, to: out.count, by: 4) { out[i] = 255 } }
        if icon && !transparent {
            transparent = applyANDMask(
                r, at: start + rowBytes * height, width: width, height: height,
                topDown: topDown, to: &out)
        }
        return raster(out, width: width, height: height, keepAlpha: transparent)
    }

    /// An icon's 1-bit AND mask at `maskStart` (1 = transparent) into `out`'s alpha; whether any pixel became
    /// transparent (false also when the mask is not in the file).
    private static func applyANDMask(
        _ r: Reader, at maskStart: Int, width: Int, height: Int, topDown: Bool,
        to out: inout [UInt8]
    ) -> Bool {
        let maskStride = ((width + 31) / 32) * 4
        guard maskStart + maskStride * height <= r.bytes.count else { return false }
        var transparent = false
        for row in 0..<height {
            let src = maskStart + (topDown ? row : height - 1 - row) * maskStride
            for x in 0..<width where r.bytes[src + x / 8] & (0x80 >> UInt8(x % 8)) != 0 {
                out[(row * width + x) * 4 + 3] = 0
                transparent = true
            }
        }
        return transparent
    }

    /// RGBA pixels as a raster: RGBA when `keepAlpha`, else RGB.
    private static func raster(_ rgba: [UInt8], width: Int, height: Int, keepAlpha: Bool) -> Raster {
        if keepAlpha { return Raster(width: width, height: height, bands: 4, pixels: rgba) }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            rgb[i * 3] = rgba[i * 4]; rgb[i * 3 + 1] = rgba[i * 4 + 1]; rgb[i * 3 + 2] = rgba[i * 4 + 2]
        }
        return Raster(width: width, height: height, bands: 3, pixels: rgb)
    }

    /// The palette (RGB; BGR triples in core headers, BGRX quads after others) of a DIB of at most 8 bits.
    private static func readPalette(
        _ r: Reader, at start: Int, bpp: Int, colorsUsed: Int,
        core: Bool
    ) throws(DWWebImageError) -> [(UInt8, UInt8, UInt8)] {
        guard bpp <= 8 else { return [] }
        let entrySize = core ? 3 : 4
        var palette: [(UInt8, UInt8, UInt8)] = []
        for i in 0..<(colorsUsed > 0 ? min(colorsUsed, 1 << bpp) : 1 << bpp) {
            let p = start + i * entrySize
            guard let b = r.u8(p), let g = r.u8(p + 1), let red = r.u8(p + 2) else { throw bad("truncated palette") }
            palette.append((UInt8(red), UInt8(g), UInt8(b)))
        }
        return palette
    }

    /// The pixel rows as stored (`r` at `start`), or RLE8/RLE4 data expanded to that layout (at 0).
    private static func uncompressed(
        _ r: Reader, from start: Int, compression: Int, width: Int, height: Int, bpp: Int,
        rowBytes: Int, topDown: Bool
    ) throws(DWWebImageError) -> (Reader, Int) {
        guard compression == 1 || compression == 2 else { return (r, start) }
        guard bpp == (compression == 1 ? 8 : 4), !topDown else { throw bad("RLE with \(bpp) bits per pixel") }
        let expanded = try DIBRLE.expand(
            r.bytes, from: start, width: width, height: height, bpp: bpp,
            rowBytes: rowBytes)
        return (Reader(bytes: expanded), 0)
    }

    /// How a DIB's uncompressed pixel rows are laid out and coloured.
    private struct PixelLayout {
        let width: Int, height: Int, topDown: Bool, bpp: Int, rowBytes: Int
        let palette: [(UInt8, UInt8, UInt8)]
        let fields: [Field]
        let hasAlphaMask: Bool
    }

    /// RGBA rows top first from uncompressed DIB rows at `start` (bounds checked by the caller), and whether any
    /// alpha was not 0. A palette index past the palette is black, as Pillow reads it.
    private static func convert(_ r: Reader, from start: Int, _ l: PixelLayout) -> ([UInt8], Bool) {
        var out = [UInt8](repeating: 255, count: l.width * l.height * 4)
        var anyAlpha = false
        for row in 0..<l.height {
            let src = start + (l.topDown ? row : l.height - 1 - row) * l.rowBytes
            var o = row * l.width * 4
            for x in 0..<l.width {
                var red = 0, green = 0, blue = 0, alpha = 255
                switch l.bpp {
                case 1, 4, 8:
                    let bit = x * l.bpp
                    let byte = Int(r.bytes[src + bit / 8])
                    let index = (byte >> (8 - l.bpp - bit % 8)) & ((1 << l.bpp) - 1)
                    if index < l.palette.count {
                        (red, green, blue) = (Int(l.palette[index].0), Int(l.palette[index].1), Int(l.palette[index].2))
                    }
                case 24:
                    let p = src + x * 3
                    (blue, green, red) = (Int(r.bytes[p]), Int(r.bytes[p + 1]), Int(r.bytes[p + 2]))
                default:
                    let p = src + x * (l.bpp / 8)
                    var v = Int(r.bytes[p]) | Int(r.bytes[p + 1]) << 8
                    if l.bpp == 32 { v |= Int(r.bytes[p + 2]) << 16 | Int(r.bytes[p + 3]) << 24 }
                    red = l.fields[0].value(v); green = l.fields[1].value(v); blue = l.fields[2].value(v)
                    if l.hasAlphaMask { alpha = l.fields[3].value(v); if alpha != 0 { anyAlpha = true } }
                }
                out[o] = UInt8(red); out[o + 1] = UInt8(green); out[o + 2] = UInt8(blue); out[o + 3] = UInt8(alpha)
                o += 4
            }
        }
        return (out, anyAlpha)
    }

    /// One bit-field: where it is and how wide, scaled to 8 bits.
    private struct Field {
        let shift: Int
        let maximum: Int
        init(_ mask: Int) {
            var m = mask, s = 0
            if m != 0 { while m & 1 == 0 { m >>= 1; s += 1 } }
            shift = s
            maximum = m
        }
        func value(_ v: Int) -> Int {
            guard maximum > 0 else { return 0 }
            let raw = (v >> shift) & maximum
            return maximum == 255 ? raw : (raw * 255 + maximum / 2) / maximum
        }
    }
}
