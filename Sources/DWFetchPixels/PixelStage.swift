// PixelStage: what dwfetch adds to a request for the pixel flags — the variant plan rides in the request (the
// manager's variant pipeline renders and caches it), the original's facts for the JSON line, and --verify's decode.
import DWFetchCLI
import DWWebImage
import DWWebImageProcessing
import Foundation

/// `--verify` and the pixel flags. Verification (the only work here: processing happens in the manager) runs off
/// the manager's callback queue, at most one decode per core at a time.
final class PixelStage: FetchPixelStage {
    let processors: [any DWImageProcessor]
    let verify: Bool
    private let queue: OperationQueue

    init(options: ProcessingOptions) {
        processors = options.processors
        verify = options.verify
        queue = OperationQueue()
        queue.name = "dwfetch.pixels"
        queue.maxConcurrentOperationCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Whether the pixel flags ask for processing (the output is then a new image, named with its format's extension).
    var isProcessing: Bool { !processors.isEmpty }

    /// The request options for one URL: `base` plus the processors.
    func request(_ base: DWWebImageOptions) -> DWWebImageOptions {
        processors.isEmpty ? base : base.union(.processors(processors))
    }

    /// Calls `then` with the result to report and, for a processed image, the original's facts: from the variant
    /// when it was rendered in this run, else (a cached variant) from the cached original's first bytes
    /// (``DWWebImageCache/facts(forKey:)``: nothing read whole or decoded). With
    /// `--verify` and no processors, the image is decoded fully first (a failure is 10000). Work that reads or
    /// decodes runs on this stage's queue; a plain result is passed on at once.
    func finish(
        _ result: Result<DWImage, DWWebImageError>, url: String, cache: DWWebImageCache,
        then: @escaping @Sendable (Result<DWImage, DWWebImageError>, SourceFacts?) -> Void
    ) {
        guard case .success(let image) = result, verify || isProcessing else { return then(result, nil) }
        let variant = DWImageProcessors.identifier(of: processors), processing = isProcessing
        queue.addOperation {
            guard processing else {
                do throws(DWWebImageError) {
                    try image.verifyDecodes()
                    then(result, nil)
                } catch {
                    then(.failure(error.about(url)), nil)
                }
                return
            }
            var facts: SourceFacts?
            if let original = image.original {
                facts = SourceFacts(
                    format: original.format, width: original.pixelWidth, height: original.pixelHeight,
                    variant: variant)
            } else if let original = cache.facts(forKey: url) {  // a cached variant: the original's header only
                facts = SourceFacts(
                    format: original.format, width: original.pixelWidth, height: original.pixelHeight,
                    variant: variant)
            }
            then(result, facts)
        }
    }
}
