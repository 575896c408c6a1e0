// ServeImgproxyOptions: `dwfetch serve`'s imgproxy-compatibility flags (declared here with ServeOptions, so every
// dwfetch executable parses them; dwfetch-serve maps them in ServeConfiguration+Imgproxy.swift).
import ArgumentParser
import Foundation

/// `--preset`, `--default-options`, `--only-presets`, `--format-quality`, `--watermark[-data]`, `--local-root`,
/// `--fallback-*`, `--base-url`, `--url-replacement`, `--allowed-source`, `--enable-client-hints`, the encoder knobs
/// (`--jpeg-progressive`, `--png-*`, `--webp-effort`, `--avif-speed`, `--jxl-effort`), `--preferred-formats`,
/// `--auto-*`, `--enforce-*`, `--allow-security-options`, `--always-rasterize-svg`, `--[no-]sanitize-svg`. Parsed on
/// the main thread.
package struct ServeImgproxyOptions: ParsableArguments {
    /// Every flag at its default.
    package init() {}

    @Option(
        name: .customLong("preset"),
        help: ArgumentHelp(
            "A named option set, NAME=OPT/OPT (repeatable); 'default' applies to every request.",
            valueName: "NAME=OPTIONS"))
    package var presets: [String] = []
    @Option(
        name: .customLong("default-options"),
        help: ArgumentHelp(
            "Options every URL starts from, OPT/OPT (repeatable), before the 'default' preset.", valueName: "OPTIONS"))
    package var defaultOptions: [String] = []
    @Option(
        name: .customLong("allowed-processing-option"),
        help: ArgumentHelp(
            "An option name URLs may use, as written (repeatable; none given: all); others are 404.", valueName: "NAME")
    )
    package var allowedProcessingOptions: [String] = []
    @Flag(name: .customLong("only-presets"), help: "URLs name only presets (pr1:pr2) in place of options.")
    package var onlyPresets = false
    @Option(
        name: .customLong("format-quality"),
        help: ArgumentHelp(
            "Default quality per format, e.g. webp=79,avif=63 (imgproxy's defaults already).", valueName: "FMT=Q,..."))
    package var formatQuality: String?
    @Option(
        name: .customLong("quality"),
        help: ArgumentHelp(
            "Quality of the formats --format-quality and the built-in defaults leave out (jpeg, tiff…), 1-100.",
            valueName: "Q"))
    package var quality: Int?
    @Option(help: ArgumentHelp("The image wm: draws.", valueName: "FILE")) package var watermark: String?
    @Option(
        name: .customLong("watermark-data"),
        help: ArgumentHelp(
            "The image wm: draws, base64-encoded (over --watermark).", valueName: "BASE64"))
    package var watermarkData: String?
    @Option(
        name: .customLong("watermark-opacity"),
        help: ArgumentHelp(
            "Multiplies every wm: opacity, above 0 up to 1.", valueName: "X"))
    package var watermarkOpacity: Double = 1
    @Option(
        name: .customLong("local-root"),
        help: ArgumentHelp(
            "Serve local:///path sources from under DIR (nothing outside it).", valueName: "DIR"))
    package var localRoot: String?
    @Option(
        name: .customLong("fallback-image"),
        help: ArgumentHelp(
            "Served (processed like the source) when a source cannot be had.", valueName: "FILE"))
    package var fallbackImage: String?
    @Option(
        name: .customLong("fallback-image-data"),
        help: ArgumentHelp(
            "The fallback image, base64-encoded (over --fallback-image).", valueName: "BASE64"))
    package var fallbackImageData: String?
    @Option(
        name: .customLong("fallback-status"), help: ArgumentHelp("Status of the fallback image.", valueName: "CODE"))
    package var fallbackStatus = 200
    @Option(
        name: .customLong("fallback-max-age"),
        help: ArgumentHelp(
            "Cache-Control max-age of the fallback image (default: 60).", valueName: "SEC"))
    package var fallbackMaxAge: Int?
    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "Put in front of every source that does not start with it (after --url-replacement).", valueName: "URL"))
    package var baseURL: String?
    @Option(
        name: .customLong("url-replacement"),
        help: ArgumentHelp(
            "Replace a source's matching start, e.g. 'mys3://*/=s3://${1}-bucket/' (repeatable, in order; * is any run "
                + "of characters but /, $1 what it matched).", valueName: "PATTERN=REPLACEMENT"))
    package var urlReplacements: [String] = []
    @Option(
        name: .customLong("allowed-source"),
        help: ArgumentHelp(
            "Serve only sources starting with one of these (repeatable; * is any run of characters but /); 404 "
                + "otherwise.",
            valueName: "PREFIX"))
    package var allowedSources: [String] = []
    @Flag(
        name: .customLong("enable-client-hints"),
        help: ArgumentHelp(
            "Sec-CH-DPR/DPR and Sec-CH-Width/Width headers are default dpr and width options (the URL's win); Vary on "
                + "them."
        ))
    package var enableClientHints = false
    @Option(
        name: .customLong("preferred-formats"),
        help: ArgumentHelp(
            "Output formats of a URL that names none: the source's if listed, else the first that fits (alpha, "
                + "animation).",
            valueName: "LIST"))
    package var preferredFormats = "jpeg,png,gif"
    @Flag(
        name: .customLong("auto-webp"),
        help: "WebP when Accept allows it and the URL names no format (IMGPROXY_AUTO_WEBP).")
    package var autoWebP = false
    @Flag(
        name: .customLong("auto-avif"),
        help: "AVIF for a still result when Accept allows it and the URL names no format.")
    package var autoAVIF = false
    @Flag(
        name: .customLong("auto-jxl"),
        help: "JPEG XL for a still result when Accept allows it and the URL names no format.")
    package var autoJXL = false
    @Flag(
        name: .customLong("enforce-webp"),
        help: "WebP when Accept allows it, even over the URL's format (IMGPROXY_ENFORCE_WEBP).")
    package var enforceWebP = false
    @Flag(
        name: .customLong("enforce-avif"),
        help: "AVIF for a still result when Accept allows it, even over the URL's format.")
    package var enforceAVIF = false
    @Flag(
        name: .customLong("enforce-jxl"),
        help: "JPEG XL for a still result when Accept allows it, even over the URL's format.")
    package var enforceJXL = false
    @Flag(name: .customLong("jpeg-progressive"), help: "Write JPEG progressive.") package var jpegProgressive = false
    @Flag(name: .customLong("png-interlaced"), help: "Write PNG Adam7-interlaced.") package var pngInterlaced = false
    @Flag(name: .customLong("png-quantize"), help: "Write PNG with a palette (--png-quantization-colors).")
    package var pngQuantize = false
    @Option(
        name: .customLong("png-quantization-colors"),
        help: ArgumentHelp(
            "Colours of a --png-quantize palette, 2-256 (as a bit depth: over 16 is 8 bits, over 4 is 4, over 2 is 2).",
            valueName: "N"))
    package var pngQuantizationColors = 256
    @Option(name: .customLong("webp-effort"), help: ArgumentHelp("WebP encoder effort, 1-6.", valueName: "N"))
    package var webpEffort = 4
    @Option(
        name: .customLong("avif-speed"),
        help: ArgumentHelp(
            "AVIF encoder speed, 0 (slowest, smallest) to 9 (fastest; imgproxy's default is 8).", valueName: "N"))
    package var avifSpeed = 9
    @Option(name: .customLong("jxl-effort"), help: ArgumentHelp("JPEG XL encoder effort, 1-9.", valueName: "N"))
    package var jxlEffort = 4
    @Flag(
        name: .customLong("allow-security-options"),
        help: ArgumentHelp(
            "URLs may set msr, msfs, maf, mafr, mrd (IMGPROXY_ALLOW_SECURITY_OPTIONS); off, they are 403."))
    package var allowSecurityOptions = false
    @Flag(name: .customLong("always-rasterize-svg"), help: "Rasterise SVG sources even when the URL names no format.")
    package var alwaysRasterizeSVG = false
    @Flag(
        name: .customLong("sanitize-svg"), inversion: .prefixedNo,
        help: "Strip scripts, event handlers and unsafe links from SVG served as SVG.")
    package var sanitizeSVG = true

    /// Checks that need no server types (presets and qualities are checked where they are parsed, in dwfetch-serve).
    package func validate() throws {
        guard (100...599).contains(fallbackStatus) else { throw ValidationError("--fallback-status must be 100-599") }
        if let fallbackMaxAge, fallbackMaxAge < 0 { throw ValidationError("--fallback-max-age must be 0 or more") }
        guard (2...256).contains(pngQuantizationColors) else {
            throw ValidationError("--png-quantization-colors must be 2-256")
        }
        guard (1...6).contains(webpEffort), (0...9).contains(avifSpeed), (1...9).contains(jxlEffort) else {
            throw ValidationError("--webp-effort is 1-6, --avif-speed 0-9, --jxl-effort 1-9")
        }
        for rule in urlReplacements where !rule.contains("=") {
            throw ValidationError("--url-replacement expects PATTERN=REPLACEMENT, got \"\(rule)\"")
        }
    }
}
