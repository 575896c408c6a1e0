// DWFormatChoice: a request whose output format depends on the source — the URL names none (imgproxy's preferred
// formats, and the Accept bucket), or an enforced JPEG XL or AVIF may replace the one it names — picks the format per
// source, then runs the request's chain for that format.
import DWWebImage
import DWWebImageProcessing

/// The chain of a request whose format is picked per source. Without `explicit`, from
/// ``DWPreferredFormats/outputFormat(for:negotiated:addsAlpha:flattens:)`` — `chain(nil)` when the source's own
/// format is kept (an APNG excepted), so a kept source gets exactly the chain (and bytes) it got before. With
/// `explicit` (the URL's format), the first enforced format that fits the source (imgproxy's `IMGPROXY_ENFORCE_*`:
/// JPEG XL and AVIF only for a still result), else `explicit`. Its identifier names the preferred list, the `Accept`
/// bucket, `explicit` and the chain without a format: the format is a function of those and the source.
/// `process(_:)` runs on the pipeline's processing queue, inside the ``DWServedProcessor`` that wraps it (so under
/// the server's limits, which `--max-animation-frames` is part of).
struct DWFormatChoice: DWImageProcessor {
    let preferred: DWPreferredFormats
    /// The `Accept` bucket (``DWAcceptBucket``; empty without `--auto-*`/`--enforce-*`).
    let bucket: DWAcceptBucket
    /// The URL's format, when it names one.
    let explicit: DWImageFormat?
    /// Padding or extend: the result gets transparent pixels; a background: it has none (imgproxy's `expectAlpha`).
    let addsAlpha: Bool, flattens: Bool
    /// The served chain for an output format (nil: the source's own).
    let chain: @Sendable (DWImageFormat?) -> [any DWImageProcessor]
    /// Made once, here: the pipeline asks for it several times a request (cache keys, coalescing).
    let identifier: String

    init(preferred: DWPreferredFormats, bucket: DWAcceptBucket, explicit: DWImageFormat?, addsAlpha: Bool,
         flattens: Bool, chain: @escaping @Sendable (DWImageFormat?) -> [any DWImageProcessor]) {
        (self.preferred, self.bucket, self.explicit, self.addsAlpha, self.flattens, self.chain)
            = (preferred, bucket, explicit, addsAlpha, flattens, chain)
        let steps = chain(nil).map(\.identifier).joined(separator: ";")
        if let explicit {
            identifier = "enforced(\(bucket.enforced.map(\.rawValue).joined(separator: ","));else=\(explicit.rawValue);\(steps))"
        } else {
            identifier = "preferred(\(preferred.description);accept=\(bucket.description);\(steps))"
        }
    }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        if let explicit {
            let format = DWPreferredFormats.negotiated(bucket.enforced, for: image) ?? explicit
            return try DWImageProcessors.apply(chain(format), to: image)
        }
        let format = try preferred.outputFormat(for: image, negotiated: bucket.preferred, addsAlpha: addsAlpha,
                                                flattens: flattens)
        // An APNG kept as PNG is named: without a format the engine would make an animated WebP of it, where
        // imgproxy (which reads a PNG's first frame only) writes a PNG.
        let kept = format == image.format && !(image.format == .png && image.isAnimated)
        return try DWImageProcessors.apply(chain(kept ? nil : format), to: image)
    }
}
