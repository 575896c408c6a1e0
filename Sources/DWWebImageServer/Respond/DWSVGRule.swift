// DWSVGRule: what imgproxy's processing handler does with an SVG source — kept as SVG (sanitised) when the URL names
// no format or SVG, rasterised when it names another (or always, with --always-rasterize-svg).
import DWWebImage
import DWWebImageProcessing

/// The SVG rules of imgproxy's handler around a request's chain. For an SVG source: served as SVG — through
/// ``DWSanitizeSVG`` unless `--no-sanitize-svg` — when the URL names no format or `svg` and either
/// `--always-rasterize-svg` is off or `skp:` lists `svg`; else a URL naming `svg` is refused (imgproxy: 422
/// "Resulting image format is not supported"); else rasterised by the chain (built without `skp:svg`, which then
/// does not apply, as imgproxy skips only when the source's format is the output's). For any other source: the
/// chain, and `f:svg` refused. `raw:1` never comes here (its bytes are served as they are, as imgproxy streams them).
/// `process(_:)` runs on the pipeline's processing queue.
struct DWSVGRule: DWImageProcessor {
    /// The format the URL names (`f:`, `.ext`, `@ext`), nil for none.
    let named: DWImageFormat?
    /// An SVG source is served as SVG (see the type's comment).
    let keepsSVG: Bool
    let sanitize: Bool
    /// The request's chain, and the one an SVG source is rasterised by (nil: the same).
    let chain: [any DWImageProcessor]
    let rasterChain: [any DWImageProcessor]?
    /// `--source-formats` (nil: every format): an SVG kept as SVG is checked here, as the chain that checks every
    /// other source does not run for it.
    var sourceFormats: Set<DWImageFormat>?

    /// `svg(<mode>;<the chain's identifiers joined by ";">)`, made once (the pipeline asks for it several times a
    /// request); the raster chain is a function of the same URL.
    let identifier: String

    init(named: DWImageFormat?, keepsSVG: Bool, sanitize: Bool, chain: [any DWImageProcessor],
         rasterChain: [any DWImageProcessor]?) {
        (self.named, self.keepsSVG, self.sanitize, self.chain, self.rasterChain) =
            (named, keepsSVG, sanitize, chain, rasterChain)
        let mode = keepsSVG ? (sanitize ? "sanitize" : "keep") : "raster"
        identifier = "svg(\(mode);\(chain.map(\.identifier).joined(separator: ";")))"
    }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        if image.format == .svg && keepsSVG {
            var allowed = DWProcessingLimits()
            allowed.sourceFormats = sourceFormats
            try allowed.checkSourceFormat(.svg)
            return sanitize ? try DWSanitizeSVG().process(image) : image
        }
        if named == .svg { throw DWWebImageError(.notAnImage, "resulting image format is not supported: svg") }
        return try DWImageProcessors.apply(image.format == .svg ? rasterChain ?? chain : chain, to: image)
    }
}

extension DWImageServer {
    /// The request's chain (``formatChain(for:bucket:)``) inside the SVG rules (``DWSVGRule``) when they change
    /// anything; `raw:1`, and a URL naming a raster format, as they are.
    /// Called on the request's task.
    func transformChain(for url: DWProxyURL, bucket: DWAcceptBucket = DWAcceptBucket()) -> [any DWImageProcessor] {
        let chain = formatChain(for: url, bucket: bucket)
        guard !url.options.raw else { return chain }
        let transform = url.options.transform, settings = configuration.imgproxy
        var raster: [any DWImageProcessor]?
        if transform.skipProcessing.contains(.svg) {
            var withoutSkip = url
            withoutSkip.options.transform.skipProcessing.remove(.svg)
            raster = formatChain(for: withoutSkip, bucket: bucket)
        }
        let keeps = (transform.format == nil || transform.format == .svg)
            && (transform.skipProcessing.contains(.svg) || !settings.alwaysRasterizeSVG)
        // Rasterising with the request's own chain is what the chain does anyway (and what dwfetch does with an SVG):
        // no rule, so the key stays the CLI's for the same steps.
        if !keeps && raster == nil && transform.format != .svg { return chain }
        var rule = DWSVGRule(named: transform.format, keepsSVG: keeps, sanitize: settings.sanitizeSVG, chain: chain,
                             rasterChain: raster)
        rule.sourceFormats = limits.sourceFormats
        return [rule]
    }
}
