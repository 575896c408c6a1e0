// The processor chain of one request, as this server runs it (timed, frame-checked, under its own limits).
import DWWebImage
import DWWebImageProcessing

extension DWImageServer {
    /// The URL's chain (its ``DWTransform`` through the one builder, blur clamped; without options the metadata
    /// strip, ``servedChain(_:outputFormat:)``), each processor wrapped by ``DWServedProcessor`` so it runs under this
    /// server's ``limits`` (with the URL's `maf`), is timed in `/metrics`, and the first checks the result limits
    /// from the header. `bucket` is what the request's `Accept` allows (``DWAcceptFormats/bucket(accept:)``). When the
    /// format does not depend on the source (the URL's, or an enforced WebP; always for `raw:1`) the chain is built
    /// for it; otherwise it is one ``DWFormatChoice`` that picks the format per source, as imgproxy: from the bucket
    /// and `--preferred-formats` when the URL names none, from the enforced formats (JPEG XL, AVIF: still results
    /// only) over the URL's.
    /// ``transformChain(for:bucket:)`` puts the SVG rules around it.
    func formatChain(for url: DWProxyURL, bucket: DWAcceptBucket) -> [any DWImageProcessor] {
        var clamped = url
        clamped.options.transform = DWResultLimits.clamped(url.options.transform)
        let maf = url.options.security.maxAnimationFrames
        var perRequest = self.limits
        if let maf { perRequest.maxProcessedFrames = maf }  // the URL's `maf` (--allow-security-options)
        let limits = perRequest
        let explicit = url.options.transform.format
        // The format when the source does not decide it: raw:1 (no conversion), the URL's, an enforced WebP.
        let fixed = explicit.flatMap { bucket.staticFormat(explicit: $0) }
        let precheck = resultCheck(clamped.options.transform, outputFormat: fixed, maxAnimationFrames: maf)
        if url.options.raw || fixed != nil {
            return DWServedProcessor.wrap(servedChain(clamped, outputFormat: url.options.raw ? explicit : fixed),
                                          maxFrames: configuration.maxFrames, limits: limits, metrics: metrics,
                                          precheck: precheck)
        }
        let (maxFrames, metrics, served) = (configuration.maxFrames, self.metrics, clamped)
        let steps = served.options.transform
        let choice = DWFormatChoice(preferred: configuration.imgproxy.preferredFormats, bucket: bucket, explicit: explicit,
                                    addsAlpha: steps.padding != DWPadding() || steps.extend != nil,
                                    flattens: steps.background != nil) { format in
            self.servedChain(served, outputFormat: format).map {
                DWServedProcessor(inner: $0, first: false, maxFrames: maxFrames, limits: limits, metrics: metrics,
                                  precheck: { _ in })
            }
        }
        return DWServedProcessor.wrap([choice], maxFrames: maxFrames, limits: limits, metrics: metrics, precheck: precheck)
    }
}
