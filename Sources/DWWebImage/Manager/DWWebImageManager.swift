// DWWebImageManager: the DW entry point — cache first, else join the in-flight download, else a new operation.
import Foundation
import DWLocking

/// The entry point of the pipeline.
///
/// For each request: answer from the cache (memory, then disk) unless told not to; else attach the caller to the
/// in-flight ``DWWebImageDownloader`` for that URL (its callback array); else create a ``DWWebImageOperation`` on
/// an `OperationQueue`. Each operation waits in the manager's scheduler and enters the queue when it is given one
/// of the ``maxConcurrentDownloads`` slots: the highest priority first (a shared download counts its most urgent caller),
/// the newest first within a priority, at most ``maxConcurrentDownloadsPerHost`` per host and
/// ``maxConcurrentPrefetches`` for downloads only the prefetcher wants. The choice is made each time a slot frees,
/// so every slot stays busy and a priority raised while waiting counts at the next free slot.
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
/// Thread safety: all bookkeeping (downloaders by URL, the waiting and running operations, settings) lives in
/// `state`, one lock; no user code runs while it is held. Lock order: manager, then downloader.
public final class DWWebImageManager: Sendable {
    /// The process-wide manager, using ``DWWebImageCache/shared`` and `NotificationCenter.default`.
    public static let shared = DWWebImageManager()

    /// The cache consulted first and filled after each download.
    public let cache: DWWebImageCache
    /// Where notifications are posted.
    public let notificationCenter: NotificationCenter

    private struct State {
        var downloaders: [String: DWWebImageDownloader] = [:]
        var scheduler = DownloadScheduler()
        var lookups: [UInt64: Waiter] = [:]  // callers in the disk lookup, not yet attached to a downloader
        var nextTokenID: UInt64 = 0
        var callbackQueue: DispatchQueue
        var configuration: Configuration
        var metricsHandler: (@Sendable (DWDownloadMetrics) -> Void)?
        var invalidated = false
    }

    private let state: DWLock<State>
    private let engine: CurlMulti
    private let queue: OperationQueue
    // Serial: disk lookups finish in call order, so newest-first scheduling sees callers in the order they asked.
    private let lookupQueue = DispatchQueue(label: "DWWebImage.lookup", qos: .userInitiated)
    /// Disk hits handed to the callback queue and not yet consumed (at most 32; see the disk lookup).
    private let diskHitsInFlight = DispatchSemaphore(value: 32)
    private let processingQueue = DispatchQueue(label: "DWWebImage.processing", qos: .userInitiated, attributes: .concurrent)

    /// Creates a manager with its own transfer engine and operation queue.
    /// - Parameters:
    ///   - cache: the cache to read and fill (default ``DWWebImageCache/shared``).
    ///   - configuration: timeouts and limits.
    ///   - notificationCenter: where notifications are posted (default `.default`).
    ///   - callbackQueue: where completions, progress and notifications are delivered; default a serial queue the
    ///     library owns (a CLI or server on Linux often never drains the main queue).
    ///   - removeExpiredAtStart: sweep expired disk entries in the background now, as DW does (at most once an
    ///     hour per cache space, across processes).
    public init(cache: DWWebImageCache = .shared, configuration: Configuration = Configuration(),
                notificationCenter: NotificationCenter = .default, callbackQueue: DispatchQueue? = nil,
                removeExpiredAtStart: Bool = true) {
        self.cache = cache
        self.notificationCenter = notificationCenter
        let callbacks = callbackQueue ?? DispatchQueue(label: "DWWebImage.callbacks", qos: .userInitiated)
        self.state = DWLock(State(callbackQueue: callbacks, configuration: configuration))
        self.engine = CurlMulti()
        self.queue = OperationQueue()
        queue.name = "DWWebImage.downloads"
        // The scheduler hands out the slots: an operation enters the queue only when it has one.
        queue.maxConcurrentOperationCount = OperationQueue.defaultMaxConcurrentOperationCount
        if removeExpiredAtStart {
            DispatchQueue.global(qos: .utility).async { [cache] in
                cache.removeExpiredCacheIfDue()
                PartialStore(cacheRoot: cache.rootDirectory).removeExpired(maxAge: cache.expirationTime)
            }
        }
    }

    deinit {
        engine.shutdown()
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

    /// Called with the record of every finished request — network downloads (success or failure) and cache hits —
    /// on ``callbackQueue``.
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
    public func downloadImage(withURL url: String, options: DWWebImageOptions = [],
                              progress: (@Sendable (_ received: Int64, _ expected: Int64) -> Void)? = nil,
                              completion: @escaping @Sendable (Result<DWImage, DWWebImageError>) -> Void)
        -> DWWebImageToken {
        let (id, callbacks, configuration) = state.withLock { s -> (UInt64, DispatchQueue, Configuration) in
            s.nextTokenID += 1
            return (s.nextTokenID, s.callbackQueue, s.configuration)
        }
        let token = DWWebImageToken(url: url, id: id, priority: options.priority,
                                    canceller: { [weak self] token in self?.cancel(token) },
                                    reprioritize: { [weak self] in self?.callersChanged(url: url) })
        let waiter = Waiter(token: token, options: options, progress: progress, completion: completion)

        let asciiURL: String
        switch URLValidator.validate(url) {
        case .failure(let error):
            finishEarly(waiter, .failure(error), on: callbacks)
            return token
        case .success(let valid):
            asciiURL = valid
        }

        let useCache = !options.contains(.noCache)
        let policy = cache.cachePolicy
        if useCache && !options.contains(.refreshCached) {
            let asked = DispatchTime.now().uptimeNanoseconds
            if policy.contains(.memory), let image = cache.memoryImage(forKey: url) {
                let metrics = cacheHitMetrics(url, .memory, since: asked, lookupStarted: asked)
                report(metrics, on: callbacks)
                finishEarly(waiter, .success(image.from(.memory, metrics: metrics)), on: callbacks)
                return token
            }
            if policy.contains(.disk) {
                state.withLock { $0.lookups[id] = waiter }
                lookupQueue.async { [self] in
                    guard !waiter.isDelivered else { return }  // cancelled during the lookup
                    let lookupStarted = DispatchTime.now().uptimeNanoseconds
                    var found = cache.diskLookup(forKey: url, maxPixelCount: configuration.maxPixelCount)
                    if case .expired(let image, let metadata) = found, options.contains(.fromCacheOnly) {
                        found = .hit(image, metadata)  // offline: a stale image beats none
                    }
                    switch found {
                    case .hit(let image, _):
                        if policy.contains(.memory) { cache.storeInMemory(image, forKey: url) }
                        let metrics = cacheHitMetrics(url, .disk, since: asked, lookupStarted: lookupStarted)
                        report(metrics, on: callbacks)
                        // Backpressure: disk hits are read faster than most callers consume them; holding every
                        // image in queued completions would make memory grow with the number of requests.
                        diskHitsInFlight.wait()
                        state.withLock { _ = $0.lookups.removeValue(forKey: waiter.token.id) }
                        waiter.deliver(.success(image.from(.disk, metrics: metrics)), on: callbacks) { [diskHitsInFlight] in
                            diskHitsInFlight.signal()
                        }
                    case .expired(let image, let metadata):
                        proceedToNetwork(waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks,
                                         revalidating: Revalidation(image: image, metadata: metadata))
                    case .miss:
                        proceedToNetwork(waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks)
                    }
                }
                return token
            }
        }
        proceedToNetwork(waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks)
        return token
    }

    /// Cancels one caller: it completes with 10007 at once; the download stops only if no caller is left.
    public func cancel(_ token: DWWebImageToken) {
        let (lookingUp, downloader, callbacks) = state.withLock { s in
            (s.lookups.removeValue(forKey: token.id), s.downloaders[token.url], s.callbackQueue)
        }
        if let lookingUp {
            lookingUp.deliver(.failure(.cancelled(token.url)), on: callbacks)
        } else if let downloader {
            downloader.cancelWaiter(token)
            callersChanged(url: token.url)  // its priority stops counting
        }
    }

    /// Cancels the whole download for `url`: every caller waiting for it gets 10007, and a Stop notification is posted.
    public func removeOperation(byURL url: String) {
        let downloader = state.withLock { $0.downloaders[url] }
        downloader?.cancelAll()
    }

    /// Cancels every download and stops the transfer engine's thread. The manager is unusable afterwards
    /// (new requests fail with 10007). For tests and orderly shutdown of servers.
    public func invalidate() {
        let downloaders = state.withLock { s -> [DWWebImageDownloader] in
            s.invalidated = true
            return Array(s.downloaders.values)
        }
        for downloader in downloaders { downloader.cancelAll() }
        queue.waitUntilAllOperationsAreFinished()
        engine.shutdown()
    }

    /// The most transfers libcurl has had in flight at once for this manager (diagnostics and tests).
    var maxTransfersInFlight: Int { engine.maxActiveCount.value }

    /// Downloads in flight or waiting for a slot, by URL.
    public var activeDownloadCount: Int { state.withLock { $0.downloaders.count } }

    // MARK: - Internals

    private func finishEarly(_ waiter: Waiter, _ result: Result<DWImage, DWWebImageError>, on queue: DispatchQueue) {
        state.withLock { _ = $0.lookups.removeValue(forKey: waiter.token.id) }
        waiter.deliver(result, on: queue)
    }

    private func proceedToNetwork(_ waiter: Waiter, asciiURL: String, configuration: Configuration,
                                  callbacks: DispatchQueue, revalidating: Revalidation? = nil) {
        let url = waiter.token.url
        if waiter.options.contains(.fromCacheOnly) {
            finishEarly(waiter, .failure(.notInCache(url)), on: callbacks)
            return
        }
        enum Step { case joined, created(DWWebImageOperation), gone, invalidated }
        // Join the in-flight download, or create one, atomically with respect to other callers and to cancel().
        let step = state.withLock { s -> Step in
            s.lookups[waiter.token.id] = nil
            if waiter.isDelivered { return .gone }  // cancelled during the cache lookup
            if s.invalidated { return .invalidated }
            if let existing = s.downloaders[url], existing.attach(waiter) {
                // Someone asks for it now: if it still waits, it is the newest request for its priority.
                s.scheduler.update(existing, demand: existing.demand.map(DownloadScheduler.Demand.init), asked: true)
                return .joined
            }
            let downloader = DWWebImageDownloader(url: url, context: makeContext(
                for: waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks,
                revalidating: revalidating))
            _ = downloader.attach(waiter)
            s.downloaders[url] = downloader
            let operation = DWWebImageOperation(downloader: downloader) { [weak self] op in
                self?.operationDidFinish(op)
            }
            downloader.setOperation(operation)
            s.scheduler.enqueue(operation, demand: .init(priority: waiter.priority, prefetchOnly: waiter.isPrefetch))
            return .created(operation)
        }
        switch step {
        case .created:
            schedule()
        case .joined:
            schedule()  // its priority may have risen, or a prefetch-only download is now wanted by someone
        case .invalidated:
            waiter.deliver(.failure(.cancelled(url)), on: callbacks)
        case .gone:
            break
        }
    }

    // MARK: - Scheduling

    /// Hands free slots to waiting operations (``DownloadScheduler``): highest priority first (a shared download
    /// counts its most urgent caller still waiting), newest first within a priority, skipping hosts at their cap
    /// and prefetch-only downloads beyond the prefetch cap. An operation enters the `OperationQueue` only when it
    /// has a slot. Runs whenever something changes: a new download, a caller joining or cancelling, a priority
    /// change, a finished operation, a changed limit.
    func schedule() {
        let ready = state.withLock { $0.scheduler.next() }
        for operation in ready { queue.addOperation(operation) }
    }

    /// The callers of `url`'s download changed (a cancel, a priority change): re-file it, then schedule.
    private func callersChanged(url: String) {
        state.withLock { s in
            guard let downloader = s.downloaders[url] else { return }
            s.scheduler.update(downloader, demand: downloader.demand.map(DownloadScheduler.Demand.init), asked: false)
        }
        schedule()
    }

    private func operationDidFinish(_ operation: DWWebImageOperation) {
        state.withLock { $0.scheduler.finished(operation) }
        schedule()
    }

    // MARK: - Metrics

    private func cacheHitMetrics(_ url: String, _ source: DWImageSource, since asked: UInt64,
                                 lookupStarted: UInt64) -> DWDownloadMetrics {
        let now = DispatchTime.now().uptimeNanoseconds
        var metrics = DWDownloadMetrics(url: url, source: source, attempts: 0, resumedFrom: 0, bytesReceived: 0,
                                        httpStatus: 0, elapsed: Double(now &- lookupStarted) / 1e9)
        metrics.queued = Double(lookupStarted &- asked) / 1e9
        return metrics
    }

    private func report(_ metrics: DWDownloadMetrics, on queue: DispatchQueue) {
        guard let handler = state.withLock({ $0.metricsHandler }) else { return }
        queue.async { handler(metrics) }
    }

    /// Partial bodies live beside the cache spaces, under the cache root.
    private var partialStore: PartialStore {
        PartialStore(cacheRoot: cache.rootDirectory)  // the root is a cache setting that can change: no stored copy
    }

    private func makeContext(for waiter: Waiter, asciiURL: String, configuration: Configuration,
                             callbacks: DispatchQueue, revalidating: Revalidation?) -> DownloadContext {
        var headers = configuration.requestHeaders
        headers.merge(waiter.options.requestHeaders) { $1 }
        if let revalidating {
            // RFC 9110 §13.1: If-None-Match when there is an ETag; If-Modified-Since otherwise.
            if let etag = revalidating.metadata.etag {
                headers["If-None-Match"] = etag
            } else if let lastModified = revalidating.metadata.lastModified {
                headers["If-Modified-Since"] = lastModified
            }
        }
        var request = TransferRequest(url: asciiURL)
        request.headers = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        request.timeout = configuration.timeout
        request.connectTimeout = configuration.connectTimeout
        request.stallTimeout = configuration.stallTimeout
        request.maxBodySize = configuration.maxBodySize
        request.maxRedirects = configuration.maxRedirects
        request.userAgent = configuration.userAgent
        request.tls = configuration.tls
        (request.proxy, request.noProxy) = (configuration.proxy, configuration.noProxy)
        var policy = cache.cachePolicy
        if waiter.options.contains(.noCache) { policy = [] }
        if waiter.options.contains(.cacheMemoryOnly) { policy.remove(.disk) }
        return DownloadContext(
            engine: engine, cache: cache, notificationCenter: notificationCenter, callbackQueue: callbacks,
            processingQueue: processingQueue, request: request, storePolicy: policy,
            maxPixelCount: configuration.maxPixelCount,
            revalidation: revalidating,
            retryPolicy: configuration.retryPolicy,
            partialStore: policy.contains(.disk) ? partialStore : nil,
            progressInterval: UInt64(max(0, configuration.progressInterval) * 1e9),
            didEnd: { [weak self] downloader in
                guard let self else { return }
                state.withLock { s in
                    if s.downloaders[downloader.url] === downloader { s.downloaders[downloader.url] = nil }
                    s.scheduler.remove(downloader)  // a download cancelled while it waited gives up its place
                }
                schedule()
            },
            reportMetrics: { [weak self] metrics in
                guard let self else { return }
                report(metrics, on: callbacks)
            },
            hostKey: Self.hostKey(asciiURL))
    }

    /// `host:port` of a validated URL (default ports by scheme).
    static func hostKey(_ url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host?.lowercased() else { return url }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
    }
}
