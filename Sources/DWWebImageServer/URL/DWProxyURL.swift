// DWProxyURL: imgproxy's URL format — /{signature}/{options}/{base64url source}[.ext] or .../plain/{source}[@ext].
import DWWebImage
import Foundation

/// One parsed image URL. Parsing never fetches anything; every failure is a 400 (``DWProxyURL/ParseError``).
///
/// Accepted, as imgproxy accepts them (so its client libraries work unchanged):
/// ```
/// /{signature}/{option}/{option}/.../{base64url(source)}[.{ext}]      (the encoded part may be split by "/")
/// /{signature}/{option}/.../plain/{percent-encoded source}[@{ext}]
/// ```
/// Options are `name:arg:arg…`: `rs`/`resize:{fit|fill|force}:{w}:{h}:{enlarge}`, `s`/`size:{w}:{h}:{enlarge}`,
/// `rt`/`resizing_type:{mode}`, `w`/`width:{w}`, `h`/`height:{h}`, `el`/`enlarge:{1|0}`, `q`/`quality:{1-100}`,
/// `f`/`format`/`ext:{jpeg|png|webp|avif|gif}`, `bl`/`blur:{sigma}`, `g`/`gravity:ce`.
public struct DWProxyURL: Sendable, Equatable {
    /// The signature segment as given (base64url, or anything when no key is set).
    public var signature: String
    /// The part the signature covers: everything after the signature segment, starting with "/".
    public var signedPath: String
    /// The processing options.
    public var options: DWTransformOptions
    /// The source URL, decoded.
    public var source: String

    /// Why a URL was refused (always a 400).
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// One line saying what is wrong.
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Splits a request target into its signature segment and the path the signature covers (from the "/" after
    /// it), so the signature can be checked before anything else is parsed.
    public static func split(target: String) throws(ParseError) -> (signature: String, signedPath: String) {
        guard target.hasPrefix("/") else { throw ParseError("path must start with /") }
        let afterSlash = target.dropFirst()
        guard let end = afterSlash.firstIndex(of: "/") else { throw ParseError("no options or source after the signature") }
        return (String(afterSlash[..<end]), String(afterSlash[end...]))
    }

    /// Parses a request target (path and query as received, percent-encoding untouched).
    public init(target: String) throws(ParseError) {
        (signature, signedPath) = try Self.split(target: target)
        options = DWTransformOptions()
        source = ""

        var rest = signedPath.dropFirst()[...]
        // Options: leading segments that hold a ":" (a base64url source never does; "plain" ends them).
        while let slash = rest.firstIndex(of: "/") {
            let segment = rest[..<slash]
            if segment == "plain" || !segment.contains(":") { break }
            try Self.apply(option: segment, to: &options)
            rest = rest[rest.index(after: slash)...]
        }
        if rest.hasPrefix("plain/") {
            var plain = rest.dropFirst("plain/".count)
            // "@ext" only when what follows the last "@" names a format (a source may hold "@" in its userinfo).
            if let at = plain.lastIndex(of: "@"), let format = Self.format(named: plain[plain.index(after: at)...]) {
                options.format = format
                plain = plain[..<at]
            }
            guard let decoded = String(plain).removingPercentEncoding else {
                throw ParseError("plain source is not valid percent-encoding")
            }
            source = decoded
        } else {
            if rest.contains("?") { throw ParseError("unexpected query in an encoded source") }
            var encoded = rest.filter { $0 != "/" }[...]
            if let dot = encoded.lastIndex(of: ".") {
                let ext = encoded[encoded.index(after: dot)...]
                guard let format = Self.format(named: ext) else { throw ParseError("unknown extension '\(ext)'") }
                options.format = format
                encoded = encoded[..<dot]
            }
            guard let data = Self.base64URLDecode(encoded), let text = String(data: data, encoding: .utf8) else {
                throw ParseError("source is not valid base64url")
            }
            source = text
        }
        try Self.validate(source: source)
    }

    /// The source must be an absolute http or https URL with a host, or `s3://bucket/key` (allowed or refused by
    /// the server's `--allow-s3`).
    static func validate(source: String) throws(ParseError) {
        guard !source.isEmpty else { throw ParseError("empty source URL") }
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
        let components = URLComponents(string: source) ?? URLComponents(string: Self.escapeForParsing(source))
        return (components?.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    private static func escapeForParsing(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(CharacterSet(charactersIn: "#%"))) ?? text
    }

    // MARK: - Options

    private static func apply(option segment: Substring, to options: inout DWTransformOptions) throws(ParseError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        let name = parts[0], args = Array(parts.dropFirst())
        switch name {
        case "rs", "resize":
            try expect(args, 0...5, segment)
            if let mode = args.first, !mode.isEmpty { options.mode = try resizeMode(mode) }
            if args.count > 1, !args[1].isEmpty { options.width = try dimension(args[1], segment) }
            if args.count > 2, !args[2].isEmpty { options.height = try dimension(args[2], segment) }
            if args.count > 3, !args[3].isEmpty { options.enlarge = try bool(args[3], segment) }
        case "s", "size":
            try expect(args, 0...4, segment)
            if let first = args.first, !first.isEmpty { options.width = try dimension(first, segment) }
            if args.count > 1, !args[1].isEmpty { options.height = try dimension(args[1], segment) }
            if args.count > 2, !args[2].isEmpty { options.enlarge = try bool(args[2], segment) }
        case "rt", "resizing_type":
            try expect(args, 1...1, segment)
            options.mode = try resizeMode(args[0])
        case "w", "width":
            try expect(args, 1...1, segment)
            options.width = try dimension(args[0], segment)
        case "h", "height":
            try expect(args, 1...1, segment)
            options.height = try dimension(args[0], segment)
        case "el", "enlarge":
            try expect(args, 1...1, segment)
            options.enlarge = try bool(args[0], segment)
        case "q", "quality":
            try expect(args, 1...1, segment)
            guard let q = Int(args[0]), (0...100).contains(q) else { throw ParseError("quality must be 0-100: \(segment)") }
            options.quality = q == 0 ? nil : q  // imgproxy: 0 = the default
        case "f", "format", "ext":
            try expect(args, 1...1, segment)
            guard let format = Self.format(named: args[0]) else { throw ParseError("unknown format: \(segment)") }
            options.format = format
        case "bl", "blur":
            try expect(args, 1...1, segment)
            guard let sigma = Double(args[0]), sigma.isFinite, (0...100).contains(sigma) else {
                throw ParseError("blur sigma must be 0-100: \(segment)")
            }
            options.blur = sigma == 0 ? nil : sigma
        case "g", "gravity":
            try expect(args, 1...3, segment)
            guard args[0] == "ce" else { throw ParseError("only gravity ce is supported: \(segment)") }
        default:
            throw ParseError("unknown option '\(name)'")
        }
    }

    private static func expect(_ args: [Substring], _ range: ClosedRange<Int>, _ segment: Substring) throws(ParseError) {
        guard range.contains(args.count) else { throw ParseError("wrong number of arguments: \(segment)") }
    }

    private static func resizeMode(_ text: Substring) throws(ParseError) -> DWTransformOptions.ResizeMode {
        guard let mode = DWTransformOptions.ResizeMode(rawValue: String(text)) else {
            throw ParseError("resizing type must be fit, fill or force: \(text)")
        }
        return mode
    }

    /// The largest width or height a URL may ask for.
    static let maxDimension = 16384

    private static func dimension(_ text: Substring, _ segment: Substring) throws(ParseError) -> Int {
        guard let value = Int(text), (0...maxDimension).contains(value) else {
            throw ParseError("size must be 0-\(maxDimension): \(segment)")
        }
        return value
    }

    private static func bool(_ text: Substring, _ segment: Substring) throws(ParseError) -> Bool {
        switch text {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw ParseError("expected 1 or 0: \(segment)")
        }
    }

    /// A format by the names URLs use (`jpg` and `jpeg` alike); nil for anything else.
    static func format(named name: Substring) -> DWImageFormat? { DWImageFormat(conversionTargetNamed: name) }

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
