// DWWebImageManager: the DW entry point — cache first, else join the in-flight download, else a new operation.
import Foundation
import DWLocking

/// The entry point of the pipeline.
///
/// For each request: answer from the cache (memory, then disk) unless told not to; else attach the caller to the
/// in-flight ``DWWebImageDownloader`` for that URL (its callback array); else create a ``DWWebImageOperation`` on
/// an `OperationQueue` limited to ``maxConcurrentDownloads``. Among operations still waiting, the newest starts first
/// (per priority level), while every slot stays busy: see ``StartMarker``.
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
/// Thread safety: all bookkeeping lives in `state`, one Mutex; no user code runs while it is held.
public final class DWWebImageManager: Sendable {
    /// The process-wide manager, using ``DWWebImageCache/shared`` and `NotificationCenter.default`.
    public static let shared = DWWebImageManager()

    /// The cache consulted first and filled after each download.
    public let cache: DWWebImageCache
    /// Where notifications are posted.
    public let notificationCenter: NotificationCenter

    private struct State {
        var downloaders: [String: DWWebImageDownloader] = [:]
        var waiting: [Int: [DWWebImageOperation]] = [:]  // per lane, oldest first: not yet started
        var lookups: [UInt64: Waiter] = [:]  // callers in the disk lookup, not yet attached to a downloader
        var nextTokenID: UInt64 = 0
        var callbackQueue: DispatchQueue
        var configuration: Configuration
        var invalidated = false
    }
    private let state: DWLock<State>
    private let engine: CurlMulti
    private let queue: OperationQueue
    // Serial: disk lookups finish in call order, so newest-first scheduling sees callers in the order they asked.
    private let lookupQueue = DispatchQueue(label: "DWWebImage.lookup", qos: .userInitiated)
    private let processingQueue = DispatchQueue(label: "DWWebImage.processing", qos: .userInitiated, attributes: .concurrent)

    /// Creates a manager with its own transfer engine and operation queue.
    /// - Parameters:
    ///   - cache: the cache to read and fill (default ``DWWebImageCache/shared``).
    ///   - configuration: timeouts and limits.
    ///   - notificationCenter: where notifications are posted (default `.default`).
    ///   - callbackQueue: where completions, progress and notifications are delivered; default a serial queue the
    ///     library owns (a CLI or server on Linux often never drains the main queue).
    ///   - removeExpiredAtStart: sweep expired disk entries in the background now, as DW does.
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
        queue.maxConcurrentOperationCount = 6
        if removeExpiredAtStart {
            DispatchQueue.global(qos: .utility).async { [cache] in
                cache.removeExpiredCache()
                PartialStore(directory: cache.rootDirectory.appendingPathComponent("partial"))
                    .removeExpired(maxAge: cache.expirationTime)
            }
        }
    }

    deinit {
        engine.shutdown()
    }

    // MARK: - Settings

    /// How many downloads run at once (default 6).
    public var maxConcurrentDownloads: Int {
        get { queue.maxConcurrentOperationCount }
        set { queue.maxConcurrentOperationCount = max(1, newValue) }
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
        let token = DWWebImageToken(url: url, id: id) { [weak self] token in self?.cancel(token) }
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
            if policy.contains(.memory), let image = cache.memoryImage(forKey: url) {
                finishEarly(waiter, .success(image.from(.memory)), on: callbacks)
                return token
            }
            if policy.contains(.disk) {
                state.withLock { $0.lookups[id] = waiter }
                lookupQueue.async { [self] in
                    guard !waiter.isDelivered else { return }  // cancelled during the lookup
                    if let hit = cache.diskImage(forKey: url, maxPixelCount: configuration.maxPixelCount) {
                        if policy.contains(.memory) { cache.storeInMemory(hit.image, forKey: url) }
                        finishEarly(waiter, .success(hit.image.from(.disk)), on: callbacks)
                    } else {
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
        } else {
            downloader?.cancelWaiter(token)
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
                                  callbacks: DispatchQueue) {
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
            if let existing = s.downloaders[url], existing.attach(waiter) { return .joined }
            let downloader = DWWebImageDownloader(url: url, context: makeContext(
                for: waiter, asciiURL: asciiURL, configuration: configuration, callbacks: callbacks))
            _ = downloader.attach(waiter)
            s.downloaders[url] = downloader
            let lane = Self.lane(for: waiter.options)
            let operation = DWWebImageOperation(downloader: downloader, lane: lane) { [weak self] op in
                self?.operationWillStart(op)
            }
            downloader.setOperation(operation)
            operation.queuePriority = lane > 0 ? .high : lane < 0 ? .low : .normal
            // Newest first: the newest operation still waiting in this lane may start only once this one has started.
            if let newestWaiting = s.waiting[lane]?.last { operation.startMarker.gate(newestWaiting) }
            s.waiting[lane, default: []].append(operation)
            return .created(operation)
        }
        switch step {
        case .created(let operation): queue.addOperation(operation)
        case .invalidated: waiter.deliver(.failure(.cancelled(url)), on: callbacks)
        case .joined, .gone: break
        }
    }

    /// Partial bodies live beside the cache spaces, under the cache root.
    private var partialStore: PartialStore {
        PartialStore(directory: cache.rootDirectory.appendingPathComponent("partial"))
    }

    private func makeContext(for waiter: Waiter, asciiURL: String, configuration: Configuration,
                             callbacks: DispatchQueue) -> DownloadContext {
        var headers = configuration.requestHeaders
        headers.merge(waiter.options.requestHeaders) { $1 }
        var request = TransferRequest(url: asciiURL)
        request.headers = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        request.timeout = configuration.timeout
        request.connectTimeout = configuration.connectTimeout
        request.stallTimeout = configuration.stallTimeout
        request.maxBodySize = configuration.maxBodySize
        request.maxRedirects = configuration.maxRedirects
        request.userAgent = configuration.userAgent
        var policy = cache.cachePolicy
        if waiter.options.contains(.noCache) { policy = [] }
        if waiter.options.contains(.cacheMemoryOnly) { policy.remove(.disk) }
        return DownloadContext(
            engine: engine, cache: cache, notificationCenter: notificationCenter, callbackQueue: callbacks,
            processingQueue: processingQueue, request: request, storePolicy: policy,
            maxPixelCount: configuration.maxPixelCount,
            retryPolicy: configuration.retryPolicy,
            partialStore: policy.contains(.disk) ? partialStore : nil,
            progressInterval: UInt64(max(0, configuration.progressInterval) * 1e9),
            didEnd: { [weak self] downloader in
                self?.state.withLock { s in
                    if s.downloaders[downloader.url] === downloader { s.downloaders[downloader.url] = nil }
                }
            })
    }

    private func operationWillStart(_ operation: DWWebImageOperation) {
        state.withLock { s in
            guard var lane = s.waiting[operation.lane] else { return }
            if let index = lane.lastIndex(where: { $0 === operation }) { lane.remove(at: index) }
            s.waiting[operation.lane] = lane.isEmpty ? nil : lane
        }
    }

    private static func lane(for options: DWWebImageOptions) -> Int {
        if options.contains(.highPriority) { return 1 }
        if options.contains(.lowPriority) { return -1 }
        return 0
    }
}
