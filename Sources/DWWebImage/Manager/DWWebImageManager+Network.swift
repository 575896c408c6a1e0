// DWWebImageManager+Network: a request that missed every cache joins the download of its URL or starts one.
import DWLocking
import Foundation

extension DWWebImageManager {
    /// Joins or starts the download for `waiter`. `writesSeen`: ``DWWebImageCache/pendingWritesFinished`` before a
    /// variant's disk lookup of its original missed; if a write finished since and nothing else holds the original,
    /// the disk is asked again instead (an original kept out of memory leaves the pending writes when it is on disk).
    func proceedToNetwork(
        _ waiter: Waiter, asciiURL: String, configuration: Configuration,
        callbacks: DispatchQueue, revalidating: Revalidation? = nil, writesSeen: UInt64? = nil
    ) {
        let url = waiter.token.url
        let key = waiter.token.cacheKey
        if waiter.options.fromCacheOnly {
            state.withLock { _ = $0.lookups.removeValue(forKey: waiter.token.id) }
            waiter.deliver(.failure(.notInCache(url)), on: callbacks)
            return
        }
        enum Step { case scheduled, gone, invalidated, memoryHit(DWImage), lookAgain, failedRecently(DWWebImageError) }
        // Join the in-flight download, or create one, atomically with respect to other callers and to cancel().
        let step = state.withLock { s -> Step in
            s.lookups[waiter.token.id] = nil
            if waiter.isDelivered { return .gone }  // cancelled during the cache lookup
            if s.invalidated { return .invalidated }
            if let existing = s.downloaders[key], existing.attach(waiter) {
                // Someone asks for it now: if it still waits, it is the newest request for its priority.
                s.scheduler.update(ObjectIdentifier(existing), demand: existing.demand, asked: true)
                return .scheduled
            }
            // A download of this URL may have ended since the lookup missed: it kept its image in memory (or, an
            // original kept out of memory, among the pending writes) before it left `downloaders`, so look again
            // there rather than fetch it twice.
            if waiter.options.readPolicy.contains(.memory), let image = cache.memoryOrPendingImage(forKey: key) {
                return .memoryHit(image)
            }
            if let writesSeen, cache.pendingWritesFinished != writesSeen {
                s.lookups[waiter.token.id] = waiter  // still looking up (cancel finds it there)
                return .lookAgain
            }
            // Off (the default): no lookup, so a request pays nothing for the feature.
            if s.configuration.remembersFailures, !waiter.options.retriesFailed,
                let failure = failedURLs.failure(forKey: key)
            {
                return .failedRecently(failure)
            }
            let downloader = DWWebImageDownloader(
                url: url, key: key,
                context: makeContext(
                    for: waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks,
                    revalidating: revalidating))
            _ = downloader.attach(waiter)
            s.downloaders[key] = downloader
            let operation = DWWebImageOperation(downloader: downloader, group: runningOperations)
            downloader.setOperation(operation)
            s.scheduler.enqueue(
                ObjectIdentifier(downloader), job: operation, host: downloader.context.hostKey,
                demand: .init(priority: waiter.priority, prefetchOnly: waiter.isPrefetch))
            return .scheduled
        }
        switch step {
        case .scheduled:
            schedule()  // a new download, or a joined one whose priority may have risen
        case .invalidated:
            waiter.deliver(.failure(.cancelled(url)), on: callbacks)
        case .failedRecently(let failure):
            waiter.deliver(.failure(failure), on: callbacks)
        case .memoryHit(let image):
            let now = DispatchTime.now().uptimeNanoseconds
            let metrics = DWDownloadMetrics.cacheHit(url, .memory, since: now, lookupStarted: now)
            if waiter.options.isVariant {
                report(metrics, on: callbacks)
                makeVariant(from: image.from(.memory, metrics: metrics), for: [waiter], callbacks: callbacks)
            } else {
                deliver(.success(image.from(.memory, metrics: metrics)), to: waiter, metrics: metrics, on: callbacks)
            }
        case .lookAgain:
            lookupQueue.async { [self] in
                DWHopTrace.arrive("lookup queue")
                lookUpOriginalAgain(waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks)
            }
        case .gone:
            break
        }
    }

    /// Partial bodies live beside the cache spaces, under the cache root (a setting that can change: no stored copy).
    private var partialStore: PartialStore {
        PartialStore(path: cache.partialPath, privateFiles: cache.configuration.privateFiles)
    }

    private func makeContext(
        for waiter: Waiter, asciiURL: String, configuration: Configuration,
        callbacks: DispatchQueue, revalidating: Revalidation?
    ) -> DownloadContext {
        var headers =
            waiter.options.headers.isEmpty
            ? configuration.requestHeaders : configuration.requestHeaders.merging(waiter.options.headers) { $1 }
        if let revalidating {
            // RFC 9110 §13.1: If-None-Match when there is an ETag; If-Modified-Since otherwise.
            if let etag = revalidating.metadata.etag {
                headers["If-None-Match"] = etag
            } else if let lastModified = revalidating.metadata.lastModified {
                headers["If-Modified-Since"] = lastModified
            }
        }
        let request = configuration.transferRequest(
            url: asciiURL, source: waiter.token.url, headers: headers, options: waiter.options,
            loader: configuration.loader(for: waiter.token.url))
        var policy = waiter.options.storePolicy
        let tuned = tuning.withLock { $0 }
        if waiter.options.isVariant && !configuration.memoryCachesVariantSources { policy.remove(.memory) }
        if waiter.options.isVariant, revalidating == nil, policy.contains(.disk),
            let admission = configuration.variantSourceAdmission, !admission.admits(waiter.token.cacheKey)
        {
            policy.remove(.disk)  // a source not yet asked for often enough: no entry, no partial file
        }
        var retryToken: (@Sendable () -> Double)?
        if configuration.rateSettings.isLimited && request.loader == nil {
            let (limiter, host) = (rateLimiter, URLValidator.hostKey(asciiURL))
            retryToken = { limiter.take(host: host) }
        }
        return DownloadContext(
            engine: engine, cache: cache, notificationCenter: tuned.postsNotifications ? notificationCenter : nil,
            callbackQueue: callbacks,
            workQueue: workQueue, request: request, storePolicy: policy,
            maxPixelCount: configuration.maxPixelCount,
            revalidation: revalidating, retryPolicy: configuration.retryPolicy,
            partialStore: policy.contains(.disk) ? partialStore : nil,
            progressInterval: UInt64(max(0, configuration.progressInterval) * 1e9),
            owner: self, hostKey: request.loader.map { "loader:\(type(of: $0))" } ?? URLValidator.hostKey(asciiURL),
            writesCacheInCallbacks: tuned.writesCacheInCallbacks,
            partialSpillThreshold: max(0, configuration.partialSpillThreshold), retryToken: retryToken,
            tierLookups: waiter.options.tierLookups)
    }
}
