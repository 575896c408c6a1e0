// DWPreferredFormats: imgproxy's output-format choice for a URL that names no format (IMGPROXY_PREFERRED_FORMATS).
import DWWebImage

/// The formats a result may take when its request names none, in order of preference — imgproxy's
/// `IMGPROXY_PREFERRED_FORMATS` (default `jpeg,png,gif`) and its `determineOutputFormat`: a format negotiated from
/// `Accept` wins (JPEG XL and AVIF only for a still result), then the source's own format when it is preferred, else
/// the first preferred format that keeps what the result needs (alpha; every frame of an animation), else the first
/// one. Only `dwfetch serve` uses it: the library and `dwfetch` keep the source's format. A plain value; its methods
/// run on the caller's thread.
public struct DWPreferredFormats: Sendable, Hashable {
    /// The formats, in order of preference (never empty).
    public let formats: [DWImageFormat]

    /// imgproxy's default: JPEG, PNG, GIF.
    public static let imgproxyDefault = DWPreferredFormats(checked: [.jpeg, .png, .gif])

    private init(checked formats: [DWImageFormat]) { self.formats = formats }

    /// `jpeg,png,gif` → the list (names as in `f:`; duplicates dropped); nil when empty or a name is not a format
    /// the server can write.
    public init?(parsing text: String) {
        var formats: [DWImageFormat] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let format = DWImageFormat(name: trimmed), format != .unknown, format != .svg else { return nil }
            if !formats.contains(format) { formats.append(format) }
        }
        guard !formats.isEmpty else { return nil }
        self.formats = formats
    }

    /// `jpeg,png,gif`: the list as the flag takes it (and as cache keys name it).
    public var description: String { formats.map(\.rawValue).joined(separator: ",") }

    /// The output format for `image`: the first of `negotiated` (the `Accept` bucket, in imgproxy's order JPEG XL,
    /// AVIF, WebP) that fits (``negotiated(_:for:)``), as imgproxy's `IMGPROXY_AUTO_*`; then the source's format if
    /// preferred; else the first preferred format that supports alpha when the result has it (the source's alpha
    /// channel, or `addsAlpha`: padding or extend; never when `flattens`: a background is given) and animation when
    /// the result is animated; else the first one. Reads the source's header (alpha) only when that decides; call
    /// inside ``DWImageProcessing/process(_:with:limits:)`` for the server's limits.
    public func outputFormat(
        for image: DWImage, negotiated: [DWImageFormat],
        addsAlpha: Bool, flattens: Bool
    ) throws(DWWebImageError) -> DWImageFormat {
        if let format = Self.negotiated(negotiated, for: image) { return format }
        let animated = Self.isAnimatedResult(image)
        if formats.contains(image.format) { return image.format }
        var alpha: Bool?
        for format in formats {
            if animated && !format.savesAnimation { continue }
            if !format.isPreferredForAlpha && !flattens {
                if addsAlpha { continue }
                if alpha == nil { alpha = try Self.hasAlpha(image) }
                if alpha == true { continue }
            }
            return format
        }
        return formats[0]
    }

    /// ``outputFormat(for:negotiated:addsAlpha:flattens:)`` with at most one negotiated format.
    public func outputFormat(
        for image: DWImage, negotiated: DWImageFormat?,
        addsAlpha: Bool, flattens: Bool
    ) throws(DWWebImageError) -> DWImageFormat {
        try outputFormat(
            for: image, negotiated: negotiated.map { [$0] } ?? [], addsAlpha: addsAlpha, flattens: flattens)
    }

    /// The first of `candidates` (formats the request's `Accept` chose, in imgproxy's order) that `image`'s result
    /// may take: an animated result only a format that keeps the frames (WebP; AVIF and JPEG XL are still only here,
    /// imgproxy's `PreferJxl && !animated`…); nil when none fits.
    public static func negotiated(_ candidates: [DWImageFormat], for image: DWImage) -> DWImageFormat? {
        let animated = isAnimatedResult(image)
        return candidates.first { !animated || $0.savesAnimation }
    }

    /// Whether the result of `image` is animated: an animated GIF or WebP source when the processing limits keep
    /// more than one frame (`--max-animation-frames`, a URL's `maf`), as imgproxy loads every page only then.
    static func isAnimatedResult(_ image: DWImage) -> Bool {
        image.frameCount > 1 && [.gif, .webp].contains(image.format)
            && DWImageProcessing.effectiveLimits.maxProcessedFrames > 1
    }

    /// Whether the source has an alpha channel: from the header where libvips reads the format, else its first frame.
    static func hasAlpha(_ image: DWImage) throws(DWWebImageError) -> Bool {
        if image.format == .svg { return true }  // librsvg renders RGBA (imgproxy: svgload gives 4 bands)
        if Decoder.vipsLoader(for: image.format) != nil {
            return try Decoder.open(image.data, format: image.format).hasAlpha
        }
        return try Decoder.decode(image).frames.first?.hasAlpha ?? false
    }
}
