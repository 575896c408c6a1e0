// DWSVGSanitizer's rules (which elements, attributes and DOCTYPE declarations stay) and its start-tag reader.
import Foundation

extension DWSVGSanitizer {
    /// One attribute of a start tag: its bytes (leading whitespace included) and its name and raw value.
    struct Attribute {
        let start: Int, end: Int
        let name: String
        let value: String
    }

    /// A start tag `<name attr="v" …>` or `<name … />` read from `bytes` at `start`.
    struct StartTag {
        /// Where its `<` is.
        let start: Int
        let name: String
        let nameEnd: Int
        var attributes: [Attribute] = []
        /// Where the whitespace and `>` or `/>` after the last attribute begin.
        var attributesEnd = 0
        var end = 0
        var selfClosing = false

        init(_ bytes: [UInt8], at start: Int) throws(Malformed) {
            self.start = start
            var j = start + 1
            while j < bytes.count, !Self.isNameEnd(bytes[j]) { j += 1 }
            guard j > start + 1 else { throw Malformed(reason: "tag at byte \(start) has no name") }
            name = String(decoding: bytes[start + 1..<j], as: UTF8.self)
            nameEnd = j
            while true {
                let attributeStart = j
                while j < bytes.count, bytes[j].isASCIISpace { j += 1 }
                guard j < bytes.count else { throw Malformed(reason: "tag <\(name)> at byte \(start) is not closed") }
                if bytes[j] == UInt8(ascii: ">") || bytes[j] == UInt8(ascii: "/") {
                    guard bytes[j] == UInt8(ascii: ">") || (j + 1 < bytes.count && bytes[j + 1] == UInt8(ascii: ">"))
                    else {
                        throw Malformed(reason: "tag <\(name)> at byte \(start) has a stray /")
                    }
                    (attributesEnd, selfClosing) = (attributeStart, bytes[j] == UInt8(ascii: "/"))
                    end = j + (selfClosing ? 2 : 1)
                    return
                }
                let nameStart = j
                while j < bytes.count, !Self.isNameEnd(bytes[j]), bytes[j] != UInt8(ascii: "=") { j += 1 }
                let attributeName = String(decoding: bytes[nameStart..<j], as: UTF8.self)
                while j < bytes.count, bytes[j].isASCIISpace { j += 1 }
                guard j < bytes.count, bytes[j] == UInt8(ascii: "="), !attributeName.isEmpty else {
                    throw Malformed(reason: "attribute \(attributeName) of <\(name)> at byte \(start) has no value")
                }
                j += 1
                while j < bytes.count, bytes[j].isASCIISpace { j += 1 }
                guard j < bytes.count, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'"),
                    let close = bytes[(j + 1)...].firstIndex(of: bytes[j])
                else {
                    throw Malformed(reason: "attribute \(attributeName) of <\(name)> at byte \(start) is not quoted")
                }
                let value = String(decoding: bytes[(j + 1)..<close], as: UTF8.self)
                j = close + 1
                attributes.append(Attribute(start: attributeStart, end: j, name: attributeName, value: value))
            }
        }

        static func isNameEnd(_ c: UInt8) -> Bool {
            c.isASCIISpace || c == UInt8(ascii: ">") || c == UInt8(ascii: "/")
        }
    }

    /// `svg:script` → `script`, lower case.
    static func localName(_ name: String) -> String {
        String(name.split(separator: ":", omittingEmptySubsequences: false).last ?? "").lowercased()
    }

    /// Whether `attribute` of element `element` (its local name) stays.
    static func keeps(_ attribute: Attribute, of element: String) -> Bool {
        let name = localName(attribute.name)
        if name.hasPrefix("on") { return false }
        guard name == "href" else { return true }
        let url = urlValue(attribute.value)
        if url.isEmpty || url.hasPrefix("#") { return true }
        if element == "use" { return false }
        guard let scheme = scheme(of: url) else { return true }  // relative or protocol-relative
        return scheme == "http" || scheme == "https" || (element == "image" && scheme == "data")
    }

    /// `<set>` or `<animate>` whose `attributeName` is an `href`: it would put any URL into one after sanitising.
    static func animatesHref(_ element: String, _ tag: StartTag) -> Bool {
        guard element == "set" || element == "animate" else { return false }
        return tag.attributes.contains {
            localName($0.name) == "attributename" && localName(urlValue($0.value)) == "href"
        }
    }

    /// A URL attribute as a browser reads it: character references and the predefined entities decoded, leading
    /// and trailing whitespace and controls trimmed, tabs and newlines inside removed.
    static func urlValue(_ raw: String) -> String {
        var decoded = ""
        var rest = raw[...]
        while let amp = rest.firstIndex(of: "&") {
            decoded += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.firstIndex(of: ";"), rest.distance(from: rest.startIndex, to: semicolon) <= 12
            else {
                decoded += "&"
                rest = rest.dropFirst()
                continue
            }
            let entity = rest[rest.index(after: rest.startIndex)..<semicolon].lowercased()
            let named = [
                "lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'", "colon": ":", "tab": "\t",
                "newline": "\n"
            ][entity]
            var scalar: Unicode.Scalar?
            if entity.hasPrefix("#x") {
                scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if entity.hasPrefix("#") {
                scalar = UInt32(entity.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
            }
            if let text = named ?? scalar.map({ String(Character($0)) }) {
                decoded += text
                rest = rest[rest.index(after: semicolon)...]
            } else {
                decoded += "&"
                rest = rest.dropFirst()
            }
        }
        decoded += rest
        let trimmed = decoded.unicodeScalars.drop { $0.value <= 0x20 }.reversed().drop { $0.value <= 0x20 }.reversed()
        return String(String.UnicodeScalarView(trimmed.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }))
    }

    /// The lower-case scheme of `url` (`javascript` in `javascript:…`), nil when it has none.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let candidate = url[..<colon]
        guard let first = candidate.first, first.isASCII, first.isLetter,
            candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return candidate.lowercased()
    }

    /// Whether a declaration of the DOCTYPE's internal subset stays: `<!ATTLIST>` never (it can give every element
    /// an `onload`); `<!ENTITY>` only as an internal general entity whose value has no markup or references.
    static func keepsDeclaration(_ declaration: [UInt8]) -> Bool {
        let text = String(decoding: declaration, as: UTF8.self)
        let words = text.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        guard let keyword = words.first?.uppercased() else { return true }
        if keyword == "ATTLIST" { return false }
        guard keyword == "ENTITY" else { return true }
        guard words.count >= 3, words[1] != "%", !["SYSTEM", "PUBLIC"].contains(words[2].uppercased()) else {
            return false
        }
        guard let open = text.firstIndex(where: { $0 == "\"" || $0 == "'" }) else { return false }
        let value = text[text.index(after: open)...].prefix { $0 != text[open] }
        return !value.contains("<") && !value.contains("&") && !value.contains("%")
    }
}
