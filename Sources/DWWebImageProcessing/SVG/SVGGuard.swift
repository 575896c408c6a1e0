// SVGGuard: what librsvg may be given. Every SVG the engine measures or rasterises is read here first, by the
// sanitiser's tokenizer, and refused when it reaches outside itself, embeds anything but a PNG, JPEG, GIF or WebP
// (sniffed by the core from the bytes), embeds more pixels than the limit, or is larger than the caps.
import DWWebImage
import Foundation

/// The checks an SVG passes before librsvg sees it (see ``SVGRaster``). librsvg decodes `data:` images with
/// gdk-pixbuf at their own size and through any of its loaders (XPM, PNM, TGA, ICNS…), follows `data:` URLs in
/// `<use>`, CSS and XInclude as whole documents, and spends CPU on filters without a bound; this is the part that
/// can be decided from the bytes:
/// - `href`/`xlink:href` (any prefix) is a fragment (`#id`) or empty; on `<image>` and `<feImage>` also a `data:` URL
///   whose payload ``DWImage`` sniffs as PNG, JPEG, GIF or WebP and whose declared type (if any) is that format's;
///   on `<a>` anything (librsvg never loads a link). Anything else — `http:`, `file:`, relative — is refused;
/// - CSS (`<style>` text and CDATA, every other attribute, entity values), read after XML references and CSS escapes
///   are decoded: every `url(…)` names a fragment, and there is no `@import`;
/// - no `<xi:include>`, no `<?xml-stylesheet?>`, no `<!ATTLIST>`, and entities are internal general entities whose
///   value has no markup or references;
/// - the embedded images' header pixels (width × height, × frames for GIF and WebP), summed, are at most
///   `maxPixels`;
/// - the caps in ``Caps``.
/// A pure function of the bytes; runs on the caller's thread.
enum SVGGuard {
    /// The caps on a document's size as a drawing, chosen far above icons, logos, charts and maps (a 5 MB map
    /// exported from QGIS has ~60,000 elements) and far below what takes librsvg seconds.
    enum Caps {
        /// Elements in the document.
        static let elements = 250_000
        /// Elements with every `<use>` expanded (each `<use>` counts what it instantiates, recursively).
        static let expandedElements = 250_000
        /// Filter primitives (`<feGaussianBlur>`, `<feMorphology>`…) in the whole document.
        static let filterPrimitives = 100
        /// `<image>` and `<feImage>` elements with a `data:` image.
        static let images = 100
        /// Element nesting (libxml2's own default limit).
        static let depth = 256
    }

    /// What the scan found.
    struct Report {
        /// The root element's start tag.
        var root: DWSVGSanitizer.StartTag?
        var elements = 0
        var filterPrimitives = 0
        var images = 0
        /// Header pixels of the embedded images, summed.
        var embeddedPixels = 0
        var expandedElements = 0
    }

    /// The filter primitives of SVG 1.1 and Filter Effects 1 (local names, lower case).
    static let filterPrimitives: Set<String> = [
        "feblend", "fecolormatrix", "fecomponenttransfer", "fecomposite", "feconvolvematrix", "fediffuselighting",
        "fedisplacementmap", "fedropshadow", "feflood", "fegaussianblur", "feimage", "femerge", "femorphology",
        "feoffset", "fespecularlighting", "fetile", "feturbulence"
    ]

    /// Scans `data`; throws 10000 for what may not reach librsvg (or does not tokenise) and 10005 for what is over
    /// a limit or cap. `maxPixels`: the pixel limit in force, for the embedded images together.
    static func check(_ data: Data, maxPixels: Int) throws(DWWebImageError) -> Report {
        var scan = Scan(bytes: [UInt8](data), maxPixels: maxPixels)
        do {
            try scan.run()
        } catch let malformed as DWSVGSanitizer.Malformed {
            throw DWWebImageError.brokenSVG(malformed.reason)
        } catch let error as DWWebImageError {
            throw error
        } catch {
            throw DWWebImageError(.notAnImage, "SVG refused: \(error)")
        }
        scan.report.expandedElements = try scan.graph.expandedCount(limit: Caps.expandedElements)
        return scan.report
    }

    /// Refuses an XML declaration naming an encoding whose markup bytes are not ASCII's: libxml2 would read the
    /// document through it (UTF-7's `+ADw-` is a `<`), so what this scan reads would not be what librsvg gets.
    /// UTF-8, ASCII, the ISO-8859 and Windows code pages keep every byte below 0x80 as ASCII.
    static func checkEncoding(_ instruction: String) throws(DWWebImageError) {
        let lower = instruction.lowercased()
        guard lower.hasPrefix("<?xml"), lower.dropFirst(5).first?.isWhitespace ?? false,
            let range = lower.range(of: "encoding")
        else { return }
        let rest = lower[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return }
        let name = rest.dropFirst().prefix { $0 != quote }.trimmingCharacters(in: .whitespaces)
        let asciiCompatible =
            ["utf-8", "utf8", "us-ascii", "ascii", "latin1"].contains(name)
            || ["iso-8859-", "iso8859-", "windows-125", "cp125"].contains { name.hasPrefix($0) }
        guard asciiCompatible else {
            throw DWWebImageError.svgRefused("the encoding \(name.prefix(40)) (only UTF-8 and ASCII supersets)")
        }
    }

    /// The walk over the tokens.
    private struct Scan {
        var tokens: SVGTokenizer
        let maxPixels: Int
        var report = Report()
        var graph = UseGraph()
        /// Internal entities declared in the DOCTYPE: name → value.
        var entities: [String: String] = [:]
        /// Open elements (their indices).
        var open: [Int] = []
        /// The text of the `<style>` element being read, and its depth in `open`.
        var style: (text: String, depth: Int)?

        init(bytes: [UInt8], maxPixels: Int) {
            tokens = SVGTokenizer(bytes)
            self.maxPixels = maxPixels
        }

        mutating func run() throws {
            while let token = try tokens.next() {
                switch token {
                case .text(let range):
                    if style != nil { style!.text += decoded(text(range)) }
                case .markup(let range, let kind):
                    if kind == .cdata, style != nil { style!.text += text(range.lowerBound + 9..<range.upperBound - 3) }
                    if kind == .instruction, tokens.matches("<?xml-stylesheet", at: range.lowerBound) {
                        throw DWWebImageError.svgRefused("an <?xml-stylesheet?> instruction")
                    }
                    if kind == .instruction { try SVGGuard.checkEncoding(text(range)) }
                case .endTag:
                    try endTag()
                case .startTag(let tag):
                    try startTag(tag)
                case .doctype(let doctype):
                    for case .declaration(let range) in doctype.subset ?? [] { try declaration(text(range)) }
                }
            }
        }

        private mutating func startTag(_ tag: DWSVGSanitizer.StartTag) throws {
            let index = report.elements
            report.elements += 1
            guard report.elements <= Caps.elements else {
                throw DWWebImageError.svgOverCap("elements", report.elements, Caps.elements)
            }
            if report.root == nil { report.root = tag }
            graph.add(parent: open.last)
            let name = DWSVGSanitizer.localName(tag.name)
            if name == "include" { throw DWWebImageError.svgRefused("an XInclude element <\(tag.name)>") }
            if SVGGuard.filterPrimitives.contains(name) {
                report.filterPrimitives += 1
                guard report.filterPrimitives <= Caps.filterPrimitives else {
                    throw DWWebImageError.svgOverCap(
                        "filter primitives", report.filterPrimitives, Caps.filterPrimitives)
                }
            }
            for attribute in tag.attributes {
                let attributeName = DWSVGSanitizer.localName(attribute.name)
                let value = decoded(attribute.value)
                if attributeName == "href" {
                    try href(value, of: name, index: index)
                } else {
                    try SVGGuard.checkCSS(value, in: "attribute \(attribute.name) of <\(tag.name)>")
                }
                if attributeName == "id" { graph.ids[value] = index }
            }
            guard !tag.selfClosing else { return }
            open.append(index)
            guard open.count <= Caps.depth else {
                throw DWWebImageError.svgOverCap("element nesting", open.count, Caps.depth)
            }
            if name == "style", style == nil { style = ("", open.count) }
        }

        private mutating func endTag() throws {
            if let style, style.depth == open.count {
                try SVGGuard.checkCSS(style.text, in: "a <style> element")
                self.style = nil
            }
            _ = open.popLast()
        }

        /// An `href`: a fragment anywhere, a checked `data:` image in `<image>`/`<feImage>`, anything in `<a>`.
        private mutating func href(_ value: String, of element: String, index: Int) throws {
            let url = SVGGuard.trimmedURL(value)
            if url.isEmpty || url.hasPrefix("#") {
                if element == "use", url.count > 1 { graph.uses[index] = String(url.dropFirst()) }
                return
            }
            if element == "a" { return }
            let scheme = DWSVGSanitizer.scheme(of: url)
            guard element == "image" || element == "feimage", scheme == "data" else {
                throw DWWebImageError.svgRefused(
                    "<\(element)> refers to \(scheme.map { "a \($0): URL" } ?? "a relative URL"); only "
                        + "fragments\(element == "image" || element == "feimage" ? " and data: images" : "") are read")
            }
            report.images += 1
            guard report.images <= Caps.images else {
                throw DWWebImageError.svgOverCap("embedded images", report.images, Caps.images)
            }
            let pixels = try SVGGuard.embeddedPixels(url)
            let sum = report.embeddedPixels.addingReportingOverflow(pixels)
            guard !sum.overflow, sum.partialValue <= maxPixels else {
                let total = sum.overflow ? Int.max : sum.partialValue
                throw DWWebImageError.svgRefused(
                    "its embedded images have \(total) pixels, over the limit of \(maxPixels)",
                    size: Int64(total), limit: Int64(maxPixels))
            }
            report.embeddedPixels = sum.partialValue
        }

        /// One declaration of the internal subset: `<!ATTLIST>` refused (default attributes such as an `href` on
        /// every `<image>`); `<!ENTITY>` only internal, general, without markup or references, and its value checked
        /// as CSS (it may be put into a `style`).
        private mutating func declaration(_ text: String) throws {
            let words = text.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            guard let keyword = words.first?.uppercased() else { return }
            if keyword == "ATTLIST" { throw DWWebImageError.svgRefused("an <!ATTLIST> declaration") }
            guard keyword == "ENTITY" else { return }
            guard words.count >= 3, words[1] != "%", !["SYSTEM", "PUBLIC"].contains(words[2].uppercased()),
                let open = text.firstIndex(where: { $0 == "\"" || $0 == "'" })
            else {
                throw DWWebImageError.svgRefused("an external or parameter entity")
            }
            let value = String(text[text.index(after: open)...].prefix { $0 != text[open] })
            guard !value.contains("<"), !value.contains("&"), !value.contains("%") else {
                throw DWWebImageError.svgRefused("an entity with markup or references")
            }
            try SVGGuard.checkCSS(value, in: "an entity")
            entities[String(words[1])] = value
        }

        private func text(_ range: Range<Int>) -> String {
            String(decoding: tokens.bytes[range], as: UTF8.self)
        }

        private func decoded(_ raw: String) -> String { SVGGuard.decodeReferences(raw, entities: entities) }
    }
}
