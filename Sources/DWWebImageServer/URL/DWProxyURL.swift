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
/// names (see ``DWOptionParser`` and README's "Serving images"). Sources are http(s) URLs or `local:///path`.
public struct DWProxyURL: Sendable, Equatable {
    /// The signature segment as given (base64url, or anything when no key is set).
    public var signature: String
    /// The part the signature covers: everything after the signature segment, starting with "/".
    public var signedPath: String
    /// The processing options (presets applied, `default` first).
    public var options: DWImgproxyOptions
    /// The source URL, decoded.
    public var source: String

    /// Why a URL was refused: 400, or 404 for an expired URL.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// One line saying what is wrong (naming the option).
        public let description: String
        /// The HTTP status to answer with.
        public let status: Int
        init(_ description: String, status: Int = 400) {
            self.description = description
            self.status = status
        }
    }

    /// Splits a request target into its signature segment and the path the signature covers (from the "/" after
    /// it), so the signature can be checked before anything else is parsed.
    public static func split(target: String) throws(ParseError) -> (signature: String, signedPath: String) {
        guard target.hasPrefix("/") else { throw ParseError("path must start with /") }
        let afterSlash = target.dropFirst()
        guard let end = afterSlash.firstIndex(of: "/") else { throw ParseError("no options or source after the signature") }
        return (String(afterSlash[..<end]), String(afterSlash[end...]))
    }

    /// Parses a request target (path and query as received, percent-encoding untouched) with the server's
    /// `presets`; `now` (Unix seconds) judges `exp:`.
    public init(target: String, presets: DWPresets = DWPresets(),
                now: Int64 = Int64(Date().timeIntervalSince1970)) throws(ParseError) {
        (signature, signedPath) = try Self.split(target: target)
        options = DWImgproxyOptions()
        source = ""
        let parser = DWOptionParser(presets: presets, now: now)
        if presets.presets["default"] != nil { try parser.applyPreset("default", to: &options, presetStack: []) }

        var rest = signedPath.dropFirst()[...]
        if presets.onlyPresets {
            guard let slash = rest.firstIndex(of: "/") else { throw ParseError("no presets or source") }
            for name in rest[..<slash].split(separator: ":") {
                try parser.applyPreset(String(name), to: &options, presetStack: [])
            }
            rest = rest[rest.index(after: slash)...]
        } else {
            // Options: leading segments that hold a ":" (a base64url source never does; "plain" ends them).
            while let slash = rest.firstIndex(of: "/") {
                let segment = rest[..<slash]
                if segment == "plain" || !segment.contains(":") { break }
                try parser.apply(segment: segment, to: &options)
                rest = rest[rest.index(after: slash)...]
            }
        }
        var format: DWImageFormat?
        if rest.hasPrefix("plain/") {
            var plain = rest.dropFirst("plain/".count)
            // "@ext" only when what follows the last "@" names a format (a source may hold "@" in its userinfo).
            if let at = plain.lastIndex(of: "@"), let named = Self.format(named: plain[plain.index(after: at)...]) {
                format = named
                plain = plain[..<at]
            }
            guard let decoded = DWURLBytes.percentDecoded(plain) else {
                throw ParseError("plain source is not valid percent-encoding")
            }
            source = decoded
        } else {
            if rest.contains("?") { throw ParseError("unexpected query in an encoded source") }
            var encoded = rest.filter { $0 != "/" }[...]
            if let dot = encoded.lastIndex(of: ".") {
                let ext = encoded[encoded.index(after: dot)...]
                guard let named = Self.format(named: ext) else { throw ParseError("unknown extension '\(ext)'") }
                format = named
                encoded = encoded[..<dot]
            }
            guard let data = Self.base64URLDecode(encoded), let text = String(data: data, encoding: .utf8) else {
                throw ParseError("source is not valid base64url")
            }
            source = text
        }
        if let format, !options.raw { options.transform.format = format }  // imgproxy: raw ignores the extension
        try Self.validate(source: source)
    }

    /// The source must be an absolute http or https URL with a host, `local:///path` (served under the server's
    /// `--local-root`), or `s3://bucket/key` (allowed or refused by the server's `--allow-s3`).
    static func validate(source: String) throws(ParseError) {
        guard !source.isEmpty else { throw ParseError("empty source URL") }
        if source.hasPrefix("local:///") { return }
        if DWURLBytes.simpleHTTPAuthority(source) != nil { return }  // http(s) with a host: the usual source
        guard let components = URLComponents(string: source) ?? URLComponents(string: Self.escapeForParsing(source)),
              let scheme = components.scheme?.lowercased() else {
            throw ParseError("source is not a URL")
        }
        if scheme == "s3" {
            guard let location = DWS3Location(source), !location.key.isEmpty else { throw ParseError("source is not s3://bucket/key") }
            return
        }
        guard scheme == "http" || scheme == "https" else { throw ParseError("source scheme '\(scheme)' is not http or https") }
        guard let host = components.host, !host.isEmpty else { throw ParseError("source URL has no host") }
    }

    /// The lower-cased host of a validated source URL (brackets of an IPv6 literal removed).
    public var sourceHost: String {
        if let simple = DWURLBytes.simpleHTTPAuthority(source) { return simple.host.lowercased() }
        let components = URLComponents(string: source) ?? URLComponents(string: Self.escapeForParsing(source))
        return (components?.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    private static func escapeForParsing(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(CharacterSet(charactersIn: "#%"))) ?? text
    }

    /// The largest width or height a URL may ask for.
    static let maxDimension = 16384

    /// An output format by the names imgproxy URLs use (`jpg` and `jpeg` alike): every format imgproxy saves that
    /// we read back (libvips' savers, and BMP and ICO, written as imgproxy writes them); nil for anything else.
    static func format(named name: Substring) -> DWImageFormat? {
        DWImageFormat(name: name).flatMap { $0 == .unknown ? nil : $0 }
    }

    /// base64url with or without padding (standard-alphabet characters are refused, as imgproxy does).
    static func base64URLDecode(_ text: Substring) -> Data? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=") })
        else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard = standard.replacingOccurrences(of: "=", with: "")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }

    /// base64url without padding.
    static func base64URLEncode<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
