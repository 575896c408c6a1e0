// DWSVGSanitizer: an SVG served as SVG, with what could run script or reach out taken out — imgproxy's sanitiser
// (its v3 `svg.Sanitize` and v4 `processing/svg`), token by token, every other byte kept as it was.
import DWWebImage
import Foundation

/// Sanitises SVG documents the way imgproxy does (`IMGPROXY_SANITIZE_SVG`, on by default), on one pass over the
/// tokens of the document, copying every byte it keeps unchanged:
/// - `<script>`, `<iframe>` and `<form>` elements (any prefix, any case) are dropped with everything inside them;
/// - event-handler attributes (every attribute whose local name starts with `on`: imgproxy's list of `on…` names
///   and any other) are dropped;
/// - `href`/`xlink:href` of `<use>` must name a fragment of the document (`#id`); of `<image>` a fragment, a relative
///   URL, `http(s):` or `data:`; of any other element a fragment, a relative URL or `http(s):` (so `javascript:`
///   links go) — values are read with their character references decoded and tabs and newlines removed, as a browser
///   reads a URL;
/// - beyond imgproxy, closing three ways around it: `<set>`/`<animate>` that animate an `href` are dropped, and in the
///   DOCTYPE `<!ATTLIST>` declarations (default attributes such as `onload`) and entities that are external,
///   parameter entities or carry markup (`<`, `&`) are dropped — a reference to a dropped entity leaves the document
///   malformed, and a browser then shows nothing; and `<?xml-stylesheet?>` instructions (a stylesheet the browser
///   would load and apply) are dropped.
///
/// A document that does not tokenise (an unterminated tag, comment or quote; an attribute without a quoted value)
/// is refused with 10000 ("Broken or unsupported SVG image", 422 in `dwfetch serve`, as imgproxy v4 answers).
/// A pure function; runs on the caller's thread.
public enum DWSVGSanitizer {
    /// The sanitised document.
    public static func sanitize(_ data: Data) throws(DWWebImageError) -> Data {
        var copier = TokenCopier(bytes: [UInt8](data))
        do {
            try copier.run()
        } catch {
            throw DWWebImageError(.notAnImage, "broken or unsupported SVG image: \(error.reason)")
        }
        return Data(copier.output)
    }

    /// Why a document does not tokenise.
    struct Malformed: Error {
        let reason: String
    }

    /// Elements dropped with their content.
    static let droppedElements: Set<String> = ["script", "iframe", "form"]

    private struct TokenCopier {
        let bytes: [UInt8]
        var output: [UInt8] = []
        var i = 0
        /// Open elements inside a dropped one (0: keeping).
        var dropDepth = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            output.reserveCapacity(bytes.count)
        }

        mutating func run() throws(Malformed) {
            while i < bytes.count {
                if bytes[i] != UInt8(ascii: "<") {
                    let end = index(of: [UInt8(ascii: "<")], from: i) ?? bytes.count
                    emit(i, end)
                    i = end
                } else if starts("<!--") {
                    try copy(until: "-->", what: "comment")
                } else if starts("<![CDATA[") {
                    try copy(until: "]]>", what: "CDATA section")
                } else if starts("<?xml-stylesheet") {  // an XSLT or CSS it would load and apply: dropped
                    try copy(until: "?>", what: "processing instruction", keep: false)
                } else if starts("<?") {
                    try copy(until: "?>", what: "processing instruction")
                } else if starts("<!") {
                    try declaration()
                } else if starts("</") {
                    try endTag()
                } else {
                    try startTag()
                }
            }
            guard dropDepth == 0 else { throw Malformed(reason: "a dropped element is not closed") }
        }

        // MARK: Tokens

        private mutating func copy(until terminator: String, what: String, keep: Bool = true) throws(Malformed) {
            guard let end = index(of: Array(terminator.utf8), from: i + 2) else {
                throw Malformed(reason: "\(what) at byte \(i) is not closed")
            }
            if keep { emit(i, end + terminator.utf8.count) }
            i = end + terminator.utf8.count
        }

        private mutating func endTag() throws(Malformed) {
            guard let end = index(of: [UInt8(ascii: ">")], from: i) else {
                throw Malformed(reason: "end tag at byte \(i) is not closed")
            }
            if dropDepth > 0 { dropDepth -= 1 } else { emit(i, end + 1) }
            i = end + 1
        }

        private mutating func startTag() throws(Malformed) {
            let tag = try StartTag(bytes, at: i)
            defer { i = tag.end }
            if dropDepth > 0 {
                if !tag.selfClosing { dropDepth += 1 }
                return
            }
            let name = DWSVGSanitizer.localName(tag.name)
            if DWSVGSanitizer.droppedElements.contains(name) || DWSVGSanitizer.animatesHref(name, tag) {
                if !tag.selfClosing { dropDepth = 1 }
                return
            }
            emit(i, tag.nameEnd)
            for attribute in tag.attributes where DWSVGSanitizer.keeps(attribute, of: name) {
                emit(attribute.start, attribute.end)
            }
            emit(tag.attributesEnd, tag.end)
        }

        /// A `<!DOCTYPE …>` (or other `<!…>` declaration): its internal subset sanitised, the rest copied.
        private mutating func declaration() throws(Malformed) {
            let start = i
            var j = i + 2
            while j < bytes.count, bytes[j] != UInt8(ascii: ">"), bytes[j] != UInt8(ascii: "[") {
                if bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") { j = try skipQuoted(j) } else { j += 1 }
            }
            guard j < bytes.count else { throw Malformed(reason: "declaration at byte \(start) is not closed") }
            if dropDepth == 0 { emit(start, j) }
            if bytes[j] == UInt8(ascii: "[") {
                if dropDepth == 0 { output.append(UInt8(ascii: "[")) }
                j = try internalSubset(from: j + 1)
            }
            guard let close = index(of: [UInt8(ascii: ">")], from: j) else {
                throw Malformed(reason: "declaration at byte \(start) is not closed")
            }
            if dropDepth == 0 { emit(j, close + 1) }
            i = close + 1
        }

        /// The DOCTYPE's `[…]` from `start`: returns the offset after its `]`.
        private mutating func internalSubset(from start: Int) throws(Malformed) -> Int {
            var j = start
            while j < bytes.count {
                if bytes[j] == UInt8(ascii: "]") {
                    if dropDepth == 0 { output.append(UInt8(ascii: "]")) }
                    return j + 1
                }
                if matches("<!--", at: j) {
                    guard let end = index(of: Array("-->".utf8), from: j + 4) else { break }
                    j = end + 3
                    continue
                }
                if bytes[j] == UInt8(ascii: "<") {
                    var end = j + 1
                    while end < bytes.count, bytes[end] != UInt8(ascii: ">") {
                        if bytes[end] == UInt8(ascii: "\"") || bytes[end] == UInt8(ascii: "'") {
                            end = try skipQuoted(end)
                        } else { end += 1 }
                    }
                    guard end < bytes.count else { break }
                    if dropDepth == 0, DWSVGSanitizer.keepsDeclaration(Array(bytes[j...end])) { emit(j, end + 1) }
                    j = end + 1
                    continue
                }
                if dropDepth == 0 { output.append(bytes[j]) }
                j += 1
            }
            throw Malformed(reason: "DOCTYPE internal subset is not closed")
        }

        private func skipQuoted(_ j: Int) throws(Malformed) -> Int {
            guard let close = index(of: [bytes[j]], from: j + 1) else {
                throw Malformed(reason: "quoted value at byte \(j) is not closed")
            }
            return close + 1
        }

        // MARK: Bytes

        private mutating func emit(_ from: Int, _ to: Int) {
            if dropDepth == 0, from < to { output.append(contentsOf: bytes[from..<to]) }
        }

        private func starts(_ text: String) -> Bool { matches(text, at: i) }

        private func matches(_ text: String, at offset: Int) -> Bool {
            let utf8 = Array(text.utf8)
            guard offset + utf8.count <= bytes.count else { return false }
            return bytes[offset..<offset + utf8.count].elementsEqual(utf8)
        }

        private func index(of needle: [UInt8], from start: Int) -> Int? {
            var j = start
            while j + needle.count <= bytes.count {
                if bytes[j] == needle[0], bytes[j..<j + needle.count].elementsEqual(needle) { return j }
                j += 1
            }
            return nil
        }
    }
}
