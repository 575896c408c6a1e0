// The processor chain of one request, as this server runs it (timed, frame-checked, under its own limits).
import DWWebImage

extension DWImageServer {
    /// The URL's chain (``chain(for:format:)``: its ``DWTransform`` through the one builder), each processor wrapped
    /// by ``DWServedProcessor`` so it runs under this server's ``limits`` and is timed in `/metrics`. Empty when
    /// the URL asks for the source unchanged.
    func transformChain(for url: DWProxyURL, outputFormat: DWImageFormat?) -> [any DWImageProcessor] {
        DWServedProcessor.wrap(chain(for: url, format: outputFormat), maxFrames: configuration.maxFrames,
                               limits: limits, metrics: metrics)
    }
}
