// ImageSniffer: format, pixel size, frame and loop counts from an image's headers, with every read bounds-checked.
import Foundation

/// What the headers of an image say.
struct ImageInfo: Equatable, Sendable {
    var format: DWImageFormat
    var width: Int
    var height: Int
    var frameCount: Int = 1
    var loopCount: Int = 0
}

/// Reads image headers without decoding pixels. Every read is bounds-checked: hostile input yields `nil`, never a trap.
enum ImageSniffer {
    /// The format from the magic bytes alone (`.unknown` if none matches).
    static func format(of data: Data) -> DWImageFormat {
        data.withUnsafeBytes { format(Bytes($0)) }
    }

    /// Format, size and frames; `nil` when the data is not a well-formed image of a known format with a non-zero size.
    /// `walkingGIF: false` reads only a GIF's header (frame count 1, loop count 0): for callers that walk it with
    /// giflib next anyway (``GIFIndex``), so a large mapped GIF is not paged in twice, once without release.
    static func inspect(_ data: Data, walkingGIF: Bool = true) -> ImageInfo? {
        data.withUnsafeBytes { raw -> ImageInfo? in
            let b = Bytes(raw)
            let info: ImageInfo?
            switch format(b) {
            case .png: info = png(b)
            case .jpeg: info = jpeg(b)
            case .gif: info = gif(b, walk: walkingGIF)
            case .webp: info = webp(b)
            case .bmp: info = bmp(b)
            case .tiff: info = tiff(b)
            case .heic: info = isobmff(b, .heic)
            case .avif: info = isobmff(b, .avif)
            case .ico, .unknown: info = nil  // ICO is not recognised by the sniffer yet
            }
            guard let info, info.width > 0, info.height > 0, info.frameCount > 0 else { return nil }
            return info
        }
    }

    /// A short reason for a failed ``inspect(_:)``, for error messages.
    static func describeFailure(_ data: Data) -> String {
        if data.isEmpty { return "empty body" }
        let f = format(of: data)
        return f == .unknown ? "unknown format" : "malformed or truncated \(f.rawValue)"
    }

    // MARK: - Magic

    private static func format(_ b: Bytes) -> DWImageFormat {
        if b.matches(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if b.matches(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if b.matches(0, Array("GIF87a".utf8)) || b.matches(0, Array("GIF89a".utf8)) { return .gif }
        if b.matches(0, Array("RIFF".utf8)) && b.matches(8, Array("WEBP".utf8)) { return .webp }
        if b.matches(0, Array("BM".utf8)) && b.count >= 26 { return .bmp }
        if b.matches(0, [0x49, 0x49, 0x2A, 0x00]) || b.matches(0, [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if b.matches(4, Array("ftyp".utf8)) {
            let brands = ftypBrands(b)
            if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
            let heif: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"]
            if brands.contains(where: heif.contains) { return .heic }
        }
        return .unknown
    }

    // MARK: - PNG (IHDR; APNG acTL for frames and plays)

    private static func png(_ b: Bytes) -> ImageInfo? {
        guard b.matches(12, Array("IHDR".utf8)), let w = b.u32be(16), let h = b.u32be(20) else { return nil }
        var info = ImageInfo(format: .png, width: Int(w), height: Int(h))
        var offset = 8
        while let length = b.u32be(offset), let type = b.fourCC(offset + 4) {
            if type == "acTL", let frames = b.u32be(offset + 8), let plays = b.u32be(offset + 12), frames > 0 {
                info.frameCount = Int(frames)
                info.loopCount = Int(plays)
            }
            if type == "IDAT" || type == "IEND" { return info }
            let next = offset.addingReportingOverflow(12 + Int(length))
            guard !next.overflow else { return nil }
            offset = next.partialValue
        }
        return nil  // no image data: truncated
    }

    // MARK: - JPEG (walk markers to the first SOFn)

    private static func jpeg(_ b: Bytes) -> ImageInfo? {
        var offset = 2
        while offset < b.count {
            guard b[offset] == 0xFF else { return nil }
            var marker = 0xFF
            while offset < b.count, b[offset] == 0xFF { offset += 1 }  // fill bytes
            guard offset < b.count else { return nil }
            marker = Int(b[offset])
            offset += 1
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }  // no length
            if marker == 0xD9 || marker == 0xDA { return nil }  // EOI or scan before any frame header
            guard let length = b.u16be(offset), length >= 2 else { return nil }
            let isSOF = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isSOF {
                guard let h = b.u16be(offset + 3), let w = b.u16be(offset + 5) else { return nil }
                return ImageInfo(format: .jpeg, width: Int(w), height: Int(h))
            }
            offset += Int(length)
        }
        return nil
    }

    // MARK: - GIF (logical screen; walk blocks for frames and the NETSCAPE2.0 loop count)

    private static func gif(_ b: Bytes, walk: Bool = true) -> ImageInfo? {
        guard let w = b.u16le(6), let h = b.u16le(8), let flags = b.u8(10) else { return nil }
        guard walk else { return ImageInfo(format: .gif, width: Int(w), height: Int(h), frameCount: 1, loopCount: 0) }
        var offset = 13
        if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
        var frames = 0
        var loops: Int?
        scan: while let introducer = b.u8(offset) {
            switch introducer {
            case 0x2C:  // image descriptor
                guard let packed = b.u8(offset + 9) else { break scan }
                offset += 10
                if packed & 0x80 != 0 { offset += 3 << (Int(packed & 0x07) + 1) }
                guard let codeSize = b.u8(offset), (1...11).contains(codeSize) else { break scan }
                guard let end = skipSubBlocks(b, offset + 1) else { break scan }
                offset = end
                frames += 1
            case 0x21:  // extension
                guard let label = b.u8(offset + 1) else { break scan }
                if label == 0xFF, b.u8(offset + 2) == 11, b.matches(offset + 3, Array("NETSCAPE2.0".utf8)),
                   b.u8(offset + 14) == 3, b.u8(offset + 15) == 1, let count = b.u16le(offset + 16) {
                    loops = Int(count)
                }
                guard let end = skipSubBlocks(b, offset + 2) else { break scan }
                offset = end
            case 0x3B:  // trailer
                break scan
            default:
                break scan
            }
        }
        guard frames > 0 else { return nil }
        // Still images report 0; an animation without NETSCAPE2.0 plays once.
        let loopCount = frames > 1 ? (loops ?? 1) : 0
        return ImageInfo(format: .gif, width: Int(w), height: Int(h), frameCount: frames, loopCount: loopCount)
    }

    /// Returns the offset after a run of GIF data sub-blocks (ending with a zero-length block), or nil if truncated.
    private static func skipSubBlocks(_ b: Bytes, _ start: Int) -> Int? {
        var offset = start
        while let size = b.u8(offset) {
            offset += 1
            if size == 0 { return offset }
            offset += Int(size)
        }
        return nil
    }

    // MARK: - WebP (VP8 / VP8L / VP8X; ANIM loop count, ANMF frames)

    private static func webp(_ b: Bytes) -> ImageInfo? {
        var offset = 12
        var info: ImageInfo?
        var frames = 0
        var loops = 0
        while let type = b.fourCC(offset), let size = b.u32le(offset + 4) {
            let payload = offset + 8
            switch type {
            case "VP8X":
                guard let w = b.u24le(payload + 4), let h = b.u24le(payload + 7) else { return nil }
                info = info ?? ImageInfo(format: .webp, width: w + 1, height: h + 1)
            case "VP8 ":
                guard b.matches(payload + 3, [0x9D, 0x01, 0x2A]), let w = b.u16le(payload + 6),
                      let h = b.u16le(payload + 8) else { return nil }
                if info == nil { info = ImageInfo(format: .webp, width: Int(w & 0x3FFF), height: Int(h & 0x3FFF)) }
            case "VP8L":
                guard b.u8(payload) == 0x2F, let bits = b.u32le(payload + 1) else { return nil }
                if info == nil {
                    info = ImageInfo(format: .webp, width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
                }
            case "ANIM":
                if let count = b.u16le(payload + 4) { loops = Int(count) }
            case "ANMF":
                frames += 1
            default:
                break
            }
            let next = payload.addingReportingOverflow(Int(size) + Int(size & 1))
            guard !next.overflow else { break }
            offset = next.partialValue
        }
        guard var result = info else { return nil }
        if frames > 1 {
            result.frameCount = frames
            result.loopCount = loops
        }
        return result
    }

    // MARK: - BMP

    private static func bmp(_ b: Bytes) -> ImageInfo? {
        guard let headerSize = b.u32le(14) else { return nil }
        if headerSize == 12 {
            guard let w = b.u16le(18), let h = b.u16le(20) else { return nil }
            return ImageInfo(format: .bmp, width: Int(w), height: Int(h))
        }
        guard headerSize >= 40, let w = b.u32le(18), let h = b.u32le(22) else { return nil }
        let width = Int(Int32(bitPattern: w)), height = Int(Int32(bitPattern: h)).magnitude
        guard width > 0 else { return nil }
        return ImageInfo(format: .bmp, width: width, height: Int(height))
    }

    // MARK: - TIFF (first IFD's ImageWidth / ImageLength)

    private static func tiff(_ b: Bytes) -> ImageInfo? {
        let little = b[0] == 0x49
        func u16(_ o: Int) -> UInt16? { little ? b.u16le(o) : b.u16be(o) }
        func u32(_ o: Int) -> UInt32? { little ? b.u32le(o) : b.u32be(o) }
        guard let ifd = u32(4), let count = u16(Int(ifd)) else { return nil }
        var width: Int?, height: Int?
        for i in 0..<Int(count) {
            let entry = Int(ifd) + 2 + i * 12
            guard let tag = u16(entry), let type = u16(entry + 2) else { return nil }
            guard tag == 256 || tag == 257 else { continue }
            let value: Int?
            switch type {
            case 3: value = u16(entry + 8).map(Int.init)
            case 4: value = u32(entry + 8).map(Int.init)
            default: value = nil
            }
            if tag == 256 { width = value } else { height = value }
        }
        guard let width, let height else { return nil }
        return ImageInfo(format: .tiff, width: width, height: height)
    }

    // MARK: - HEIF / AVIF (ftyp brands; size from the first 'ispe' property)

    private static func ftypBrands(_ b: Bytes) -> [String] {
        guard let size = b.u32be(0), size >= 16 else { return [] }
        var brands: [String] = []
        if let major = b.fourCC(8) { brands.append(major) }
        var offset = 16
        while offset + 4 <= min(Int(size), b.count, 256) {
            if let brand = b.fourCC(offset) { brands.append(brand) }
            offset += 4
        }
        return brands
    }

    private static func isobmff(_ b: Bytes, _ format: DWImageFormat) -> ImageInfo? {
        let limit = min(b.count, 1 << 20)
        let ispe = Array("ispe".utf8)
        var offset = 8
        while offset + 16 <= limit {
            if b.matches(offset, ispe), let w = b.u32be(offset + 8), let h = b.u32be(offset + 12) {
                return ImageInfo(format: format, width: Int(w), height: Int(h))
            }
            offset += 1
        }
        return nil
    }
}

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
    func u16be(_ o: Int) -> UInt16? { has(o, 2) ? UInt16(raw[o]) << 8 | UInt16(raw[o + 1]) : nil }
    func u16le(_ o: Int) -> UInt16? { has(o, 2) ? UInt16(raw[o + 1]) << 8 | UInt16(raw[o]) : nil }
    func u24le(_ o: Int) -> Int? { has(o, 3) ? Int(raw[o]) | Int(raw[o + 1]) << 8 | Int(raw[o + 2]) << 16 : nil }
    func u32be(_ o: Int) -> UInt32? {
        has(o, 4) ? UInt32(raw[o]) << 24 | UInt32(raw[o + 1]) << 16 | UInt32(raw[o + 2]) << 8 | UInt32(raw[o + 3]) : nil
    }
    func u32le(_ o: Int) -> UInt32? {
        has(o, 4) ? UInt32(raw[o + 3]) << 24 | UInt32(raw[o + 2]) << 16 | UInt32(raw[o + 1]) << 8 | UInt32(raw[o]) : nil
    }
    func fourCC(_ o: Int) -> String? {
        guard has(o, 4) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[o..<o + 4]), as: UTF8.self)
    }
}
