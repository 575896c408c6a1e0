// DWThumborDialect: which dialect a request path is in — thumbor's or imgproxy's — by a rule without ambiguity.
import DWImageTransform
import Foundation

/// Tells thumbor paths from imgproxy paths (docs/thumbor.md, "How a path is classified"). With the thumbor dialect
/// off (no `--thumbor-key`, no `--thumbor-allow-unsafe`) every path is imgproxy's. With it on, a path is thumbor's
/// when its first segment
/// - has a thumbor signature's shape: 28 characters of URL-safe base64 ending in `=` (imgproxy's are 43, unpadded);
/// - or is `unsafe`, and either imgproxy signing is on (then `unsafe` can never be an imgproxy signature) or what
///   follows is not imgproxy's: not `plain/…`, not a segment naming one of imgproxy's options (`w:…`, `rs:…`; a
///   `host:port` is no option; thumbor's own `trim:…`, `filters:…` and `AxB:CxD` excepted), and not a base64url
///   source that decodes to a URL with a scheme.
///
/// Every other path is imgproxy's. Pure functions of the path.
enum DWThumborDialect {
    /// Whether `target` (path and query as received) is a thumbor path, under `settings` and with imgproxy signing
    /// on or off.
    static func isThumbor(_ target: String, settings: DWThumborSettings, imgproxySigned: Bool) -> Bool {
        guard settings.isEnabled else { return false }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let segments = path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard segments.count == 3, segments[0].isEmpty else { return false }
        if DWThumborSigner.isSignatureShaped(segments[1]) { return true }
        guard segments[1] == "unsafe" else { return false }
        return imgproxySigned || !looksLikeImgproxy(segments[2])
    }

    /// Whether what follows `/unsafe/` is an imgproxy path: `plain/…`, a leading option segment, or an encoded source.
    static func looksLikeImgproxy(_ rest: Substring) -> Bool {
        let first = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if first == "plain" { return true }
        if first.contains(":") {
            let thumborOwn = first.hasPrefix("trim") || first.hasPrefix("filters:") || isCrop(first)
            return !thumborOwn && isImgproxyOption(first)
        }
        var encoded = Substring(rest.filter { $0 != "/" })
        if let dot = encoded.lastIndex(of: ".") { encoded = encoded[..<dot] }
        guard let data = DWProxyURL.base64URLDecode(encoded), let text = String(data: data, encoding: .utf8) else {
            return false
        }
        return text.contains("://")
    }

    /// Whether `segment` names one of imgproxy's options (`w:10`, `rs:fit:…`), not a `host:port` image part: the
    /// option parser knows the name (its arguments may still be wrong: that is imgproxy's 400 to give).
    private static func isImgproxyOption(_ segment: Substring) -> Bool {
        var scratch = DWImgproxyOptions()
        do throws(DWProxyURL.ParseError) {
            try DWOptionParser(presets: DWPresets(), now: 0).apply(segment: segment, to: &scratch)
            return true
        } catch {
            return !error.description.hasPrefix("unknown option ")
        }
    }

    private static func isCrop(_ segment: Substring) -> Bool {
        let numbers = segment.split(separator: ":", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "x", omittingEmptySubsequences: false) }
        return numbers.count == 4 && numbers.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }
    }
}
