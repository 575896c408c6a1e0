// DWWebImageManager: the DW entry point — cache first, else join the in-flight download, else a new operation.
import Foundation
import DWLocking

/// The entry point of the pipeline.
///
/// For each request: answer from the cache (memory, then disk) unless told not to; else attach the caller to the
/// in-flight ``DWWebImageDownloader`` for that URL (its callback array); else create a downloader and its
/// ``DWWebImageOperation``. The operation waits in the manager's scheduler (``DownloadScheduler``) and is started when
/// it is given one of the ``maxConcurrentDownloads`` slots: the highest priority first (a shared download counts its
/// most urgent caller), the newest first within a priority (unless ``startsNewestFirst`` is off), at most
/// ``maxConcurrentDownloadsPerHost`` per host and ``maxConcurrentPrefetches`` for downloads only the prefetcher wants.
/// The choice is made each time a slot frees, so every slot stays busy and a priority raised while waiting counts at
/// the next free slot.
///
/// The path of one URL: the caller's thread (memory hit, or hand-off; with ``probesDiskWhereAsked``, a file absent
/// from disk files the download right there) → the lookup queue (disk hit, or the download is filed with the
/// scheduler) → the start queue (the operation starts and hands the transfer to the engine) → the engine
/// thread (libcurl; a small body that arrived whole is validated and kept in memory right there, its slot released and
/// its disk write queued; anything else goes on to the work queue for that) → ``callbackQueue`` (one block: metrics,
/// every completion, the Finish notification). Disk writes run on the cache's write queue (or at the end of that block:
/// ``writesCacheInCallbacks``); processors on the work queue.
///
/// Every caller gets exactly one completion — success, failure or cancellation (10007) — on ``callbackQueue``,
/// where the notifications are posted too.
///
/// ```swift
/// let token = DWWebImageManager.shared.downloadImage(withURL: "https://example.com/cat.png") { result in
///     if case .success(let image) = result { print(image.format, image.pixelWidth, image.pixelHeight) }
/// }
/// DWWebImageManager.shared.cancel(token)   // completes this caller with 10007
/// ```
///
/// Thread safety: all bookkeeping (downloaders by URL, the scheduler, settings) lives in `state`, one lock; no
/// user code runs while it is held. Lock order (docs/design.md, "Locks"): manager `state` → downloader `state` → waiter
/// `delivered` / token `level`; the cache's locks, the engine's inbox and the transfers' flags are leaves.
public final class DWWebImageManager: Sendable {
    /// The process-wide manager, using ``DWWebImageCache/shared`` and `NotificationCenter.default`.
    public static let shared = DWWebImageManager()

    /// The cache consulted first and filled after each download.
    public let cache: DWWebImageCache
    /// Where notifications are posted.
    public let notificationCenter: NotificationCenter

    struct State {
        var downloaders: [String: DWWebImageDownloader] = [:]
        var scheduler = DownloadScheduler<ObjectIdentifier, DWWebImageOperation>()
        var lookups: [UInt64: Waiter] = [:]  // callers in the disk lookup, not yet attached to a downloader
        /// Variants being made, by cache key: the callers waiting for each (one transform per key at a time).
        var transforms: [String: TransformJob] = [:]
        /// The same callers by token id, for ``cancel(_:)``.
        var transformWaiters: [UInt64: Waiter] = [:]
        var nextTokenID: UInt64 = 0
        /// Where variants are made (``transformExecutor``); nil: ``workQueue``.
        var transformExecutor: (any DWTransformExecutor)?
        var callbackQueue: DispatchQueue
        var configuration: Configuration
        var metricsHandler: (@Sendable (DWDownloadMetrics) -> Void)?
        var memoryHitReports: [DWDownloadMetrics] = []  // imageFromMemory's hits, for the callback queue
        var invalidated = false
    }

    let state: DWLock<State>
    private let lazyEngine = LazyCurlMulti()  // made by the first transfer: a cache hit never starts libcurl
    var engine: CurlMulti { lazyEngine.engine }
    // Serial: disk lookups finish in call order, so newest-first scheduling sees callers in the order they asked.
    let lookupQueue = DispatchQueue(label: "DWWebImage.lookup", qos: .userInitiated)
    /// Disk hits handed to the callback queue and not yet consumed (at most 32): the lookup queue waits on it
    /// before handing over a 33rd, the back-pressure that bounds the memory of undelivered hits (see
    /// `deliverDiskHit`).
    let diskHitsInFlight = DispatchSemaphore(value: 32)
    /// Where finished transfers are judged and validated when not on the engine thread, and where variants are
    /// made: off the engine thread and off the callback queue (disk writes go to the cache's write queue).
    let workQueue = DispatchQueue(label: "DWWebImage.work", qos: .userInitiated, attributes: .concurrent)
    /// Where ``schedule()`` starts operations (serial): starting reads a partial body, posts Start and hands the
    /// transfer to the engine's inbox.
    let startQueue = DispatchQueue(label: "DWWebImage.start", qos: .userInitiated)
    /// Operations started and not yet finished (``invalidate()`` waits for them).
    let runningOperations = DispatchGroup()
    /// Keys whose download failed within ``Configuration/failedURLTTL`` (the negative cache).
    let failedURLs = FailedURLs()
    /// ``Configuration/requestsPerSecond`` and ``Configuration/requestsPerSecondPerHost``.
    let rateLimiter = RequestRateLimiter()
    /// A wake-up is armed for when the rate limiter has a token again (a leaf lock).
    let rateWakeArmed = DWLock(false)

    /// Creates a manager with its own transfer engine.
    /// - Parameters:
    ///   - cache: the cache to read and fill (default ``DWWebImageCache/shared``).
    ///   - configuration: timeouts and limits.
    ///   - notificationCenter: where notifications are posted (default `.default`).
    ///   - callbackQueue: where completions, progress and notifications are delivered; default a serial queue the
    ///     library owns (a CLI or server on Linux often never drains the main queue).
    ///   - removeExpiredAtStart: sweep expired disk entries in the background now, as DW does (at most once an
    ///     hour per cache space, across processes).
    public init(
        cache: DWWebImageCache = .shared, configuration: Configuration = Configuration(),
        notificationCenter: NotificationCenter = .default, callbackQueue: DispatchQueue? = nil,
        removeExpiredAtStart: Bool = true
    ) {
        self.cache = cache
        self.notificationCenter = notificationCenter
        let callbacks = callbackQueue ?? DispatchQueue(label: "DWWebImage.callbacks", qos: .userInitiated)
        self.state = DWLock(State(callbackQueue: callbacks, configuration: configuration))
        workQueue.setSpecific(key: Self.onWorkQueue, value: true)
        if removeExpiredAtStart {
            DispatchQueue.global(qos: .utility).async { [cache] in
                cache.removeExpiredCacheIfDue()
                PartialStore(cacheRoot: cache.configuration.rootDirectory).removeExpired(maxAge: cache.expirationTime)
            }
        }
    }

    deinit {
        lazyEngine.shutdown()
    }

    // MARK: - Settings

    /// How many downloads run at once (default 6).
    public var maxConcurrentDownloads: Int {
        get { state.withLock { $0.scheduler.maxConcurrent } }
        set {
            state.withLock { $0.scheduler.maxConcurrent = max(1, newValue) }
            schedule()
        }
    }

    /// How many downloads run at once to one host (`host:port`), so one slow host cannot take every slot (default 6).
    public var maxConcurrentDownloadsPerHost: Int {
        get { state.withLock { $0.scheduler.maxPerHost } }
        set {
            state.withLock { $0.scheduler.maxPerHost = max(1, newValue) }
            schedule()
        }
    }

    /// How many downloads that only the prefetcher wants run at once (default 2), so prefetching never takes
    /// every slot. A download someone else asks for stops counting here at once.
    public var maxConcurrentPrefetches: Int {
        get { state.withLock { $0.scheduler.maxPrefetches } }
        set {
            state.withLock { $0.scheduler.maxPrefetches = max(1, newValue) }
            schedule()
        }
    }

    /// ``writesCacheInCallbacks``, ``postsDownloadNotifications`` and ``probesDiskWhereAsked`` (a leaf lock, read
    /// when a request or a download is made; DWWebImageManager+Tuning.swift).
    let tuning = DWLock(Tuning())
    /// Called with the record of every finished request — network downloads (success or failure) and cache hits —
    /// on ``callbackQueue``. A memory hit answered on the caller's thread (``imageFromMemory(withURL:options:)``, the
    /// async API's hits) is counted there after the caller has its image, in batches at most 2 ms late.
    public var metricsHandler: (@Sendable (DWDownloadMetrics) -> Void)? {
        get { state.withLock { $0.metricsHandler } }
        set { state.withLock { $0.metricsHandler = newValue } }
    }

    /// Where completions, progress calls and notifications are delivered. Default: a serial queue the library owns.
    /// Set it to `.main` for the Apple-platform convention (then something must drain the main queue).
    public var callbackQueue: DispatchQueue {
        get { state.withLock { $0.callbackQueue } }
        set { state.withLock { $0.callbackQueue = newValue } }
    }

    /// Timeouts and limits for transfers started from now on.
    public var configuration: Configuration {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    // MARK: - Requests

    /// Fetches an image: cache first, else a download shared with every other caller of the same URL.
    ///
    /// - Parameters:
    ///   - url: an http or https URL (non-ASCII characters are percent-encoded; the cache key is the string as given).
    ///   - options: cache and priority flags, extra headers.
    ///   - progress: `(received, expected)` bytes, throttled (``Configuration/progressInterval``), with a final call
    ///     where received == expected before a network success; `expected` is -1 when the server did not say.
    ///     Called on ``callbackQueue``. Not called for cache hits.
    ///   - completion: called exactly once, on ``callbackQueue``.
    /// - Returns: a token for ``cancel(_:)``.
    @discardableResult
    public func downloadImage(
        withURL url: String, options: DWWebImageOptions = [],
        progress: (@Sendable (_ received: Int64, _ expected: Int64) -> Void)? = nil,
        completion: @escaping @Sendable (Result<DWImage, DWWebImageError>) -> Void
    ) -> DWWebImageToken {
        download(url, options: options, progress: progress, resumesInline: false, completion: completion)
    }

    /// ``downloadImage(withURL:options:progress:completion:)``; with `resumesInline` the completion (which only
    /// resumes an awaiting task) is called where the result is made rather than on ``callbackQueue``.
    /// `tierLookups`: the request has been through the cache tiers (``Configuration/cacheTiers``) and missed, or
    /// found the stale entry `revalidating` (a conditional request; with `.noCache`).
    func download(
        _ url: String, options: DWWebImageOptions, progress: (@Sendable (Int64, Int64) -> Void)?, resumesInline: Bool,
        tierLookups: [DWCacheTierLookup]? = nil, revalidating: Revalidation? = nil,
        completion: @escaping @Sendable (Result<DWImage, DWWebImageError>) -> Void
    ) -> DWWebImageToken {
        if !options.alternativeSources.isEmpty {
            return downloadTryingAlternatives(url, options: options, progress: progress, completion: completion)
        }
        let (id, callbacks, configuration) = state.withLock { s -> (UInt64, DispatchQueue, Configuration) in
            s.nextTokenID += 1
            return (s.nextTokenID, s.callbackQueue, s.configuration)
        }
        if tierLookups == nil, !options.contains(.noCache), let tiers = configuration.tiers(of: cache) {
            return downloadThroughTiers(
                url, options: options, tiers: tiers, id: id, callbacks: callbacks, configuration: configuration,
                progress: progress, completion: completion)
        }
        var interpreted = RequestOptions(options, cachePolicy: cache.cachePolicy)
        interpreted.tierLookups = tierLookups ?? []
        let request = interpreted
        let base = request.originalKey(url: url, filter: configuration.cacheKeyFilter)
        let token = DWWebImageToken(
            url: url, cacheKey: base, id: id, priority: request.priority,
            canceller: { [weak self] token in self?.cancel(token) },
            reprioritize: { [weak self] in self?.callersChanged(key: base) })
        // What a caller receives reads and fills the cache's decoded tier under the request's key (bitmap()).
        let (decodedCache, decodedKey) = (cache, request.cacheKey(base: base))
        let waiter = Waiter(token: token, options: request, progress: progress, resumesInline: resumesInline) {
            completion($0.map { $0.keepingDecoded(in: decodedCache, key: decodedKey) })
        }

        let asciiURL: String
        let validated =
            configuration.loader(for: url) == nil ? URLValidator.validate(url, s3: configuration.s3) : .success(url)
        switch validated {
        case .failure(let error):
            waiter.deliver(.failure(error), on: callbacks)
            return token
        case .success(let valid):
            asciiURL = valid
        }

        let policy = request.readPolicy
        let key = request.cacheKey(base: base)
        let asked = DispatchTime.now().uptimeNanoseconds
        if policy.contains(.memory), answerFromMemory(waiter, key: key, base: base, asked: asked, on: callbacks) {
            return token
        }
        guard policy.contains(.disk) else {
            proceedToNetwork(
                waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks,
                revalidating: revalidating)
            return token
        }
        lookUp(
            waiter, key: key, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks, asked: asked,
            revalidating: revalidating)
        return token
    }

    /// A memory hit for `waiter`: the image itself, or a variant's original to make it from (on the caller's
    /// thread); false when memory has neither.
    private func answerFromMemory(
        _ waiter: Waiter, key: String, base: String, asked: UInt64, on callbacks: DispatchQueue
    ) -> Bool {
        let image = cache.memoryImage(forKey: key)
        let original = image == nil && waiter.options.isVariant ? cache.memoryOrPendingImage(forKey: base) : nil
        guard image != nil || original != nil else { return false }
        let metrics = DWDownloadMetrics.cacheHit(waiter.token.url, .memory, since: asked, lookupStarted: asked)
        if let image {
            deliver(.success(image.from(.memory, metrics: metrics)), to: waiter, metrics: metrics, on: callbacks)
        } else if let original {
            report(metrics, on: callbacks)  // the original's hit; the variant's completion follows
            makeVariant(from: original.from(.memory, metrics: metrics), for: [waiter], callbacks: callbacks)
        }
        return true
    }

    /// Cancels one caller: it completes with 10007 at once; the download stops only if no caller is left, and a
    /// variant's transform is skipped (queued) or stopped (running) when it was its last caller.
    public func cancel(_ token: DWWebImageToken) {
        let (lookingUp, downloader, callbacks, orphaned) = state.withLock { s in
            var orphaned: DWWorkCancellation?
            var found = s.lookups.removeValue(forKey: token.id)
            if found == nil, let waiter = s.transformWaiters.removeValue(forKey: token.id) {
                found = waiter
                orphaned = Self.dropTransformWaiter(waiter, from: &s)
            }
            return (found, s.downloaders[token.cacheKey], s.callbackQueue, orphaned)
        }
        orphaned?.cancel()  // the last caller of a variant: skip or stop its transform
        if let lookingUp {
            lookingUp.deliver(.failure(.cancelled(token.url)), on: callbacks)
        } else if let downloader {
            downloader.cancelWaiter(token)
            callersChanged(key: token.cacheKey)  // its priority stops counting
        }
    }

    /// Cancels the whole download for `url` (its key after the manager's key filter): every caller waiting for it
    /// gets 10007, and a Stop notification is posted.
    public func removeOperation(byURL url: String) {
        let key = configuration.cacheKeyFilter?.key(for: url) ?? url
        let downloader = state.withLock { $0.downloaders[key] ?? $0.downloaders[url] }
        downloader?.cancelAll()
    }

    /// Cancels every download and stops the transfer engine's thread. The manager is unusable afterwards
    /// (new requests fail with 10007). For tests and orderly shutdown of servers. Blocks the caller until every
    /// running operation has ended: never call it on the callback queue or from a completion.
    public func invalidate() {
        let downloaders = state.withLock { s -> [DWWebImageDownloader] in
            s.invalidated = true
            return Array(s.downloaders.values)
        }
        for downloader in downloaders { downloader.cancelAll() }
        startQueue.sync {}  // operations handed a slot before the cancel have started (and finished at once)
        runningOperations.wait()
        lazyEngine.shutdown()
    }

    /// The most transfers libcurl has had in flight at once for this manager (diagnostics and tests).
    var maxTransfersInFlight: Int { lazyEngine.started?.maxActiveCount.value ?? 0 }

    /// Downloads in flight or waiting for a slot, by URL.
    public var activeDownloadCount: Int { state.withLock { $0.downloaders.count } }

    /// Callers attached to the download of `url`, not yet answered (tests).
    func waiterCount(forURL url: String) -> Int { state.withLock { $0.downloaders[url] }?.waiterCount ?? 0 }

    /// Downloads waiting for a slot, and downloads holding one (tests).
    var scheduledCounts: (waiting: Int, running: Int) {
        state.withLock { ($0.scheduler.waitingCount, $0.scheduler.runningCount) }
    }

    // MARK: - Internals

    /// A result that needs no download (a cache hit, a refusal): its metrics, if any, then the completion, in one
    /// block on `queue`.
    func deliver(
        _ result: Result<DWImage, DWWebImageError>, to waiter: Waiter, metrics: DWDownloadMetrics?,
        on queue: DispatchQueue, then: (@Sendable () -> Void)? = nil
    ) {
        let handler = metrics == nil ? nil : state.withLock { $0.metricsHandler }
        guard let handler, let metrics else {
            waiter.deliver(result, on: queue, then: then)
            return
        }
        queue.async {
            DWHopTrace.arrive("callback queue")
            handler(metrics)
            if waiter.claim() { waiter.callCompletion(result) }
            then?()
        }
    }

    // MARK: - Metrics

    /// Hands a record to the metrics handler, on the callback queue.
    func report(_ metrics: DWDownloadMetrics, on queue: DispatchQueue) {
        guard let handler = state.withLock({ $0.metricsHandler }) else { return }
        queue.async { handler(metrics) }
    }
}
