// PixelStage: what dwfetch adds to a request for the pixel flags — the processors ride in the request (the manager's
// variant pipeline transforms and caches them), the original's facts for the JSON line, and --verify's full decode.
import DWFetchCLI
import DWLocking
import DWWebImage
import DWWebImageProcessing
import Foundation

/// Runs the chain's first processor and remembers the facts of the image it was given — the original — under the
/// same identifier, so the variant's cache key is the chain's own. One per request (dwfetch asks for each URL once).
final class OriginalFactsRecorder: DWImageProcessor {
    private let wrapped: any DWImageProcessor
    /// Format, width and height of the last input (one lock).
    private let seen = DWLock<(DWImageFormat, Int, Int)?>(nil)

    init(wrapping processor: any DWImageProcessor) { wrapped = processor }

    var identifier: String { wrapped.identifier }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        seen.withLock { $0 = (image.format, image.pixelWidth, image.pixelHeight) }
        return try wrapped.process(image)
    }

    /// What the chain started from, if it ran in this process.
    var original: (format: DWImageFormat, width: Int, height: Int)? { seen.withLock { $0 } }
}

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

    /// The request options for one URL: `base` plus the processors (the first one wrapped in a recorder), and the
    /// recorder (the context) to ask for the original's facts afterwards.
    func request(_ base: DWWebImageOptions) -> (options: DWWebImageOptions, context: (any Sendable)?) {
        guard let first = processors.first else { return (base, nil) }
        let recorder = OriginalFactsRecorder(wrapping: first)
        return (base.union(.processors([recorder] + processors.dropFirst())), recorder)
    }

    /// Calls `then` with the result to report and, for a processed image, the original's facts: from the recorder
    /// when the transform ran in this run, else (a cached variant) from the cached original's header. With
    /// `--verify` and no processors, the image is decoded fully first (a failure is 10000). Work that reads or
    /// decodes runs on this stage's queue; a plain result is passed on at once.
    func finish(_ result: Result<DWImage, DWWebImageError>, url: String, context: (any Sendable)?,
                cache: DWWebImageCache,
                then: @escaping @Sendable (Result<DWImage, DWWebImageError>, SourceFacts?) -> Void) {
        let recorder = context as? OriginalFactsRecorder
        guard case .success(let image) = result, verify || isProcessing else { return then(result, nil) }
        let variant = DWImageProcessors.identifier(of: processors), processing = isProcessing
        queue.addOperation {
            guard processing else {
                do throws(DWWebImageError) {
                    try image.verifyDecodes()
                    then(result, nil)
                } catch {
                    then(.failure(DWWebImageError(error.code, error.message, url: url, size: error.size,
                                                  limit: error.limit)), nil)
                }
                return
            }
            var facts: SourceFacts?
            if let original = recorder?.original {
                facts = SourceFacts(format: original.format, width: original.width, height: original.height,
                                    variant: variant)
            } else if let data = cache.objCache(forKey: url), let original = try? DWImage(data: data, maxPixelCount: .max) {
                facts = SourceFacts(format: original.format, width: original.pixelWidth, height: original.pixelHeight,
                                    variant: variant)
            }
            then(result, facts)
        }
    }
}
