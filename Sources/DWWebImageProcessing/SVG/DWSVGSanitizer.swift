// DWSVGSanitizer: an SVG served as SVG, with what could run script or reach out taken out — imgproxy's sanitiser
// (its v3 `svg.Sanitize` and v4 `processing/svg`), token by token, every other byte kept as it was.
import DWWebImage
import Foundation

/// Sanitises SVG documents the way imgproxy does (`IMGPROXY_SANITIZE_SVG`, on by default), on one pass over the
/// tokens of the document, copying every byte it keeps unchanged:
/// - `<script>`, `<iframe>` and `<form>` elements (any prefix, any case) are dropped with everything inside them, and
///   beyond imgproxy the HTML elements that load, embed or navigate (`<object>`, `<embed>`, `<applet>`, `<frame>`,
///   `<frameset>`, `<meta>`, `<link>`, `<base>`), which no SVG needs;
/// - beyond imgproxy, a root element that declares a namespace other than SVG's (`<svg xmlns="…/1999/xhtml">`, which
///   a browser reads as HTML) is refused;
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
            throw .brokenSVG(error.reason)
        }
        return Data(copier.output)
    }

    /// Why a document does not tokenise.
    struct Malformed: Error {
        let reason: String
    }

    /// Elements dropped with their content.
    static let droppedElements: Set<String> = [
        "script", "iframe", "form", "object", "embed", "applet", "frame", "frameset", "meta", "link", "base"
    ]

    /// SVG's namespace, the only one a root element may declare.
    static let svgNamespace = "http://www.w3.org/2000/svg"

    /// Copies the tokens of ``SVGTokenizer`` that stay.
    private struct TokenCopier {
        var tokens: SVGTokenizer
        var output: [UInt8] = []
        /// Open elements inside a dropped one (0: keeping).
        var dropDepth = 0
        /// The root element has been seen (and its namespace checked).
        var sawRoot = false

        init(bytes: [UInt8]) {
            tokens = SVGTokenizer(bytes)
            output.reserveCapacity(bytes.count)
        }

        mutating func run() throws(Malformed) {
            while let token = try tokens.next() {
                switch token {
                case .text(let range): emit(range)
                case .markup(let range, let kind):
                    // an `<?xml-stylesheet?>` is an XSLT or CSS it would load and apply: dropped
                    if kind != .instruction || !tokens.matches("<?xml-stylesheet", at: range.lowerBound) { emit(range) }
                case .endTag(let range, _):
                    if dropDepth > 0 { dropDepth -= 1 } else { emit(range) }
                case .startTag(let tag):
                    if !sawRoot { try checkRoot(tag) }
                    startTag(tag)
                case .doctype(let doctype): declaration(doctype)
                }
            }
            guard dropDepth == 0 else { throw Malformed(reason: "a dropped element is not closed") }
        }

        /// The root may declare SVG's namespace or none (then no browser reads it as HTML), never another.
        private mutating func checkRoot(_ tag: StartTag) throws(Malformed) {
            sawRoot = true
            let prefix =
                tag.name.split(separator: ":", maxSplits: 1).count == 2
                ? String(tag.name.split(separator: ":", maxSplits: 1)[0]) : nil
            let declaration = prefix.map { "xmlns:\($0)" } ?? "xmlns"
            guard let namespace = tag.attributes.first(where: { $0.name == declaration })?.value else { return }
            guard namespace.trimmingCharacters(in: .whitespaces) == DWSVGSanitizer.svgNamespace else {
                throw Malformed(reason: "the root element is not in SVG's namespace")
            }
        }

        private mutating func startTag(_ tag: StartTag) {
            if dropDepth > 0 {
                if !tag.selfClosing { dropDepth += 1 }
                return
            }
            let name = DWSVGSanitizer.localName(tag.name)
            if DWSVGSanitizer.droppedElements.contains(name) || DWSVGSanitizer.animatesHref(name, tag) {
                if !tag.selfClosing { dropDepth = 1 }
                return
            }
            emit(tag.start..<tag.nameEnd)
            for attribute in tag.attributes where DWSVGSanitizer.keeps(attribute, of: name) {
                emit(attribute.start..<attribute.end)
            }
            emit(tag.attributesEnd..<tag.end)
        }

        /// A `<!DOCTYPE …>` (or other `<!…>` declaration): its internal subset sanitised (comments in it dropped),
        /// the rest copied.
        private mutating func declaration(_ doctype: SVGTokenizer.Doctype) {
            guard dropDepth == 0 else { return }
            emit(doctype.head)
            if let subset = doctype.subset {
                output.append(UInt8(ascii: "["))
                for part in subset {
                    switch part {
                    case .text(let range): emit(range)
                    case .comment: break
                    case .declaration(let range):
                        if DWSVGSanitizer.keepsDeclaration(Array(tokens.bytes[range])) { emit(range) }
                    }
                }
                output.append(UInt8(ascii: "]"))
            }
            emit(doctype.tail)
        }

        private mutating func emit(_ range: Range<Int>) {
            if dropDepth == 0, !range.isEmpty { output.append(contentsOf: tokens.bytes[range]) }
        }
    }
}
