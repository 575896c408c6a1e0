// DWWebImageManager + tiers: a request read through Configuration.cacheTiers in order, filled back, stored after.
import DWLocking
import Foundation

extension DWWebImageManager {
    /// ``downloadImage(withURL:options:progress:completion:)`` through `tiers`: in a Task, each tier asked in order
    /// (none with `.refreshCached`) until one holds the key as an image. A fresh entry (or, with `.fromCacheOnly`,
    /// a stale one) is a hit: the tiers before it are filled from it (through ``Configuration/willCache``, with its
    /// metadata) and the image delivered (source `.memory` from the "memory" tier, else `.disk`). A stale entry with
    /// a validator (or any with `.revalidate`) is revalidated: one conditional request, shared with other callers
    /// of the key; a 304 rewrites it with new dates into every tier, a 200 replaces it in every tier. A stale
    /// entry without a validator is a miss. When every tier misses, the request goes to the
    /// network without the manager's own cache (shared with other callers of the key as usual); its image is
    /// stored into every tier (only "memory" tiers with `.cacheMemoryOnly`), one after the other, then delivered,
    /// with the disk tier's entry file when it wrote one. Each result is delivered once, on the callback queue. The
    /// token stands for the whole request: cancelling it answers 10007 at once during the lookup, or cancels the
    /// download; its priority is passed to the download.
    func downloadThroughTiers(
        _ url: String, options: DWWebImageOptions, tiers: [any DWCacheTier], id: UInt64, callbacks: DispatchQueue,
        configuration: Configuration, progress: (@Sendable (Int64, Int64) -> Void)?,
        completion: @escaping @Sendable (Result<DWImage, DWWebImageError>) -> Void
    ) -> DWWebImageToken {
        let validated =
            configuration.loader(for: url) == nil ? URLValidator.validate(url, s3: configuration.s3) : .success(url)
        if case .failure = validated {  // answered by the pipeline as any request with this URL
            return download(url, options: options, progress: progress, resumesInline: false, tierLookups: []) {
                completion($0)
            }
        }
        let request = RequestOptions(options, cachePolicy: cache.cachePolicy)
        let base = request.originalKey(url: url, filter: configuration.cacheKeyFilter)
        let key = request.cacheKey(base: base)
        let run = TieredRun(
            callbacks: callbacks, handler: { [weak self] in self?.state.withLock { $0.metricsHandler } },
            completion: completion)
        let outer = DWLock<DWWebImageToken?>(nil)
        let token = DWWebImageToken(
            url: url, cacheKey: base, id: id, priority: options.priority,
            canceller: { _ in run.cancel(url) },
            reprioritize: {
                guard let level = outer.value?.priority else { return }
                run.attempt?.priority = level
            })
        outer.withLock { $0 = token }
        let (cache, willCache, maxPixels) = (cache, configuration.willCache, configuration.maxPixelCount)
        let asked = DispatchTime.now().uptimeNanoseconds
        Task.detached(priority: .userInitiated) { [weak self] in
            var lookups: [DWCacheTierLookup] = []
            var stale: StaleTierEntry?
            if !options.contains(.refreshCached) {
                let lookup = TierLookup(
                    url: url, key: key, tiers: tiers, cache: cache, request: request, willCache: willCache,
                    maxPixelCount: maxPixels)
                switch await lookup.run(asked: asked, until: { run.isDelivered }) {
                case .hit(let image, let metrics): return run.finish(.success(image), metrics: metrics)
                case .stale(let found, let asked): (stale, lookups) = (found, asked)
                case .miss(let asked): lookups = asked
                }
            }
            guard !run.isDelivered else { return }
            guard let self else { return run.finish(.failure(.cancelled(url)), metrics: nil) }  // the manager is gone
            if request.fromCacheOnly { return run.finish(.failure(.notInCache(url)), metrics: nil) }
            let stores = TierStores(
                key: key, tiers: tiers, memoryOnly: options.contains(.cacheMemoryOnly), stale: stale,
                willCache: willCache)
            var network = options.union(.noCache)
            network.remove(.refreshCached)
            let attempt = download(
                url, options: network, progress: progress, resumesInline: false, tierLookups: lookups,
                revalidating: stale.map { Revalidation(image: $0.image, metadata: $0.metadata) }
            ) { result in
                Task.detached(priority: .userInitiated) { run.finish(await stores.settle(result), metrics: nil) }
            }
            attempt.priority = outer.value?.priority ?? options.priority
            run.started(attempt)
        }
        return token
    }

    /// Stores `data` under `key` into each of `tiers` in order, through `willCache` (nil from it: that tier is
    /// skipped), with `metadata` into the built-in tiers (all of them as bytes alone when it is nil); a tier that
    /// throws is logged as 10008 and the others are still written. Returns the file a tier wrote holding exactly
    /// `data` (the disk tier's body-only entry), if any.
    @discardableResult
    static func store(
        _ data: Data, metadata: DWCacheEntryMetadata? = nil, forKey key: String,
        into tiers: some Collection<any DWCacheTier>, willCache: DWWillCacheHandler?
    ) async -> DWCacheEntryFile? {
        var file: DWCacheEntryFile?
        for tier in tiers {
            guard let bytes = willCache.map({ $0(data, key, tier.name) }) ?? data else { continue }
            do throws(DWWebImageError) {
                if let metadata, let tier = tier as? any MetadataCacheTier {
                    let written = try await tier.store(bytes, metadata: metadata, forKey: key)
                    if file == nil, let written, willCache == nil || bytes == data { file = written }
                } else {
                    try await tier.store(bytes, forKey: key)
                }
            } catch {
                let reported =
                    error.code == .cacheIO ? error : DWWebImageError(.cacheIO, error.message, url: error.url)
                DWLog.warning("cache tier \(tier.name): storing \(key) failed: \(reported)")
            }
        }
        return file
    }
}

/// One tiered request's state: the download started after the tiers missed, and whether the caller was answered
/// (exactly once, on the callback queue). Thread safety: one `DWLock` (a leaf).
private final class TieredRun: Sendable {
    private struct State {
        var attempt: DWWebImageToken?
        var delivered = false
    }
    private let state = DWLock(State())
    private let callbacks: DispatchQueue
    private let handler: @Sendable () -> (@Sendable (DWDownloadMetrics) -> Void)?
    private let completion: DWLock<(@Sendable (Result<DWImage, DWWebImageError>) -> Void)?>

    init(
        callbacks: DispatchQueue, handler: @escaping @Sendable () -> (@Sendable (DWDownloadMetrics) -> Void)?,
        completion: @escaping @Sendable (Result<DWImage, DWWebImageError>) -> Void
    ) {
        self.callbacks = callbacks
        self.handler = handler
        self.completion = DWLock(completion)
    }

    var isDelivered: Bool { state.withLock { $0.delivered } }
    var attempt: DWWebImageToken? { state.withLock { $0.attempt } }

    /// Answers the caller with `result` (and hands `metrics` to the metrics handler first), unless already answered.
    func finish(_ result: Result<DWImage, DWWebImageError>, metrics: DWDownloadMetrics?) {
        let first = state.withLock { s -> Bool in
            defer { s.delivered = true }
            return !s.delivered
        }
        let taken = completion.withLock { c -> (@Sendable (Result<DWImage, DWWebImageError>) -> Void)? in
            defer { c = nil }
            return c
        }
        guard first, let completion = taken else { return }
        let handler = metrics == nil ? nil : handler()
        callbacks.async {
            if let handler, let metrics { handler(metrics) }
            completion(result)
        }
    }

    /// The caller cancelled: the download is cancelled (its 10007 answers the caller), or, during the lookup, the
    /// caller is answered with 10007 now.
    func cancel(_ url: String) {
        guard let attempt else { return finish(.failure(.cancelled(url)), metrics: nil) }
        attempt.cancel()
    }

    /// The download after the tiers missed; cancelled at once if the caller cancelled meanwhile.
    func started(_ attempt: DWWebImageToken) {
        let cancelled = state.withLock { s -> Bool in
            s.attempt = attempt
            return s.delivered
        }
        if cancelled { attempt.cancel() }
    }
}
