// SVGTokenizer: the one XML tokenizer of the SVG code — text, comments, CDATA, processing instructions, the DOCTYPE
// with its internal subset, start and end tags — as byte ranges over the document. The sanitiser copies by it and
// the raster guard (SVGGuard) reads by it.
import Foundation

/// Splits an SVG document into tokens, each carrying the byte ranges it came from, so a reader can copy any of them
/// unchanged. Not a validating parser: no entity expansion, no namespace resolution, nothing fetched. A value; runs
/// on the caller's thread.
struct SVGTokenizer {
    /// What a `<!…>`/`<?…>` markup token is.
    enum MarkupKind: Equatable {
        case comment, cdata, instruction
    }

    /// A piece of the DOCTYPE's internal subset `[…]`.
    enum SubsetPart {
        /// Bytes between declarations (whitespace, parameter-entity references), copied as they are.
        case text(Range<Int>)
        /// A comment inside the subset.
        case comment(Range<Int>)
        /// One `<!ENTITY …>`, `<!ATTLIST …>`, `<!ELEMENT …>` or other declaration, `<` to `>`.
        case declaration(Range<Int>)
    }

    /// A `<!DOCTYPE …>` (or another `<!…>` declaration): the bytes before its `[` (or its `>`), the internal subset's
    /// parts if it has one (the `[` and `]` themselves are in no range), and the bytes after the `]` up to its `>`.
    struct Doctype {
        let head: Range<Int>
        let subset: [SubsetPart]?
        let tail: Range<Int>
    }

    /// One token.
    enum Token {
        case text(Range<Int>)
        case markup(Range<Int>, MarkupKind)
        case endTag(Range<Int>, name: String)
        case startTag(DWSVGSanitizer.StartTag)
        case doctype(Doctype)
    }

    let bytes: [UInt8]
    /// The offset of the next token.
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next token; nil at the end of the document. Throws when the document does not tokenise (an unterminated
    /// tag, comment, quote or declaration; an attribute without a quoted value).
    mutating func next() throws(DWSVGSanitizer.Malformed) -> Token? {
        let i = offset
        guard i < bytes.count else { return nil }
        if bytes[i] != UInt8(ascii: "<") {
            let end = index(of: [UInt8(ascii: "<")], from: i) ?? bytes.count
            offset = end
            return .text(i..<end)
        }
        if matches("<!--", at: i) { return try markup(until: "-->", what: "comment", .comment) }
        if matches("<![CDATA[", at: i) { return try markup(until: "]]>", what: "CDATA section", .cdata) }
        if matches("<?", at: i) { return try markup(until: "?>", what: "processing instruction", .instruction) }
        if matches("<!", at: i) { return .doctype(try declaration()) }
        if matches("</", at: i) {
            guard let end = index(of: [UInt8(ascii: ">")], from: i) else {
                throw DWSVGSanitizer.Malformed(reason: "end tag at byte \(i) is not closed")
            }
            offset = end + 1
            var nameEnd = i + 2
            while nameEnd < end, !DWSVGSanitizer.StartTag.isNameEnd(bytes[nameEnd]) { nameEnd += 1 }
            return .endTag(i..<end + 1, name: String(decoding: bytes[(i + 2)..<nameEnd], as: UTF8.self))
        }
        let tag = try DWSVGSanitizer.StartTag(bytes, at: i)
        offset = tag.end
        return .startTag(tag)
    }

    // MARK: Tokens

    private mutating func markup(until terminator: String, what: String, _ kind: MarkupKind)
        throws(DWSVGSanitizer.Malformed) -> Token
    {
        let start = offset
        guard let end = index(of: Array(terminator.utf8), from: start + 2) else {
            throw DWSVGSanitizer.Malformed(reason: "\(what) at byte \(start) is not closed")
        }
        offset = end + terminator.utf8.count
        return .markup(start..<offset, kind)
    }

    /// A `<!DOCTYPE …>` (or other `<!…>` declaration) with its internal subset.
    private mutating func declaration() throws(DWSVGSanitizer.Malformed) -> Doctype {
        let start = offset
        var j = start + 2
        while j < bytes.count, bytes[j] != UInt8(ascii: ">"), bytes[j] != UInt8(ascii: "[") {
            if bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") { j = try skipQuoted(j) } else { j += 1 }
        }
        guard j < bytes.count else {
            throw DWSVGSanitizer.Malformed(reason: "declaration at byte \(start) is not closed")
        }
        let head = start..<j
        var subset: [SubsetPart]?
        if bytes[j] == UInt8(ascii: "[") {
            let parts = try internalSubset(from: j + 1)
            subset = parts.parts
            j = parts.end
        }
        guard let close = index(of: [UInt8(ascii: ">")], from: j) else {
            throw DWSVGSanitizer.Malformed(reason: "declaration at byte \(start) is not closed")
        }
        offset = close + 1
        return Doctype(head: head, subset: subset, tail: j..<close + 1)
    }

    /// The DOCTYPE's `[…]` from `start`: its parts and the offset after its `]`.
    private func internalSubset(from start: Int) throws(DWSVGSanitizer.Malformed) -> (parts: [SubsetPart], end: Int) {
        var parts: [SubsetPart] = []
        var j = start, textStart = start
        func flush(_ upTo: Int) {
            if textStart < upTo { parts.append(.text(textStart..<upTo)) }
        }
        while j < bytes.count {
            if bytes[j] == UInt8(ascii: "]") {
                flush(j)
                return (parts, j + 1)
            }
            if matches("<!--", at: j) {
                guard let end = index(of: Array("-->".utf8), from: j + 4) else { break }
                flush(j)
                parts.append(.comment(j..<end + 3))
                j = end + 3
                textStart = j
                continue
            }
            if bytes[j] == UInt8(ascii: "<") {
                var end = j + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: ">") {
                    if bytes[end] == UInt8(ascii: "\"") || bytes[end] == UInt8(ascii: "'") {
                        end = try skipQuoted(end)
                    } else {
                        end += 1
                    }
                }
                guard end < bytes.count else { break }
                flush(j)
                parts.append(.declaration(j..<end + 1))
                j = end + 1
                textStart = j
                continue
            }
            j += 1
        }
        throw DWSVGSanitizer.Malformed(reason: "DOCTYPE internal subset is not closed")
    }

    private func skipQuoted(_ j: Int) throws(DWSVGSanitizer.Malformed) -> Int {
        guard let close = index(of: [bytes[j]], from: j + 1) else {
            throw DWSVGSanitizer.Malformed(reason: "quoted value at byte \(j) is not closed")
        }
        return close + 1
    }

    // MARK: Bytes

    /// Whether `text` is at `offset`.
    func matches(_ text: String, at offset: Int) -> Bool {
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
