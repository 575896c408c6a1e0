// DWSourceRules: what imgproxy does to a source URL once it is decoded — its URL replacements, its base URL — and
// which sources it lets through (its allowed-source prefixes).
import Foundation

/// imgproxy's `IMGPROXY_URL_REPLACEMENTS`, `IMGPROXY_BASE_URL` and `IMGPROXY_ALLOWED_SOURCES`, applied in its order
/// by ``DWProxyURL``: each replacement whose pattern matches the start of the decoded source replaces that start,
/// then the base URL is put in front of a source that does not already start with it, and the result must start
/// with one of the allowed patterns (404 otherwise, as imgproxy). Patterns are prefixes in which `*` stands for any
/// run of characters other than `/` (imgproxy's wildcards); a replacement's `$1` or `${1}` is what the first `*`
/// matched. A plain value, read on any thread.
public struct DWSourceRules: Sendable, Equatable {
    /// One `PATTERN=REPLACEMENT` pair.
    public struct Replacement: Sendable, Equatable {
        /// The prefix pattern (`*` wildcards).
        public var pattern: String
        /// What replaces the matched prefix, `$N`/`${N}` standing for the N-th wildcard's text.
        public var replacement: String

        /// `pattern=replacement` (the first `=` splits them); nil without one.
        public init?(parsing text: String) {
            guard let equals = text.firstIndex(of: "=") else { return nil }
            pattern = String(text[..<equals])
            replacement = String(text[text.index(after: equals)...])
        }
    }

    /// Applied in order, each to the previous one's result.
    public var replacements: [Replacement] = []
    /// Put in front of every source that does not start with it; "" (default): none.
    public var baseURL = ""
    /// Prefix patterns a source must match one of; empty (default): any source (the host and address rules still
    /// apply).
    public var allowedSources: [String] = []
    /// The names of `--origins`' origins (``DWNamedOrigin``): a source `NAME://PATH` naming one is theirs; with
    /// `default` among them, a source without a scheme becomes `default://SOURCE` (in place of a base URL).
    public var originNames: Set<String> = []

    /// No replacement, no base URL, any source.
    public init() {}

    /// `source` with the replacements, then the base URL, applied.
    public func rewrite(_ source: String) -> String {
        var text = source
        for rule in replacements {
            guard let (end, captures) = Self.match(Array(rule.pattern.utf8), Array(text.utf8)) else { continue }
            let bytes = Array(text.utf8)
            text =
                Self.expand(rule.replacement, [Array(bytes[..<end])] + captures)
                + String(decoding: bytes[end...], as: UTF8.self)
        }
        if originNames.contains(DWNamedOrigin.defaultName), !Self.hasScheme(text) {
            return DWNamedOrigin.defaultName + "://" + text.drop { $0 == "/" }
        }
        return baseURL.isEmpty || text.hasPrefix(baseURL) ? text : baseURL + text
    }

    /// Whether `text` starts with `scheme:` (a letter, then letters, digits, `+`, `-` or `.`, then `:`).
    static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter else {
            return false
        }
        return text[..<colon].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// Whether `source` (rewritten) may be fetched: it starts with an allowed pattern, or none is set.
    public func allows(_ source: String) -> Bool {
        let bytes = Array(source.utf8)
        return allowedSources.isEmpty || allowedSources.contains { Self.match(Array($0.utf8), bytes) != nil }
    }

    // MARK: - imgproxy's wildcard prefixes (`^` + quoted parts joined by `([^/]*)`, greedy, as Go's regexp)

    /// Where a match of `pattern` at the start of `text` ends, and what each `*` took; nil when it does not match.
    static func match(_ pattern: [UInt8], _ text: [UInt8]) -> (end: Int, captures: [[UInt8]])? {
        var captures: [[UInt8]] = []
        guard let end = match(pattern[...], text, from: 0, captures: &captures) else { return nil }
        return (end, captures)
    }

    private static func match(
        _ pattern: ArraySlice<UInt8>, _ text: [UInt8], from start: Int,
        captures: inout [[UInt8]]
    ) -> Int? {
        let star = UInt8(ascii: "*"), slash = UInt8(ascii: "/")
        var position = start
        var index = pattern.startIndex
        while index < pattern.endIndex, pattern[index] != star {  // the literal run before the next `*`
            guard position < text.count, text[position] == pattern[index] else { return nil }
            position += 1
            index += 1
        }
        guard index < pattern.endIndex else { return position }
        var longest = position  // `[^/]*`: as far as the next "/", then back off one at a time
        while longest < text.count, text[longest] != slash { longest += 1 }
        for end in stride(from: longest, through: position, by: -1) {
            var inner = captures + [Array(text[position..<end])]
            if let matched = match(pattern[(index + 1)...], text, from: end, captures: &inner) {
                captures = inner
                return matched
            }
        }
        return nil
    }

    /// Go's `Regexp.Expand` over numbered `groups` (0: the whole match): `$N` (the longest run of letters, digits
    /// and `_` names the group; a name that is not a group's number is empty), `${N}`, and `$$` for a dollar.
    static func expand(_ template: String, _ groups: [[UInt8]]) -> String {
        let bytes = Array(template.utf8)
        var out: [UInt8] = []
        var index = 0
        let isName = { (byte: UInt8) in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 95
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "$"), index + 1 < bytes.count else {
                out.append(bytes[index])
                index += 1
                continue
            }
            var name: ArraySlice<UInt8>
            if bytes[index + 1] == UInt8(ascii: "$") {
                out.append(UInt8(ascii: "$"))
                index += 2
                continue
            } else if bytes[index + 1] == UInt8(ascii: "{"),
                let close = bytes[(index + 2)...].firstIndex(of: UInt8(ascii: "}"))
            {
                name = bytes[(index + 2)..<close]
                index = close + 1
            } else {
                var end = index + 1
                while end < bytes.count, isName(bytes[end]) { end += 1 }
                guard end > index + 1 else {  // a lone "$": kept as it is
                    out.append(bytes[index])
                    index += 1
                    continue
                }
                name = bytes[(index + 1)..<end]
                index = end
            }
            if let number = Int(String(decoding: name, as: UTF8.self)), groups.indices.contains(number) {
                out += groups[number]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
