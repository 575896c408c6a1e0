// DWProxyURL: imgproxy's URL format — /{signature}/{options}/{base64url source}[.ext] or .../plain/{source}[@ext].
import DWWebImage
import Foundation

/// One parsed image URL. Parsing never fetches anything; every failure is a ``DWProxyURL/ParseError`` (a 400, or a
/// 404 for an expired `exp:`).
///
/// Accepted, as imgproxy accepts them (so its client libraries work unchanged):
/// ```
/// /{signature}/{option}/{option}/.../{base64url(source)}[.{ext}]      (the encoded part may be split by "/")
/// /{signature}/{option}/.../plain/{percent-encoded source}[@{ext}]
/// /{signature}/{preset:preset…}/{source}                               (with --only-presets)
/// ```
/// Options are `name:arg:arg…`, every processing option of imgproxy's open-source edition by its long and short
/// names (see ``DWOptionParser`` and docs/serving.md). Sources are http(s) URLs or `local:///path`.
struct DWProxyURL: Sendable, Equatable {
    /// The signature segment as given (base64url, or anything when no key is set).
    var signature: String
    /// The part the signature covers: everything after the signature segment, starting with "/".
    var signedPath: String
    /// The processing options (presets applied, `default` first).
    var options: DWImgproxyOptions
    /// The source URL, decoded.
    var source: String

    /// Why a URL was refused: 400, or 404 for an expired URL or a source the allowed sources do not list.
    struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// One line saying what is wrong (naming the option).
        let description: String
        /// The HTTP status to answer with.
        let status: Int
        /// The access log's word for it: `bad-url`, `expired` or `source-refused`.
        let note: String
        init(_ description: String, status: Int = 400, note: String? = nil) {
            self.description = description
            self.status = status
            self.note = note ?? (status == 404 ? "expired" : "bad-url")
        }
    }

    /// Splits a request target into its signature segment and the path the signature covers (from the "/" after
    /// it), so the signature can be checked before anything else is parsed.
    static func split(target: String) throws(ParseError) -> (signature: String, signedPath: String) {
        guard target.utf8.first == UInt8(ascii: "/") else { throw ParseError("path must start with /") }
        let afterSlash = target.utf8.dropFirst()
        guard let end = DWURLBytes.firstIndex(of: UInt8(ascii: "/"), in: Substring(afterSlash)) else {
            throw ParseError("no options or source after the signature")
        }
        return (String(Substring(afterSlash[..<end])), String(Substring(afterSlash[end...])))
    }

    /// Parses a request target (path and query as received, percent-encoding untouched) with the server's
    /// `presets`; the decoded source is rewritten and checked by `sources` (imgproxy's URL replacements, base URL
    /// and allowed sources: 404 for a source they do not allow); the options start from `defaults` (the request's
    /// client hints), under `presets`' base options, the `default` preset and the URL's; `now` (Unix seconds) judges
    /// `exp:`. Segments are found on the target's UTF-8 bytes.
    init(
        target: String, presets: DWPresets = DWPresets(), sources: DWSourceRules = DWSourceRules(),
        defaults: DWImgproxyOptions = DWImgproxyOptions(),
        now: Int64 = Int64(Date().timeIntervalSince1970)
    ) throws(ParseError) {
        (signature, signedPath) = try Self.split(target: target)
        options = defaults
        source = ""
        let parser = DWOptionParser(presets: presets, now: now)
        for segment in presets.base { try parser.apply(segment: Substring(segment), to: &options) }
        if presets.presets["default"] != nil { try parser.applyPreset("default", to: &options, presetStack: []) }

        let slash = UInt8(ascii: "/")
        var rest = Substring(signedPath.utf8.dropFirst())
        if presets.onlyPresets {
            guard let end = DWURLBytes.firstIndex(of: slash, in: rest) else { throw ParseError("no presets or source") }
            for name in rest[..<end].utf8.split(separator: UInt8(ascii: ":")) {
                try parser.applyPreset(String(Substring(name)), to: &options, presetStack: [])
            }
            rest = Substring(rest.utf8[rest.utf8.index(after: end)...])
        } else {
            // Options: leading segments that hold a ":" (a base64url source never does; "plain" ends them).
            while let end = DWURLBytes.firstIndex(of: slash, in: rest) {
                let segment = rest[..<end]
                if segment == "plain" || !segment.utf8.contains(UInt8(ascii: ":")) { break }
                try presets.checkAllowed(segment)
                try parser.apply(segment: segment, to: &options)
                rest = Substring(rest.utf8[rest.utf8.index(after: end)...])
            }
        }
        let format = rest.utf8.starts(with: "plain/".utf8) ? try parsePlain(rest) : try parseEncoded(rest)
        if let format, !options.raw { options.transform.format = format }  // imgproxy: raw ignores the extension
        source = sources.rewrite(source)
        if let named = DWNamedSource(source, names: sources.originNames) {
            if let problem = named.problem { throw ParseError("source \(problem)") }
        } else {
            try Self.validate(source: source)
        }
        guard sources.allows(source) else {
            throw ParseError("source URL is not allowed", status: 404, note: "source-refused")
        }
    }

    /// `plain/{percent-encoded source}[@{ext}]`: sets ``source``, returns the extension's format.
    private mutating func parsePlain(_ rest: Substring) throws(ParseError) -> DWImageFormat? {
        var plain = Substring(rest.utf8.dropFirst("plain/".utf8.count))
        var format: DWImageFormat?
        // "@ext" only when what follows the last "@" names a format (a source may hold "@" in its userinfo).
        if let at = plain.utf8.lastIndex(of: UInt8(ascii: "@")),
            let named = Self.format(named: Substring(plain.utf8[plain.utf8.index(after: at)...]))
        {
            format = named
            plain = plain[..<at]
        }
        guard let decoded = DWURLBytes.percentDecoded(plain) else {
            throw ParseError("plain source is not valid percent-encoding")
        }
        source = decoded
        return format
    }

    /// `{base64url source}[.{ext}]`, maybe split by "/": sets ``source``, returns the extension's format.
    private mutating func parseEncoded(_ rest: Substring) throws(ParseError) -> DWImageFormat? {
        if rest.utf8.contains(UInt8(ascii: "?")) { throw ParseError("unexpected query in an encoded source") }
        var encoded = Substring(String(decoding: rest.utf8.filter { $0 != UInt8(ascii: "/") }, as: UTF8.self))
        var format: DWImageFormat?
        if let dot = encoded.utf8.lastIndex(of: UInt8(ascii: ".")) {
            let ext = Substring(encoded.utf8[encoded.utf8.index(after: dot)...])
            guard let named = Self.format(named: ext) else { throw ParseError("unknown extension '\(ext)'") }
            format = named
            encoded = encoded[..<dot]
        }
        guard let data = Self.base64URLDecode(encoded), let text = String(data: data, encoding: .utf8) else {
            throw ParseError("source is not valid base64url")
        }
        source = text
        return format
    }

    /// The source must be an absolute http or https URL with a host, `local:///path` (served under the server's
    /// `--local-root`), or `s3://bucket/key` (allowed or refused by the server's `--allow-s3`).
    static func validate(source: String) throws(ParseError) {
        guard !source.isEmpty else { throw ParseError("empty source URL") }
        if source.hasPrefix("local:///") { return }
        if DWURLBytes.simpleHTTPAuthority(source) != nil { return }  // http(s) with a host: the usual source
        guard let components = URLComponents(string: source) ?? URLComponents(string: Self.escapeForParsing(source)),
            let scheme = components.scheme?.lowercased()
        else {
            throw ParseError("source is not a URL")
        }
        if scheme == "s3" {
            guard let location = DWS3Location(source), !location.key.isEmpty else {
                throw ParseError("source is not s3://bucket/key")
            }
            return
        }
        guard scheme == "http" || scheme == "https" else {
            throw ParseError("source scheme '\(scheme)' is not http or https")
        }
        guard let host = components.host, !host.isEmpty else { throw ParseError("source URL has no host") }
    }

    /// The lower-cased host of a validated source URL (brackets of an IPv6 literal removed).
    var sourceHost: String {
        if let simple = DWURLBytes.simpleHTTPAuthority(source) { return simple.host }
        let components = URLComponents(string: source) ?? URLComponents(string: Self.escapeForParsing(source))
        return (components?.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    private static func escapeForParsing(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(CharacterSet(charactersIn: "#%")))
            ?? text
    }

    /// An output format by the names imgproxy URLs use (`jpg` and `jpeg` alike): every format imgproxy saves that
    /// we read back (libvips' savers, and BMP and ICO, written as imgproxy writes them); nil for anything else.
    static func format(named name: Substring) -> DWImageFormat? {
        DWImageFormat(name: name).flatMap { $0 == .unknown ? nil : $0 }
    }

    /// base64url with or without padding (standard-alphabet characters are refused, as imgproxy does).
    static func base64URLDecode(_ text: Substring) -> Data? {
        var standard: [UInt8] = []
        standard.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.append(byte)
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            case UInt8(ascii: "="): continue
            default: return nil
            }
        }
        guard !text.isEmpty else { return nil }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(standard))
    }

    /// base64url without padding.
    static func base64URLEncode<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }
}
