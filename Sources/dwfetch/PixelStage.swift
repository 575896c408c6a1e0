// PixelStage: what dwfetch does with an image between the manager and the output — full-decode verification, the
// processor chain, and the facts of the source a processed image came from.
import DWWebImage
import DWWebImageProcessing
import Foundation

/// The original's facts, for the JSON line of a processed image.
struct SourceFacts: Sendable {
    let format: DWImageFormat
    let width: Int
    let height: Int
    /// The chain's identifier (`DWImageProcessors.identifier(of:)`).
    let variant: String
    /// Where the original came from and how its download went (a processed image is made here, not fetched).
    let origin: DWImageSource
    let metrics: DWDownloadMetrics?
}

/// Runs `--verify` and processing off the manager's callback queue, at most one transform per core at a time.
final class PixelStage: Sendable {
    let processors: [any DWImageProcessor]
    let verify: Bool
    /// Transforms run here: a CPU-bound job per image, as many at once as there are cores.
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

    /// Whether images go through this stage at all.
    var isActive: Bool { verify || !processors.isEmpty }

    /// The variant identifier, or nil without processors.
    var variant: String? { processors.isEmpty ? nil : DWImageProcessors.identifier(of: processors) }

    /// Calls `then` with the result to report: the image verified and/or processed (on this stage's queue), or the
    /// manager's result unchanged (synchronously) when there is nothing to do.
    func finish(_ result: Result<DWImage, DWWebImageError>,
                then: @escaping @Sendable (Result<DWImage, DWWebImageError>, SourceFacts?) -> Void) {
        guard isActive, case .success(let image) = result else { return then(result, nil) }
        let processors = self.processors, verify = self.verify, variant = self.variant
        queue.addOperation {
            do throws(DWWebImageError) {
                if processors.isEmpty {
                    if verify { try image.verifyDecodes() }
                    return then(.success(image), nil)
                }
                let facts = SourceFacts(format: image.format, width: image.pixelWidth, height: image.pixelHeight,
                                        variant: variant ?? "", origin: image.source, metrics: image.metrics)
                then(.success(try Self.applyUntilPipelineLands(processors, to: image)), facts)
            } catch {
                then(.failure(error), nil)
            }
        }
    }

    /// TEMPORARY: applies the chain here until the manager's variant pipeline (`.processors([...])`: cached
    /// variants, one transform per variant) is on main; then the request carries the processors and this goes.
    private static func applyUntilPipelineLands(_ processors: [any DWImageProcessor], to image: DWImage)
        throws(DWWebImageError) -> DWImage {
        try DWImageProcessors.apply(processors, to: image)
    }
}
