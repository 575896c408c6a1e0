// The processor chain of one request, as this server runs it (timed, frame-checked, under its own limits).
import DWWebImage

extension DWImageServer {
    /// The URL options' processors (``DWTransformOptions/processors(outputFormat:)``, blur clamped), each wrapped by
    /// ``DWServedProcessor`` so it runs under this server's ``limits``, is timed in `/metrics`, and the first checks
    /// the result limits from the header. Without options, the metadata strip (``servedChain(_:outputFormat:)``).
    func transformChain(for options: DWTransformOptions, outputFormat: DWImageFormat?) -> [any DWImageProcessor] {
        let options = DWResultLimits.clamped(options)
        return DWServedProcessor.wrap(servedChain(options, outputFormat: outputFormat), maxFrames: configuration.maxFrames,
                                      limits: limits, metrics: metrics,
                                      precheck: resultCheck(options, outputFormat: outputFormat))
    }
}
