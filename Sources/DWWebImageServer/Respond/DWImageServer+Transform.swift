// The processor chain of one request, as this server runs it (timed, frame-checked, under its own limits).
import DWWebImage
import DWWebImageProcessing

extension DWImageServer {
    /// The URL's chain (its ``DWTransform`` through the one builder, blur clamped; without options the metadata
    /// strip, ``servedChain(_:outputFormat:)``), each processor wrapped by ``DWServedProcessor`` so it runs under this
    /// server's ``limits``, is timed in `/metrics`, and the first checks the result limits from the header.
    /// `outputFormat` is the URL's format, else the `Accept` bucket; when the URL names none (and is not `raw:1`)
    /// the chain is one ``DWFormatChoice`` that picks the format per source from `--preferred-formats`, as imgproxy.
    /// ``transformChain(for:outputFormat:)`` puts the SVG rules around it.
    func formatChain(for url: DWProxyURL, outputFormat: DWImageFormat?) -> [any DWImageProcessor] {
        var clamped = url
        clamped.options.transform = DWResultLimits.clamped(url.options.transform)
        let precheck = resultCheck(clamped.options.transform, outputFormat: outputFormat)
        guard url.options.transform.format == nil, !url.options.raw else {
            return DWServedProcessor.wrap(servedChain(clamped, outputFormat: outputFormat), maxFrames: configuration.maxFrames,
                                          limits: limits, metrics: metrics, precheck: precheck)
        }
        let (maxFrames, limits, metrics, served) = (configuration.maxFrames, self.limits, self.metrics, clamped)
        let steps = served.options.transform
        let choice = DWFormatChoice(preferred: configuration.imgproxy.preferredFormats, negotiated: outputFormat,
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
