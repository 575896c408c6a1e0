// SVGGuard's readers of content: XML references, CSS escapes and url(), data: URLs and their images, and the
// element graph `<use>` makes.
import DWWebImage
import Foundation

extension SVGGuard {
    // MARK: XML and CSS text

    /// `raw` with character references, the five predefined entities and the document's own `entities` replaced, as
    /// libxml2 gives the text to librsvg; an unknown reference stays as it is written.
    static func decodeReferences(_ raw: String, entities: [String: String]) -> String {
        guard raw.contains("&") else { return raw }
        var decoded = ""
        var rest = raw[...]
        while let amp = rest.firstIndex(of: "&") {
            decoded += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.firstIndex(of: ";") else { break }
            let name = String(rest[rest.index(after: rest.startIndex)..<semicolon])
            var scalar: Unicode.Scalar?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if name.hasPrefix("#") {
                scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
            }
            let predefined = ["lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'"][name]
            if let text = scalar.map({ String(Character($0)) }) ?? predefined ?? entities[name] {
                decoded += text
                rest = rest[rest.index(after: semicolon)...]
            } else {
                decoded += "&"
                rest = rest.dropFirst()
            }
        }
        return decoded + rest
    }

    /// A URL as librsvg resolves it: leading and trailing whitespace and controls trimmed, tabs and newlines removed.
    static func trimmedURL(_ value: String) -> String {
        let trimmed = value.unicodeScalars.drop { $0.value <= 0x20 }.reversed().drop { $0.value <= 0x20 }.reversed()
        return String(String.UnicodeScalarView(trimmed.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }))
    }

    /// Refuses CSS text (already XML-decoded) that would load anything: an `@import`, or a `url(…)` that is not a
    /// fragment, read after CSS escapes (`\75 rl(`) are decoded.
    static func checkCSS(_ text: String, in place: String) throws(DWWebImageError) {
        guard text.contains("(") || text.contains("@") || text.contains("\\") else { return }
        let plain = Array(cssUnescaped(text).lowercased().unicodeScalars)
        let url = Array("url(".unicodeScalars), importRule = Array("@import".unicodeScalars)
        var i = 0
        while i < plain.count {
            if plain[i] == "@", plain[i...].starts(with: importRule) { throw .svgRefused("an @import in \(place)") }
            if plain[i] == "u", plain[i...].starts(with: url) {
                var j = i + url.count
                while j < plain.count, [" ", "\t", "\n", "\r", "\u{0C}"].contains(plain[j]) { j += 1 }
                if j < plain.count, plain[j] == "\"" || plain[j] == "'" { j += 1 }
                guard j < plain.count, plain[j] == "#" || plain[j] == ")" else {
                    throw .svgRefused("a url() in \(place) that is not a fragment")
                }
            }
            i += 1
        }
    }

    /// CSS escapes decoded: `\` and 1-6 hex digits (and one whitespace after) is that code point, `\` and a
    /// newline is nothing, `\` and any other character is that character.
    static func cssUnescaped(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            guard scalars[i] == "\\", i + 1 < scalars.count else {
                out.append(scalars[i])
                i += 1
                continue
            }
            var j = i + 1
            var hex = ""
            while j < scalars.count, hex.count < 6, scalars[j].properties.isASCIIHexDigit {
                hex.unicodeScalars.append(scalars[j])
                j += 1
            }
            if hex.isEmpty {
                if scalars[j] != "\n" { out.append(scalars[j]) }
                i = j + 1
                continue
            }
            out.append(UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) ?? "\u{FFFD}")
            if j < scalars.count, [" ", "\t", "\n", "\r", "\u{0C}"].contains(scalars[j]) { j += 1 }
            i = j
        }
        return String(out)
    }

    // MARK: data: images

    /// The formats an embedded image may be, with the media types a `data:` URL may declare for each.
    static let embeddedFormats: [DWImageFormat: Set<String>] = [
        .png: ["image/png"], .jpeg: ["image/jpeg", "image/jpg", "image/pjpeg"], .gif: ["image/gif"],
        .webp: ["image/webp"]
    ]

    /// The header pixels of the image in the `data:` URL `url`: width × height (× frames for GIF and WebP). Refuses a
    /// payload that does not decode, that ``DWImage`` does not sniff as PNG, JPEG, GIF or WebP, or whose declared
    /// media type is another's.
    static func embeddedPixels(_ url: String) throws(DWWebImageError) -> Int {
        guard let comma = url.firstIndex(of: ",") else { throw .svgRefused("a data: URL without a comma") }
        let header = url[url.index(url.startIndex, offsetBy: 5)..<comma].lowercased()
        let parameters = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let mediaType = header.hasPrefix(";") ? "" : parameters.first ?? ""
        let body = PercentEncoding.decode(url[url.index(after: comma)...].utf8, lenient: true) ?? []
        guard let bytes = parameters.contains("base64") ? forgivingBase64(body) : body else {
            throw .svgRefused("a data: image whose base64 does not decode")
        }
        let image: DWImage
        do {
            image = try DWImage(data: Data(bytes), maxPixelCount: .max)
        } catch {
            throw .svgRefused("a data: image that is not an image (\(error.message))")
        }
        guard let types = embeddedFormats[image.format] else {
            throw .svgRefused("a data: image in \(image.format.rawValue.uppercased()), not PNG, JPEG, GIF or WebP")
        }
        guard mediaType.isEmpty || types.contains(mediaType) else {
            throw .svgRefused(
                "a data: image declared \(mediaType.prefix(40)) that is \(image.format.rawValue.uppercased())")
        }
        let frames = image.format == .gif || image.format == .webp ? max(1, image.frameCount) : 1
        let area = image.pixelWidth.multipliedReportingOverflow(by: image.pixelHeight)
        let pixels = area.partialValue.multipliedReportingOverflow(by: frames)
        return area.overflow || pixels.overflow ? .max : pixels.partialValue
    }

    /// WHATWG's forgiving-base64 decode (what librsvg's data: URLs use): ASCII whitespace removed, up to two `=` at
    /// the end, nothing outside the alphabet; nil when it does not decode.
    static func forgivingBase64(_ bytes: [UInt8]) -> [UInt8]? {
        var text = bytes.filter { ![0x20, 0x09, 0x0A, 0x0C, 0x0D].contains($0) }
        if text.count % 4 == 0, text.last == UInt8(ascii: "=") {
            text.removeLast()
            if text.last == UInt8(ascii: "=") { text.removeLast() }
        }
        guard text.count % 4 != 1 else { return nil }
        let alphabet = { (c: UInt8) in
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2B || c == 0x2F
        }
        guard text.allSatisfy(alphabet) else { return nil }
        while text.count % 4 != 0 { text.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(text)).map { [UInt8]($0) }
    }
}

/// The elements as a graph: each one's children and, for a `<use>`, the element it instantiates; how many elements
/// the drawing has with every `<use>` expanded.
struct UseGraph {
    /// Each element's parent (-1 for the root), in document order.
    var parents: [Int32] = []
    /// `<use>` elements (their index) → the id they name.
    var uses: [Int: String] = [:]
    /// id → element index.
    var ids: [String: Int] = [:]

    mutating func add(parent: Int?) { parents.append(Int32(parent ?? -1)) }

    /// Elements drawn with every `<use>` expanded, counted without recursion (a chain may be as long as the
    /// document); 10005 above `limit`, 10000 for a `<use>` that instantiates itself.
    func expandedCount(limit: Int) throws(DWWebImageError) -> Int {
        let n = parents.count
        var firstChild = [Int32](repeating: -1, count: n), nextSibling = [Int32](repeating: -1, count: n)
        for i in stride(from: n - 1, through: 0, by: -1) where parents[i] >= 0 {
            nextSibling[i] = firstChild[Int(parents[i])]
            firstChild[Int(parents[i])] = Int32(i)
        }
        var size = [Int](repeating: 0, count: n), state = [UInt8](repeating: 0, count: n)
        struct Frame { let node: Int; var child: Int32; var target: Int?; var count: Int }
        var total = 0
        for root in 0..<n where parents[root] < 0 {
            var stack = [Frame(node: root, child: firstChild[root], target: uses[root].flatMap { ids[$0] }, count: 1)]
            state[root] = 1
            while var frame = stack.popLast() {
                var next: Int?
                if frame.child >= 0 {
                    next = Int(frame.child)
                    frame.child = nextSibling[Int(frame.child)]
                } else if let target = frame.target {
                    next = target
                    frame.target = nil
                }
                guard let node = next else {
                    size[frame.node] = min(frame.count, limit + 1)
                    state[frame.node] = 2
                    if !stack.isEmpty { stack[stack.count - 1].count += size[frame.node] }
                    continue
                }
                switch state[node] {
                case 2: frame.count += size[node]
                case 1: throw .svgRefused("a <use> that instantiates itself")
                default:
                    state[node] = 1
                    stack.append(frame)
                    frame = Frame(node: node, child: firstChild[node], target: uses[node].flatMap { ids[$0] }, count: 1)
                }
                if frame.count > limit { throw .svgOverCap("elements with <use> expanded", frame.count, limit) }
                stack.append(frame)
            }
            total += size[root]
            if total > limit { throw .svgOverCap("elements with <use> expanded", total, limit) }
        }
        return total
    }
}
