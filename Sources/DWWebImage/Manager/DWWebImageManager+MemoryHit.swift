// DWWebImageManager + memory hits answered on the caller's thread: what an async caller (or a server answering a
// hot variant) gets without crossing to the callback queue and back.
import Foundation

extension DWWebImageManager {
    /// The image ``downloadImage(withURL:options:progress:completion:)`` would deliver from the memory cache for `url`
    /// and `options`, looked up on the caller's thread under the cache's lock; nil when memory does not hold it —
    /// also for a URL the pipeline refuses, with `.noCache` or `.refreshCached`, for a cache without its memory layer,
    /// and for a variant whose original alone is in memory (making the variant is the pipeline's work). Nothing is
    /// started either way.
    ///
    /// A hit is counted as the callback API counts it: its ``DWDownloadMetrics`` record (source `.memory`) reaches
    /// ``metricsHandler`` on ``callbackQueue`` — not at once but within 2 ms (`memoryHitReportDelay`), together
    /// with the records of every other hit in that time, in one block.
    public func imageFromMemory(withURL url: String, options: DWWebImageOptions = []) -> DWImage? {
        let asked = DispatchTime.now().uptimeNanoseconds
        let request = RequestOptions(options, cachePolicy: cache.cachePolicy)
        guard request.readPolicy.contains(.memory) else { return nil }
        let configuration = self.configuration
        if configuration.loader(for: url) == nil, case .failure = URLValidator.validate(url, s3: configuration.s3) {
            return nil  // the callback API answers it with the error
        }
        let key = request.cacheKey(base: request.originalKey(url: url, filter: configuration.cacheKeyFilter))
        guard let image = cache.memoryImage(forKey: key) else { return nil }
        let metrics = DWDownloadMetrics.cacheHit(url, .memory, since: asked, lookupStarted: asked)
        reportMemoryHit(metrics)
        return image.from(.memory, metrics: metrics).keepingDecoded(in: cache, key: key)
    }

    /// How long the first memory hit's record waits for others before the batch is handed to ``metricsHandler``.
    /// A block for each hit would wake the callback queue's thread for each hit: for a server answering a hot
    /// variant, the futex wake and two context switches cost more than the hit itself.
    static let memoryHitReportDelay: DispatchTimeInterval = .milliseconds(2)

    /// Queues a hit's record for the metrics handler; the first record of a batch schedules the block that hands
    /// the batch over on the callback queue ``memoryHitReportDelay`` later (one hand-off per batch, not per hit).
    private func reportMemoryHit(_ metrics: DWDownloadMetrics) {
        let schedule: (DispatchQueue, @Sendable (DWDownloadMetrics) -> Void)? = state.withLock { s in
            guard let handler = s.metricsHandler else { return nil }
            s.memoryHitReports.append(metrics)
            return s.memoryHitReports.count == 1 ? (s.callbackQueue, handler) : nil
        }
        guard let (queue, handler) = schedule else { return }
        queue.asyncAfter(deadline: .now() + Self.memoryHitReportDelay) { [self] in
            let batch = state.withLock { s in
                defer { s.memoryHitReports.removeAll(keepingCapacity: true) }
                return s.memoryHitReports
            }
            for record in batch { handler(record) }
        }
    }
}
