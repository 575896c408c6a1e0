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

/// Why a header read failed, in words for the 10000 error message ("JPEG frame header ends at byte 40").
struct SniffFailure: Error, Equatable, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Reads image headers without decoding pixels. Every read is bounds-checked: hostile input yields a
/// ``SniffFailure``, never a trap. What it accepts follows the reference decoders: libjpeg for JPEG (junk between
/// markers is skipped, a stream must start with SOI), giflib and browsers for GIF (frames before a damaged tail count),
/// libtiff for TIFF and BigTIFF, Pillow and browsers for ICO/CUR (the largest entry; PNG entries by their own header).
enum ImageSniffer {
    /// The format from the magic bytes alone (`.unknown` if none matches).
    static func format(of data: Data) -> DWImageFormat {
        let builtIn = data.withUnsafeBytes { format(Bytes($0)) }
        guard builtIn == .unknown, let (decoder, _) = DWImageCodecs.sniff(data) else { return builtIn }
        return decoder.format
    }

    /// Format, size and frames; `nil` when the data is not a well-formed image of a known format with a non-zero size.
    /// `walkingGIF: false` reads only a GIF's header (frame count 1, loop count 0): for callers that walk it with
    /// giflib next anyway (``GIFIndex``), so a large mapped GIF is not paged in twice, once without release.
    static func inspect(_ data: Data, walkingGIF: Bool = true) -> ImageInfo? {
        try? examine(data, walkingGIF: walkingGIF).get()
    }

    /// As ``inspect(_:walkingGIF:)``, with the reason when the data is refused.
    static func examine(_ data: Data, walkingGIF: Bool = true) -> Result<ImageInfo, SniffFailure> {
        data.withUnsafeBytes { raw -> Result<ImageInfo, SniffFailure> in
            let b = Bytes(raw)
            let format = format(b)
            let result = Result { () throws(SniffFailure) -> ImageInfo in
                switch format {
                case .png: try png(b)
                case .jpeg: try jpeg(b)
                case .gif: try gif(b, walk: walkingGIF)
                case .webp: try webp(b)
                case .bmp: try bmp(b)
                case .tiff: try tiff(b)
                case .heic: try isobmff(b, .heic)
                case .avif: try isobmff(b, .avif)
                case .ico: try ico(b)
                case .jxl: try jxl(b)
                case .svg: try SVGSniffer.info(b)
                case .pnm: try pnm(b)
                case .jp2: try jp2(b)
                case .fits: try fits(b)
                default: try registered(data, b)
                }
            }
            return result.flatMap { info in
                // An SVG may declare no size (0×0): a vector, nothing to decode here; see SVGSniffer.
                guard info.width > 0 && info.height > 0 || format == .svg else {
                    return .failure(
                        SniffFailure("\(info.format.rawValue) declares a size of \(info.width)×\(info.height)"))
                }
                guard info.frameCount > 0 else {
                    return .failure(SniffFailure("\(info.format.rawValue) has no frames"))
                }
                return .success(info)
            }
        }
    }

    // MARK: - Magic

    private static func format(_ b: Bytes) -> DWImageFormat {
        if b.matches(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        // libjpeg's first_marker wants only SOI (FF D8); what follows may be junk it skips (see jpeg(_:)).
        if b.matches(0, [0xFF, 0xD8]) { return .jpeg }
        if b.matches(0, Array("GIF87a".utf8)) || b.matches(0, Array("GIF89a".utf8)) { return .gif }
        if b.matches(0, Array("RIFF".utf8)) && b.matches(8, Array("WEBP".utf8)) { return .webp }
        if b.matches(0, Array("BM".utf8)) && b.count >= 26 { return .bmp }
        if b.matches(0, [0x49, 0x49, 0x2A, 0x00]) || b.matches(0, [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if b.matches(0, [0x49, 0x49, 0x2B, 0x00]) || b.matches(0, [0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }  // BigTIFF
        if isJXL(b) { return .jxl }
        if isJP2(b) { return .jp2 }
        if b.matches(4, Array("ftyp".utf8)) {
            let brands = ftypBrands(b)
            if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
            let heif: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"]
            if brands.contains(where: heif.contains) { return .heic }
        }
        // ICO (type 1) and CUR (type 2) share one container; both are .ico. Four bytes are a weak magic (a
        // true-colour TGA starts 00 00 02 00, and TGA has no magic at all): never ICO without a valid directory.
        if b.matches(0, [0, 0, 1, 0]) || b.matches(0, [0, 0, 2, 0]), icoDirectoryIsValid(b) { return .ico }
        if isPNM(b) { return .pnm }
        if isFITS(b) { return .fits }
        if SVGSniffer.isSVG(b) { return .svg }
        return .unknown
    }

    /// The header a registered codec's decoder reads (``DWImageCodecs``), for bytes no built-in format matches.
    /// Bytes that match none throw ``unknown(_:)``'s reason.
    private static func registered(_ data: Data, _ b: Bytes) throws(SniffFailure) -> ImageInfo {
        guard let (decoder, header) = DWImageCodecs.sniff(data) else { throw unknown(b) }
        return ImageInfo(format: decoder.format, width: header.width, height: header.height)
    }

    /// Why bytes of no known format are refused; for ICO's magic without a valid directory, what is wrong with it.
    private static func unknown(_ b: Bytes) -> SniffFailure {
        guard b.matches(0, [0, 0, 1, 0]) || b.matches(0, [0, 0, 2, 0]) else {
            return SniffFailure(b.count == 0 ? "empty body" : "unknown format")
        }
        do {
            _ = try ico(b)
            return SniffFailure("unknown format (ICO's magic, but not a valid ICO directory)")
        } catch {
            return SniffFailure("unknown format (ICO's magic, but \(error.reason))")
        }
    }

    // MARK: - PNG (IHDR; APNG acTL for frames and plays)

    static func png(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        guard b.matches(12, Array("IHDR".utf8)), let w = b.u32be(16), let h = b.u32be(20) else {
            throw SniffFailure(b.count < 24 ? "PNG header ends at byte \(b.count)" : "PNG does not start with IHDR")
        }
        var info = ImageInfo(format: .png, width: Int(w), height: Int(h))
        var offset = 8
        var animationControls = 0
        while let length = b.u32be(offset), let type = b.fourCC(offset + 4) {
            // An acTL of 0 or over 2^31 frames, or a second acTL, makes an invalid APNG: its default image is what
            // shows (libpng, browsers and Pillow alike).
            if type == "acTL", let frames = b.u32be(offset + 8), let plays = b.u32be(offset + 12) {
                animationControls += 1
                let valid = animationControls == 1 && frames > 0 && frames <= 0x8000_0000
                (info.frameCount, info.loopCount) = valid ? (Int(frames), Int(plays)) : (1, 0)
            }
            if type == "IDAT" || type == "IEND" { return info }
            let next = offset.addingReportingOverflow(12 + Int(length))
            guard !next.overflow else { throw SniffFailure("PNG chunk \(type) at byte \(offset) has length \(length)") }
            offset = next.partialValue
        }
        throw SniffFailure("PNG ends at byte \(b.count) before any image data (IDAT)")
    }

    // MARK: - JPEG (walk markers to the first SOFn, as libjpeg's jdmarker.c does)

    private static func jpeg(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        var offset = 2  // after SOI
        while true {
            // next_marker(): bytes other than FF are junk libjpeg skips with a warning ("Corrupt JPEG data:
            // N extraneous bytes before marker"); FF fill bytes are skipped; FF 00 is not a marker.
            var marker: UInt8 = 0
            repeat {
                while offset < b.count, b[offset] != 0xFF { offset += 1 }
                while offset < b.count, b[offset] == 0xFF { offset += 1 }
                guard offset < b.count else {
                    throw SniffFailure("JPEG ends at byte \(b.count) before a frame header (SOF)")
                }
                marker = b[offset]
                offset += 1
            } while marker == 0x00
            switch marker {
            case 0x01, 0xD0...0xD7:
                continue  // TEM, RSTn: no length
            case 0xD8:
                throw SniffFailure("JPEG has a second SOI at byte \(offset - 2) (libjpeg: invalid file structure)")
            case 0xD9:
                throw SniffFailure("JPEG ends (EOI at byte \(offset - 2)) before a frame header (SOF)")
            case 0xDA:
                throw SniffFailure("JPEG scan (SOS at byte \(offset - 2)) before a frame header (SOF)")
            default:
                break
            }
            guard let length = b.u16be(offset) else {
                throw SniffFailure(
                    "JPEG marker 0x\(String(marker, radix: 16, uppercase: true)) ends at byte \(b.count)")
            }
            guard length >= 2 else {
                throw SniffFailure(
                    "JPEG marker 0x\(String(marker, radix: 16, uppercase: true)) at byte \(offset - 2) has length "
                        + "\(length)"
                )
            }
            let isSOF = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isSOF {
                guard length >= 8, let h = b.u16be(offset + 3), let w = b.u16be(offset + 5) else {
                    throw SniffFailure("JPEG frame header (SOF) at byte \(offset - 2) is truncated")
                }
                return ImageInfo(format: .jpeg, width: Int(w), height: Int(h))
            }
            offset += Int(length)
        }
    }

    // MARK: - GIF (logical screen; walk blocks for frames and the loop count of GIFLoopExtension)

    private static func gif(_ b: Bytes, walk: Bool = true) throws(SniffFailure) -> ImageInfo {
        guard let w = b.u16le(6), let h = b.u16le(8), let flags = b.u8(10) else {
            throw SniffFailure("GIF logical screen descriptor ends at byte \(b.count)")
        }
        guard walk else { return ImageInfo(format: .gif, width: Int(w), height: Int(h), frameCount: 1, loopCount: 0) }
        var offset = 13
        if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
        var frames = 0
        var loops: Int?
        var stop = "no image descriptor"
        // A damaged or missing tail after complete frames leaves those frames (as giflib and browsers show them).
        scan: while let introducer = b.u8(offset) {
            switch introducer {
            case 0x2C:  // image descriptor
                guard let packed = b.u8(offset + 9) else {
                    stop = "image descriptor ends at byte \(b.count)"; break scan
                }
                offset += 10
                if packed & 0x80 != 0 { offset += 3 << (Int(packed & 0x07) + 1) }
                guard let codeSize = b.u8(offset), (1...11).contains(codeSize) else {
                    stop = "no valid LZW code size at byte \(offset)"
                    break scan
                }
                guard let end = skipSubBlocks(b, offset + 1) else {
                    stop = "image data ends at byte \(b.count)"; break scan
                }
                offset = end
                frames += 1
            case 0x21:  // extension
                guard let label = b.u8(offset + 1) else { stop = "extension ends at byte \(b.count)"; break scan }
                guard let (end, found) = extensionBlocks(b, offset + 2, label: label) else {
                    stop = "extension ends at byte \(b.count)"; break scan
                }
                if let found { loops = found }
                offset = end
            case 0x3B:  // trailer
                break scan
            default:
                stop = "unknown block 0x\(String(introducer, radix: 16)) at byte \(offset)"
                break scan
            }
        }
        guard frames > 0 else { throw SniffFailure("GIF has no complete frame (\(stop))") }
        let loopCount = GIFLoopExtension.loopCount(frames: frames, value: loops)
        return ImageInfo(format: .gif, width: Int(w), height: Int(h), frameCount: frames, loopCount: loopCount)
    }

    /// One walk over an extension's sub-blocks, which start at `start`: the offset after them and, for a complete
    /// loop extension (label 0xFF, ``GIFLoopExtension``'s rule), its loop value; nil when the blocks are cut short.
    private static func extensionBlocks(_ b: Bytes, _ start: Int, label: UInt8) -> (end: Int, loops: Int?)? {
        var offset = start, loops: Int?
        let isLoop =
            label == 0xFF && b.u8(start) == 11 && b.has(start + 1, 11)
            && GIFLoopExtension.isLoop(identifier: UnsafeRawBufferPointer(rebasing: b.raw[(start + 1)..<(start + 12)]))
        while let size = b.u8(offset) {
            offset += 1
            if size == 0 { return (offset, loops) }
            guard b.has(offset, Int(size)) else { return nil }
            if isLoop, offset - 1 > start,
                let value = GIFLoopExtension.loopValue(
                    data: UnsafeRawBufferPointer(rebasing: b.raw[offset..<(offset + Int(size))]))
            {
                loops = value
            }
            offset += Int(size)
        }
        return nil
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

    private static func webp(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        var offset = 12
        var info: ImageInfo?
        var frames = 0
        var loops = 0
        while let type = b.fourCC(offset), let size = b.u32le(offset + 4) {
            let payload = offset + 8
            switch type {
            case "VP8X":
                guard let w = b.u24le(payload + 4), let h = b.u24le(payload + 7) else {
                    throw SniffFailure("WebP VP8X chunk ends at byte \(b.count)")
                }
                info = info ?? ImageInfo(format: .webp, width: w + 1, height: h + 1)
            case "VP8 ":
                guard b.matches(payload + 3, [0x9D, 0x01, 0x2A]), let w = b.u16le(payload + 6),
                    let h = b.u16le(payload + 8)
                else { throw SniffFailure("WebP VP8 frame header is malformed or truncated") }
                if info == nil { info = ImageInfo(format: .webp, width: Int(w & 0x3FFF), height: Int(h & 0x3FFF)) }
            case "VP8L":
                guard b.u8(payload) == 0x2F, let bits = b.u32le(payload + 1) else {
                    throw SniffFailure("WebP VP8L header is malformed or truncated")
                }
                if info == nil {
                    info = ImageInfo(
                        format: .webp, width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
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
        guard var result = info else { throw SniffFailure("WebP has no VP8, VP8L or VP8X chunk") }
        if frames > 1 {
            result.frameCount = frames
            result.loopCount = loops
        }
        return result
    }

    // MARK: - HEIF / AVIF (ftyp brands; the size is read in ImageSniffer+HEIF.swift)

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
}
