// DWFormatChoice: a request whose URL names no format — the output format is picked per source (imgproxy's preferred
// formats), then the request's chain for that format runs.
import DWWebImage
import DWWebImageProcessing

/// The chain of a request that names no format: picks the output format from the source
/// (``DWPreferredFormats/outputFormat(for:negotiated:addsAlpha:flattens:)``), then runs `chain(format)` — nil when the
/// source's own format is kept (an APNG excepted), so a kept source gets exactly the chain (and bytes) it got before. Its identifier
/// names the preferred list, the `Accept` bucket and the chain without a format: the format is a function of those
/// and the source. `process(_:)` runs on the pipeline's processing queue, inside the ``DWServedProcessor`` that
/// wraps it (so under the server's limits, which `--max-animation-frames` is part of).
struct DWFormatChoice: DWImageProcessor {
    let preferred: DWPreferredFormats
    /// The `Accept` bucket (WebP or AVIF with `--auto-format`), nil without one.
    let negotiated: DWImageFormat?
    /// Padding or extend: the result gets transparent pixels; a background: it has none (imgproxy's `expectAlpha`).
    let addsAlpha: Bool, flattens: Bool
    /// The served chain for an output format (nil: the source's own).
    let chain: @Sendable (DWImageFormat?) -> [any DWImageProcessor]
    /// Made once, here: the pipeline asks for it several times a request (cache keys, coalescing).
    let identifier: String

    init(preferred: DWPreferredFormats, negotiated: DWImageFormat?, addsAlpha: Bool, flattens: Bool,
         chain: @escaping @Sendable (DWImageFormat?) -> [any DWImageProcessor]) {
        (self.preferred, self.negotiated, self.addsAlpha, self.flattens, self.chain)
            = (preferred, negotiated, addsAlpha, flattens, chain)
        let steps = chain(nil).map(\.identifier).joined(separator: ";")
        identifier = "preferred(\(preferred.description);accept=\(negotiated?.rawValue ?? "-");\(steps))"
    }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        let format = try preferred.outputFormat(for: image, negotiated: negotiated, addsAlpha: addsAlpha,
                                                flattens: flattens)
        // An APNG kept as PNG is named: without a format the engine would make an animated WebP of it, where
        // imgproxy (which reads a PNG's first frame only) writes a PNG.
        let kept = format == image.format && !(image.format == .png && image.isAnimated)
        return try DWImageProcessors.apply(chain(kept ? nil : format), to: image)
    }
}
