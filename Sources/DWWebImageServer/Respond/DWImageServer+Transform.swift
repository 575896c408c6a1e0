// The processor chain of one request, as this server runs it (timed, frame-checked, under its own limits).
import DWWebImage

extension DWImageServer {
    /// The URL's chain (its ``DWTransform`` through the one builder, blur clamped; without options the metadata
    /// strip, ``servedChain(_:outputFormat:)``), each processor wrapped by ``DWServedProcessor`` so it runs under this
    /// server's ``limits``, is timed in `/metrics`, and the first checks the result limits from the header.
    func transformChain(for url: DWProxyURL, outputFormat: DWImageFormat?) -> [any DWImageProcessor] {
        var clamped = url
        clamped.options.transform = DWResultLimits.clamped(url.options.transform)
        return DWServedProcessor.wrap(servedChain(clamped, outputFormat: outputFormat), maxFrames: configuration.maxFrames,
                                      limits: limits, metrics: metrics,
                                      precheck: resultCheck(clamped.options.transform, outputFormat: outputFormat))
    }
}
