// DWThumborURL: a thumbor path turned into the server's parsed request (DWProxyURL), plus its thumbor-only facts.
import DWImageTransform
import DWWebImage

/// What a thumbor URL asks that `DWProxyURL` has no place for. A plain value.
struct DWThumborRequest: Sendable, Equatable {
    /// `max_age(N)`: the answer's `Cache-Control` max-age (0: no `Cache-Control`); nil: the server's.
    var maxAge: Int?
    /// `meta/`: the answer is thumbor's JSON about the image, not the image.
    var meta: DWThumborMeta?
    /// `watermark(…)`: the watermark image's URL (its host allowed by `--watermark-allow-host`), fetched before the
    /// render.
    var watermark: String?

    /// Nothing thumbor-only.
    init() {}
}

/// A thumbor path parsed into the same ``DWProxyURL`` an imgproxy URL becomes (source and ``DWTransform``), so the
/// cache, result storage, limits and every protection treat both dialects alike. Parsing never fetches anything;
/// failures are ``DWProxyURL/ParseError`` (400, or 403 for a signature or `unsafe` refused).
struct DWThumborURL: Sendable {
    typealias ParseError = DWProxyURL.ParseError

    let url: DWProxyURL
    let request: DWThumborRequest

    /// Parses `target` (path and query as received; thumbor ignores the query) whose first segment is already
    /// classified as thumbor's, checking its signature against `settings` first.
    init(target: String, settings: DWThumborSettings) throws(ParseError) {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let (signature, signedPath) = try DWProxyURL.split(target: String(path))
        let rest = signedPath.dropFirst()  // thumbor signs the path without its leading "/"
        if signature == "unsafe" {
            guard settings.allowUnsafe else {
                throw ParseError("unsafe thumbor URLs are not allowed (--thumbor-allow-unsafe)", status: 403)
            }
        } else if !settings.signers.contains(where: { $0.isValid(signature: signature, for: String(rest)) }) {
            throw ParseError("invalid thumbor signature", status: 403)
        }
        guard let parts = DWThumborPath(rest) else { throw ParseError("thumbor URL has no image") }
        var transform = try Self.transform(parts, settings: settings)
        var request = DWThumborRequest()
        let filters = try DWThumborFilter.list(parts.filters)
        try Self.apply(filters, parts: parts, to: &transform, request: &request)
        if let watermark = request.watermark { try Self.checkWatermark(watermark, settings: settings) }
        if parts.meta {
            let autoJPG = transform.pngToJPEG && transform.format == nil  // thumbor asks only without format()
            request.meta = DWThumborMeta(path: parts, stretch: filters.contains(.stretch), autoJPG: autoJPG)
        }
        let source = try Self.source(parts.image)
        var options = DWImgproxyOptions()
        options.transform = transform
        self.url = DWProxyURL(signature: signature, signedPath: signedPath, options: options, source: source)
        self.request = request
    }

    /// A watermark URL is http(s), without credentials, and its host is one of `--watermark-allow-host` (none: the
    /// filter is refused): a 400 naming the host otherwise. Its address is checked later, by the fetch's SSRF guard.
    static func checkWatermark(_ url: String, settings: DWThumborSettings) throws(ParseError) {
        guard let authority = DWURLBytes.simpleHTTPAuthority(url), !authority.host.isEmpty, !authority.hasUserinfo
        else { throw ParseError("thumbor watermark URL must be http(s)://HOST/… without credentials") }
        let host = authority.host.lowercased()
        guard !settings.watermarkHosts.isEmpty, DWRedirectGuard.isAllowed(host, by: settings.watermarkHosts) else {
            throw ParseError("thumbor watermark host '\(host)' is not allowed (--watermark-allow-host)")
        }
    }

    /// The image part as thumbor's HTTP loader reads it: percent-decoded, `http://` put before it unless it starts
    /// with "http".
    static func source(_ image: String) throws(ParseError) -> String {
        guard let decoded = DWURLBytes.percentDecoded(Substring(image)) else {
            throw ParseError("thumbor image is not valid percent-encoding")
        }
        let source = decoded.hasPrefix("http") ? decoded : "http://" + decoded
        try DWProxyURL.validate(source: source)
        return source
    }

    /// The geometry (box, fit-in, crop, flips, alignment) and thumbor's defaults (no EXIF rotation, no metadata,
    /// the ICC profile kept, upscaling outside fit-in).
    static func transform(_ p: DWThumborPath, settings: DWThumborSettings) throws(ParseError) -> DWTransform {
        var t = DWTransform()
        t.autoRotate = settings.respectOrientation
        if settings.preserveEXIF { t.stripMetadata = false } else { t.keepCopyright = false }
        t.stripColorProfile = false
        if p.debug { throw ParseError("thumbor debug is not supported") }
        if let trim = p.trim {
            // thumbor's crop after a trim is in the untrimmed image's coordinates, moved by the trimmed border.
            guard p.crop == nil else { throw ParseError("thumbor trim with a manual crop is not supported") }
            // thumbor reads `trim:N` as the corner "N", which is not top-left: the bottom-right pixel's colour.
            let corner: DWTrim.ThumborCorner = trim.corner == "top-left" ? .topLeft : .bottomRight
            t.trim = DWTrim(thumbor: corner, tolerance: Double(min(trim.tolerance, 511)))  // 510: the widest distance
        }
        (t.width, t.height) = try size(p.width, p.height)
        t.adaptiveBox = p.adaptive
        if p.full {
            (t.resizingType, t.coverUncropped, t.enlarge) = (.fill, true, true)  // covers the box, scaled up too
        } else if p.fitIn {
            t.resizingType = .fit
        } else {
            t.resizingType = .fill
            t.enlarge = true  // thumbor scales up outside fit-in unless no_upscale
            t.gravity = p.smart ? DWGravity(.smart) : gravity(p.halign, p.valign, mirrored: p)
        }
        (t.flipHorizontal, t.flipVertical) = (p.flipHorizontal, p.flipVertical)
        if let c = p.crop, c.right > c.left, c.bottom > c.top {  // thumbor ignores an empty crop
            t.cropWidth = Double(c.right - c.left)
            t.cropHeight = Double(c.bottom - c.top)
            // The offsets from the far edges where the flips come first (imgproxy flips before it crops; thumbor
            // crops, then flips): the same pixels.
            t.cropGravity = DWGravity(cropCorner(p), x: Double(c.left), y: Double(c.top))
        }
        return t
    }

    /// The box: `orig` is the source's side (served where the other side is 0 or `orig` too: then no resize).
    private static func size(_ width: DWThumborPath.Side, _ height: DWThumborPath.Side) throws(ParseError) -> (Int, Int)
    {
        switch (width, height) {
        case (.pixels(let w), .pixels(let h)):
            guard w <= 65535, h <= 65535 else { throw ParseError("thumbor size \(w)x\(h) is too large") }
            return (w, h)
        case (.orig, .orig), (.orig, .pixels(0)), (.pixels(0), .orig): return (0, 0)
        default: throw ParseError("thumbor 'orig' beside a size in pixels is not supported")
        }
    }

    /// thumbor's alignment as a focus point: thumbor centres its crop on the point (0, ½ or 1 of each side) and
    /// keeps the crop inside the image, which imgproxy's focus-point gravity does with the same rounding (its centre
    /// gravity rounds the other way by a pixel). Mirrored on the axes the path flips: imgproxy flips before it
    /// crops, thumbor after.
    static func gravity(_ halign: String, _ valign: String, mirrored p: DWThumborPath) -> DWGravity {
        var x = ["left": 0.0, "right": 1.0][halign] ?? 0.5, y = ["top": 0.0, "bottom": 1.0][valign] ?? 0.5
        if p.flipHorizontal { x = 1 - x }
        if p.flipVertical { y = 1 - y }
        return DWGravity(.focusPoint, x: x, y: y)
    }

    /// The corner a manual crop's offsets are measured from: the top left, or the far edges the flips bring it to.
    static func cropCorner(_ p: DWThumborPath) -> DWGravity.Kind {
        switch (p.flipHorizontal, p.flipVertical) {
        case (false, false): .northWest
        case (true, false): .northEast
        case (false, true): .southWest
        case (true, true): .southEast
        }
    }
}

extension DWProxyURL {
    /// A parsed URL from its parts (the thumbor dialect's).
    init(signature: String, signedPath: String, options: DWImgproxyOptions, source: String) {
        self.signature = signature
        self.signedPath = signedPath
        self.options = options
        self.source = source
    }
}
