// SVGSniffer: whether bytes are an SVG document (as imgproxy decides it), and its intrinsic size as librsvg computes
// it, from the root element's attributes alone (no XML library, no entity expansion, nothing fetched).
import Foundation

/// Recognises SVG as imgproxy's `imagemeta.IsSVG` does — the first element of the document, within the first
/// 32 KiB (`IMGPROXY_MAX_SVG_CHECK_BYTES`), is `<svg>` or `<svg:svg>` in any case — after an optional UTF-8 byte
/// order mark, whitespace, an XML declaration or other processing instructions, comments and a DOCTYPE (with its
/// internal subset). Stricter than imgproxy's lenient lexer in one way: text before the root element is not an SVG
/// (libxml2, and so librsvg, refuses it too). A gzip'd `.svgz` is not an SVG here, as in imgproxy (its magic is
/// gzip's).
///
/// The size is librsvg 2.54's intrinsic size in pixels at libvips' 72 dpi (`vips_svgload` at scale 1): `width`
/// and `height` in px, in, cm, mm, pt, pc, em (12 px) or ex (6 px); one of them a percentage or missing, with a
/// `viewBox`: the other side from the viewBox's aspect ratio; neither: the viewBox's size; otherwise 0×0 (libvips
/// then measures the drawing's bounds, which needs a render). Pure functions over bounds-checked bytes.
enum SVGSniffer {
    /// imgproxy's `IMGPROXY_MAX_SVG_CHECK_BYTES` default: the root element must start within this many bytes.
    static let checkBytes = 32 * 1024
    /// The root element's start tag is read up to this many bytes from the start of the data.
    static let rootTagBytes = 1024 * 1024

    /// Whether `b` is an SVG document (its root element starts within ``checkBytes``).
    static func isSVG(_ b: Bytes) -> Bool { rootStart(b) != nil }

    /// The size of the SVG in `b` (see the type's comment); 0×0 when it declares none that librsvg resolves alone.
    static func info(_ b: Bytes) throws(SniffFailure) -> ImageInfo {
        guard let start = rootStart(b) else { throw SniffFailure("not an SVG document") }
        guard let attributes = attributes(b, from: start) else {
            throw SniffFailure("SVG root element is not closed within its first \(rootTagBytes) bytes")
        }
        let (width, height) = intrinsicSize(
            width: attributes["width"].flatMap(length),
            height: attributes["height"].flatMap(length),
            viewBox: attributes["viewBox"].flatMap(viewBox))
        return ImageInfo(format: .svg, width: width, height: height)
    }

    // MARK: Where the root element starts

    /// The offset of the `<` of the root element, if the document's first element is `svg` or `svg:svg`.
    private static func rootStart(_ b: Bytes) -> Int? {
        let end = min(b.count, checkBytes)
        var i = b.matches(0, [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < end {
            let c = b[i]
            if c.isASCIISpace { i += 1; continue }
            guard c == UInt8(ascii: "<") else { return nil }  // text before the root element
            if b.matches(i, Array("<?".utf8)) {
                guard let close = find(b, Array("?>".utf8), from: i + 2, before: end) else { return nil }
                i = close + 2
            } else if b.matches(i, Array("<!--".utf8)) {
                guard let close = find(b, Array("-->".utf8), from: i + 4, before: end) else { return nil }
                i = close + 3
            } else if b.matches(i, Array("<!".utf8)) {
                guard let close = doctypeEnd(b, from: i + 2, before: end) else { return nil }
                i = close + 1
            } else {
                return isSVGName(b, i + 1) ? i : nil
            }
        }
        return nil
    }

    /// `svg` or `svg:svg` (any case) at `o`, followed by whitespace, `>` or `/`.
    private static func isSVGName(_ b: Bytes, _ o: Int) -> Bool {
        for name in ["svg:svg", "svg"] {
            guard b.has(o, name.utf8.count + 1) else { continue }
            let matches = name.utf8.enumerated().allSatisfy { index, byte in
                (b[o + index] | 0x20) == byte || (byte == UInt8(ascii: ":") && b[o + index] == byte)
            }
            let next = b[o + name.utf8.count]
            if matches, next.isASCIISpace || next == UInt8(ascii: ">") || next == UInt8(ascii: "/") { return true }
        }
        return false
    }

    /// The `>` that ends a `<!DOCTYPE …>` (or another `<!…>` declaration): quotes and an internal subset `[…]`
    /// (whose declarations may hold `>` in quoted values, and comments) are skipped.
    private static func doctypeEnd(_ b: Bytes, from start: Int, before end: Int) -> Int? {
        var i = start, inSubset = false
        while i < end {
            let c = b[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                guard let close = find(b, [c], from: i + 1, before: end) else { return nil }
                i = close + 1
                continue
            }
            if inSubset, b.matches(i, Array("<!--".utf8)) {
                guard let close = find(b, Array("-->".utf8), from: i + 4, before: end) else { return nil }
                i = close + 3
                continue
            }
            if c == UInt8(ascii: "[") { inSubset = true }
            if c == UInt8(ascii: "]") { inSubset = false }
            if c == UInt8(ascii: ">") && !inSubset { return i }
            i += 1
        }
        return nil
    }

    private static func find(_ b: Bytes, _ needle: [UInt8], from start: Int, before end: Int) -> Int? {
        var i = start
        while i + needle.count <= end {
            if b.matches(i, needle) { return i }
            i += 1
        }
        return nil
    }

    // MARK: The root element's attributes

    /// The attributes of the start tag at `start` (names as written, values without entity expansion); nil when the
    /// tag does not close within ``rootTagBytes`` or an attribute is malformed.
    private static func attributes(_ b: Bytes, from start: Int) -> [String: String]? {
        let end = min(b.count, rootTagBytes)
        var i = start + 1
        while i < end, !b[i].isASCIISpace, b[i] != UInt8(ascii: ">"), b[i] != UInt8(ascii: "/") { i += 1 }
        var result: [String: String] = [:]
        while i < end {
            while i < end, b[i].isASCIISpace { i += 1 }
            guard i < end else { return nil }
            if b[i] == UInt8(ascii: ">") || b.matches(i, Array("/>".utf8)) { return result }
            let nameStart = i
            while i < end, !b[i].isASCIISpace, b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ">") { i += 1 }
            let name = text(b, nameStart, i)
            while i < end, b[i].isASCIISpace { i += 1 }
            guard i < end, b[i] == UInt8(ascii: "=") else { return nil }
            i += 1
            while i < end, b[i].isASCIISpace { i += 1 }
            guard i < end, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'"),
                let close = find(b, [b[i]], from: i + 1, before: end)
            else { return nil }
            result[name] = text(b, i + 1, close)
            i = close + 1
        }
        return nil
    }

    private static func text(_ b: Bytes, _ from: Int, _ to: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: b.raw[from..<to]), as: UTF8.self)
    }

    // MARK: Lengths and the intrinsic size

    /// A `width`/`height` value: pixels at 72 dpi, or a percentage.
    enum Length: Equatable {
        case pixels(Double)
        case percent
    }

    /// A CSS length as librsvg reads it (number, then an optional unit); nil when malformed or not positive.
    static func length(_ text: String) -> Length? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let unitStart = trimmed.firstIndex { $0.isLetter && $0 != "e" && $0 != "E" || $0 == "%" } ?? trimmed.endIndex
        var number = String(trimmed[..<unitStart]), unit = trimmed[unitStart...].lowercased()
        // "1em": the "e" that starts the unit is not an exponent
        if number.hasSuffix("e") || number.hasSuffix("E") { unit = String(number.removeLast()).lowercased() + unit }
        guard let value = Double(number), value.isFinite, value > 0 else { return nil }
        let perUnit: [String: Double] = [
            "": 1, "px": 1, "in": 72, "cm": 72 / 2.54, "mm": 72 / 25.4, "pt": 1,
            "pc": 12, "em": 12, "ex": 6
        ]
        if unit == "%" { return .percent }
        guard let factor = perUnit[unit] else { return nil }
        return .pixels(value * factor)
    }

    /// A `viewBox` (min-x, min-y, width, height; whitespace and/or commas): its width and height, if positive.
    static func viewBox(_ text: String) -> (width: Double, height: Double)? {
        let parts = text.split { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard parts.count == 4, let w = Double(parts[2]), let h = Double(parts[3]), w > 0, h > 0, w.isFinite,
            h.isFinite
        else { return nil }
        return (w, h)
    }

    /// librsvg's intrinsic size in pixels, with libvips' viewBox fallback, rounded as libvips rounds (half up).
    static func intrinsicSize(width: Length?, height: Length?, viewBox: (width: Double, height: Double)?)
        -> (Int, Int)
    {
        var size: (Double, Double)?
        switch (width, height, viewBox) {
        case (.pixels(let w)?, .pixels(let h)?, _): size = (w, h)
        case (.pixels(let w)?, _, let box?): size = (w, w * box.height / box.width)
        case (_, .pixels(let h)?, let box?): size = (h * box.width / box.height, h)
        case (_, _, let box?): size = (box.width, box.height)
        default: size = nil
        }
        guard let (w, h) = size else { return (0, 0) }
        func rounded(_ v: Double) -> Int { v >= 1e15 ? Int(1e15) : Int((v + 0.5).rounded(.down)) }
        return (rounded(w), rounded(h))
    }
}
