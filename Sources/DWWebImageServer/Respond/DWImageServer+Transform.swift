// The processor chain of one request, as this server runs it (timed, frame-checked, under its own limits).
import DWWebImage

extension DWImageServer {
    /// The URL options' processors (``DWTransformOptions/processors(outputFormat:)``), each wrapped by
    /// ``DWServedProcessor`` so it runs under this server's ``limits`` and is timed in `/metrics`. Empty when the
    /// URL asks for the source unchanged.
    func transformChain(for options: DWTransformOptions, outputFormat: DWImageFormat?) -> [any DWImageProcessor] {
        DWServedProcessor.wrap(options.processors(outputFormat: outputFormat), maxFrames: configuration.maxFrames,
                               limits: limits, metrics: metrics)
    }
}
