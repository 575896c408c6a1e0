// ImageSniffer + FITS: the header of a FITS file (80-byte ASCII cards in 2880-byte blocks), read as Pillow and
// libvips' fitsload (cfitsio) read it: the image of the primary header, or, when that has no axes, of the first
// extension (an IMAGE, or a tile-compressed image in a BINTABLE with ZIMAGE = T).
import Foundation

extension ImageSniffer {
    /// `SIMPLE  =` then the logical value `T` in the first card (the FITS standard's mandatory first keyword).
    static func isFITS(_ b: Bytes) -> Bool {
        guard b.matches(0, Array("SIMPLE  =".utf8)), b.has(0, 80) else { return false }
        let value = FITSHeader.value(b, card: 0)
        return value == "T"
    }

    /// The image's size from its header (NAXIS1 by NAXIS2); nothing decoded.
    static func fits(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        let header = try FITSHeader.read(b)
        return ImageInfo(format: .fits, width: header.width, height: header.height)
    }
}

/// What a FITS file's header says about its image, read before libvips' fitsload (cfitsio) is given the bytes.
/// Safe on any thread.
package struct FITSHeader: Equatable, Sendable {
    /// NAXIS1 and NAXIS2 (ZNAXIS1 and ZNAXIS2 for a compressed image).
    package var width: Int
    package var height: Int
    /// NAXIS3, or 1 for a two-axis image (libvips reads the third axis as bands; any further axis must be 1).
    package var bands: Int
    /// BITPIX (ZBITPIX): 8, 16, 32, 64 (integers), −32 or −64 (IEEE floats).
    package var bitpix: Int
    /// Where the image's data unit starts and how many bytes its header declares for it.
    package var dataStart: Int
    package var dataBytes: Int

    /// The valid BITPIX values of the FITS standard.
    static let validBitpix: Set<Int> = [8, 16, 32, 64, -32, -64]

    /// The header of the FITS file in `data`; 10000 with the reason when it is not one or is malformed.
    package static func read(_ data: Data) throws(DWWebImageError) -> FITSHeader {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(SniffFailure) -> FITSHeader in try read(Bytes(raw)) }
        }
        switch result {
        case .success(let header): return header
        case .failure(let failure): throw DWWebImageError(.notAnImage, failure.reason)
        }
    }

    static func read(_ b: Bytes) throws(SniffFailure) -> FITSHeader {
        guard ImageSniffer.isFITS(b) else { throw SniffFailure("not a FITS file (no SIMPLE = T card)") }
        let (primary, next) = try cards(b, from: 0)
        let naxis = try integer(primary, "NAXIS", in: 0...999)
        if naxis > 0 { return try image(primary, prefix: "", dataStart: next) }
        // No image in the primary HDU (and no data unit): the first extension, as cfitsio moves to it.
        let (ext, dataStart) = try cards(b, from: next)
        let kind = ext["XTENSION"] ?? "none"
        if kind == "IMAGE" { return try image(ext, prefix: "", dataStart: dataStart) }
        guard kind == "BINTABLE", ext["ZIMAGE"] == "T" else {
            throw SniffFailure("FITS has no image (NAXIS = 0, then a \(kind) extension)")
        }
        var header = try image(ext, prefix: "Z", dataStart: dataStart)
        // The table's own size: NAXIS1 bytes a row, NAXIS2 rows, then PCOUNT bytes of heap (the compressed tiles).
        let row = try integer(ext, "NAXIS1", in: 0...Int(Int32.max))
        let rows = try integer(ext, "NAXIS2", in: 0...Int(Int32.max))
        let heap = try integer(ext, "PCOUNT", in: 0...Int(Int64.max) / 2)
        header.dataBytes = row * rows + heap
        return header
    }

    /// The image an HDU's keywords (`prefix` "Z" for a compressed image's) describe.
    private static func image(_ keys: [String: String], prefix: String, dataStart: Int) throws(SniffFailure)
        -> FITSHeader
    {
        let bitpix = try integer(keys, prefix + "BITPIX", in: -64...64)
        guard validBitpix.contains(bitpix) else {
            throw SniffFailure("FITS \(prefix)BITPIX \(bitpix) is not 8, 16, 32, 64, -32 or -64")
        }
        let naxis = try integer(keys, prefix + "NAXIS", in: 0...999)
        guard naxis >= 2 else { throw SniffFailure("FITS image has \(naxis) axes (at least 2)") }
        var axes: [Int] = []
        for n in 1...naxis { axes.append(try integer(keys, "\(prefix)NAXIS\(n)", in: 0...Int(Int32.max))) }
        guard axes.dropFirst(3).allSatisfy({ $0 == 1 }) else {
            throw SniffFailure("FITS image has \(naxis) axes: the fourth and later must be 1 (libvips reads three)")
        }
        var bytes = abs(bitpix) / 8
        for axis in axes.prefix(3) {
            let product = bytes.multipliedReportingOverflow(by: axis)
            guard !product.overflow else { throw SniffFailure("FITS image's data size overflows") }
            bytes = product.partialValue
        }
        return FITSHeader(
            width: axes[0], height: axes[1], bands: naxis >= 3 ? axes[2] : 1, bitpix: bitpix,
            dataStart: dataStart, dataBytes: bytes)
    }

    /// The keywords of the header starting at `start` that an image needs (later duplicates ignored), and where
    /// its data unit starts (after the END card's 2880-byte block).
    private static func cards(_ b: Bytes, from start: Int) throws(SniffFailure) -> ([String: String], Int) {
        let wanted = ["SIMPLE", "XTENSION", "BITPIX", "NAXIS", "PCOUNT", "ZIMAGE", "ZBITPIX", "ZNAXIS"]
        var keys: [String: String] = [:]
        var offset = start
        while true {
            guard b.has(offset, 80) else { throw SniffFailure("FITS header has no END card (ends at byte \(b.count))") }
            if b.matches(offset, Array("END     ".utf8)) { break }
            // Only the cards an image needs are read into strings (a header may have thousands of others).
            if Array("SXBNPZ".utf8).contains(b[offset]) {
                let keyword = String(decoding: (offset..<offset + 8).map { b[$0] }, as: UTF8.self)
                    .trimmingCharacters(in: .whitespaces)
                if wanted.contains(where: keyword.hasPrefix), keys[keyword] == nil, let value = value(b, card: offset) {
                    keys[keyword] = value
                }
            }
            offset += 80
        }
        let headerBytes = (offset + 80 - start + 2879) / 2880 * 2880
        return (keys, start + headerBytes)
    }

    /// A card's value (columns 11–80 after `= `), without its comment; nil for a card without a value.
    static func value(_ b: Bytes, card offset: Int) -> String? {
        guard b.has(offset, 80), b[offset + 8] == 0x3D, b[offset + 9] == 0x20 else { return nil }
        let text = String(decoding: (offset + 10..<offset + 80).map { b[$0] }, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("'") {  // a string: up to its closing quote, trailing spaces not significant
            let body = text.dropFirst()
            return String(body.prefix { $0 != "'" }).trimmingCharacters(in: .whitespaces)
        }
        return String(text.prefix { $0 != "/" }).trimmingCharacters(in: .whitespaces)
    }

    private static func integer(_ keys: [String: String], _ key: String, in range: ClosedRange<Int>)
        throws(SniffFailure) -> Int
    {
        guard let text = keys[key] else { throw SniffFailure("FITS header has no \(key)") }
        guard text.count <= 20, let value = Int(text), range.contains(value) else {
            throw SniffFailure("FITS \(key) = \(text.prefix(20)) is not an integer in \(range)")
        }
        return value
    }
}
