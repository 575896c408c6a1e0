// DWServedProcessor: a processor of the chain as the server runs it — timed, under the server's limits, and the first
// one checks the frame limit.
import DWWebImage
import DWWebImageProcessing

/// Wraps one processor of a request's chain. Its identifier is the wrapped one's, so cache keys are exactly
/// ``DWImageProcessors/cacheKey(url:processors:)`` of the engine's chain. The first of a chain refuses a source with
/// more than `maxFrames` frames or a format `limits` do not allow and runs the request's result check
/// (``DWResultLimits``, under `limits`), all from the header before anything decodes, and counts the transform. Each
/// runs through ``DWImageProcessing/process(_:with:limits:)`` with the server's `limits`, on the pipeline's
/// processing queue.
struct DWServedProcessor: DWImageProcessor {
    /// A check of the source's header facts before the first step decodes anything.
    typealias Precheck = @Sendable (DWImage) throws(DWWebImageError) -> Void

    let inner: any DWImageProcessor
    let first: Bool
    let maxFrames: Int
    let limits: DWProcessingLimits
    let metrics: DWServerMetrics
    let precheck: Precheck

    var identifier: String { inner.identifier }

    func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        if first {
            guard image.frameCount <= maxFrames else {
                throw DWWebImageError(.tooLarge, "\(image.frameCount) frames is over the limit of \(maxFrames)",
                                      size: Int64(image.frameCount), limit: Int64(maxFrames))
            }
            try limits.checkSourceFormat(image.format)  // --source-formats: before anything reads it
            try DWImageProcessing.withLimits(limits) { () throws(DWWebImageError) in try precheck(image) }
            metrics.transformStarted()
        }
        let clock = ContinuousClock()
        let start = clock.now
        metrics.imgproxy.processingStarted()
        defer { metrics.transformStep(clock.now - start) }
        return try DWImageProcessing.process(image, with: inner, limits: limits)
    }

    /// `chain`, each wrapped; `precheck` runs before the first step.
    static func wrap(_ chain: [any DWImageProcessor], maxFrames: Int, limits: DWProcessingLimits,
                     metrics: DWServerMetrics, precheck: @escaping Precheck = { _ in }) -> [any DWImageProcessor] {
        chain.enumerated().map { index, processor in
            DWServedProcessor(inner: processor, first: index == 0, maxFrames: maxFrames, limits: limits, metrics: metrics,
                              precheck: precheck)
        }
    }
}
