// DWImgproxySettings: the server's imgproxy-compatibility settings — presets, per-format qualities, watermark,
// local files, the fallback image and the preferred output formats.
import DWWebImage
import DWWebImageProcessing
import Foundation

/// What `dwfetch serve`'s imgproxy flags set (`--preset`, `--only-presets`, `--format-quality`, `--watermark`,
/// `--local-root`, `--fallback-image`, `--fallback-status`, `--fallback-max-age`, `--preferred-formats`, `--auto-*`,
/// `--enforce-*`, `--allow-security-options`, `--always-rasterize-svg`, `--[no-]sanitize-svg`). A plain value.
public struct DWImgproxySettings: Sendable {
    /// Named option sets, and whether URLs may name only them.
    public var presets = DWPresets()
    /// Per-format default qualities over the engine's (imgproxy's `IMGPROXY_FORMAT_QUALITY`).
    public var formatQuality: [DWImageFormat: Int] = [:]
    /// The quality of every format that neither ``formatQuality`` nor the encoder's own per-format default (WebP,
    /// AVIF, HEIC, JPEG XL) sets (`--quality`, imgproxy's `IMGPROXY_QUALITY`); nil: the encoder's default, 80.
    public var quality: Int?
    /// The image `wm:` draws; nil: `wm:` is accepted and draws nothing, as imgproxy without a watermark.
    public var watermark: DWImage?
    /// Multiplies the opacity `wm:` asks for (`--watermark-opacity`, imgproxy's `IMGPROXY_WATERMARK_OPACITY`), in
    /// (0, 1].
    public var watermarkOpacity = 1.0
    /// The directory `local:///path` sources are read under; nil: `local://` is refused (404).
    public var localRoot: URL?
    /// Served when the source cannot be had; nil: the error status.
    public var fallbackImage: DWImage?
    /// The status the fallback image is served with (default 200).
    public var fallbackStatus = 200
    /// `Cache-Control: max-age` of the fallback image (default 60 s: a CDN should not keep a placeholder served for
    /// a transient failure long after the origin is back); nil: the server's `max-age`.
    public var fallbackMaxAge: Int? = 60
    /// The output formats of a URL that names none (imgproxy's `IMGPROXY_PREFERRED_FORMATS`, default JPEG, PNG, GIF).
    public var preferredFormats = DWPreferredFormats.imgproxyDefault
    /// Formats the request's `Accept` may pick (`--auto-webp`, `--auto-avif`, `--auto-jxl`, `--enforce-*`).
    public var acceptFormats = DWAcceptFormats()
    /// An SVG source is rasterised even when the URL names no format (imgproxy's `IMGPROXY_ALWAYS_RASTERIZE_SVG`,
    /// default off: an SVG stays SVG unless `f:` asks for another format).
    public var alwaysRasterizeSVG = false
    /// imgproxy's URL replacements, base URL and allowed sources (`--url-replacement`, `--base-url`,
    /// `--allowed-source`), applied to every decoded source.
    public var sources = DWSourceRules()
    /// The request's `Sec-CH-DPR`/`DPR` and `Sec-CH-Width`/`Width` are default `dpr` and `width` options, and images
    /// say `Vary` on them (`--enable-client-hints`, imgproxy's `IMGPROXY_ENABLE_CLIENT_HINTS`; default off).
    public var clientHints = false
    /// How outputs are written beyond their quality (`--jpeg-progressive`, `--png-interlaced`, `--png-quantize`,
    /// `--png-quantization-colors`, `--webp-effort`, `--avif-speed`, `--jxl-effort`). Process-wide: the server sets
    /// ``DWImageProcessing/encoderSettings`` from it when it is made.
    public var encoder = DWEncoderSettings()
    /// An SVG served as SVG is sanitised (``DWSVGSanitizer``; imgproxy's `IMGPROXY_SANITIZE_SVG`, default on).
    public var sanitizeSVG = true

    /// No presets, no watermark, no local files, no fallback (whose max-age would be 60 s); imgproxy's preferred
    /// formats.
    public init() {}

    /// `webp=79,avif=63` → qualities; nil when malformed.
    public static func parseFormatQuality(_ text: String) -> [DWImageFormat: Int]? {
        var result: [DWImageFormat: Int] = [:]
        for item in text.split(separator: ",") {
            let pair = item.split(separator: "=")
            guard pair.count == 2,
                let format = DWProxyURL.format(named: pair[0].trimmingCharacters(in: .whitespaces)[...])
                    ?? (["heic", "heif"].contains(pair[0].lowercased()) ? .heic : nil),
                let q = Int(pair[1].trimmingCharacters(in: .whitespaces)), (1...100).contains(q)
            else { return nil }
            result[format] = q
        }
        return result
    }
}
