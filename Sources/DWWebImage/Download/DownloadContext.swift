// DownloadContext: what a downloader needs from its manager; Revalidation: the expired entry it revalidates.
import Foundation

/// An expired disk entry being revalidated.
struct Revalidation: Sendable {
    let image: DWImage
    let metadata: DWCacheEntryMetadata
}

/// What a downloader needs from its manager. A class: it is made once a download and read from every thread the
/// download touches; as a struct of twenty references each copy cost twenty retains and releases. Immutable.
final class DownloadContext: Sendable {
    let engine: CurlMulti
    let cache: DWWebImageCache
    /// Where the download's notifications are posted; nil: none are (``DWWebImageManager/postsDownloadNotifications``).
    let notificationCenter: NotificationCenter?
    let callbackQueue: DispatchQueue
    /// Where finished transfers too big or too slow for the engine thread are classified and validated (concurrent; off
    /// the engine thread and the callback queue). Disk writes go to the cache's own write queue.
    let workQueue: DispatchQueue
    let request: TransferRequest
    let storePolicy: DWWebImageCachePolicy
    let maxPixelCount: Int
    /// The expired cache entry this download revalidates (conditional request; a 304 serves it).
    let revalidation: Revalidation?
    /// When to try again after a failed attempt.
    let retryPolicy: DWRetryPolicy
    /// Where partial bodies persist between attempts and processes; nil = memory only.
    let partialStore: PartialStore?
    /// Minimum time between progress reports, in nanoseconds.
    let progressInterval: UInt64
    /// The manager: told when the download ends, handed the variants' callers, asked for its metrics handler.
    weak let owner: (any DownloadOwner)?
    /// `host:port`, for the per-host connection cap.
    let hostKey: String
    /// Disk writes run at the end of the download's callback block on `callbackQueue`, not on the cache's write
    /// queue (``DWWebImageManager/writesCacheInCallbacks``).
    let writesCacheInCallbacks: Bool
    /// Bytes a resumable body keeps in memory before it moves to ``partialStore``.
    let partialSpillThreshold: Int
    /// Takes a rate-limit token for a retry and says how long to wait for it (nil: no limit).
    let retryToken: (@Sendable () -> Double)?
    /// The cache tiers the first caller asked before this download (``DWDownloadMetrics/tierLookups``).
    let tierLookups: [DWCacheTierLookup]

    init(
        engine: CurlMulti, cache: DWWebImageCache, notificationCenter: NotificationCenter?,
        callbackQueue: DispatchQueue, workQueue: DispatchQueue, request: TransferRequest,
        storePolicy: DWWebImageCachePolicy, maxPixelCount: Int,
        revalidation: Revalidation?, retryPolicy: DWRetryPolicy, partialStore: PartialStore?, progressInterval: UInt64,
        owner: any DownloadOwner, hostKey: String,
        writesCacheInCallbacks: Bool = false,
        partialSpillThreshold: Int = PartialBody.defaultSpillThreshold,
        retryToken: (@Sendable () -> Double)? = nil, tierLookups: [DWCacheTierLookup] = []
    ) {
        self.engine = engine
        self.cache = cache
        self.notificationCenter = notificationCenter
        self.callbackQueue = callbackQueue
        self.workQueue = workQueue
        self.request = request
        self.storePolicy = storePolicy
        self.maxPixelCount = maxPixelCount
        self.revalidation = revalidation
        self.retryPolicy = retryPolicy
        self.partialStore = partialStore
        self.progressInterval = progressInterval
        self.owner = owner
        self.hostKey = hostKey
        self.writesCacheInCallbacks = writesCacheInCallbacks
        self.partialSpillThreshold = partialSpillThreshold
        self.retryToken = retryToken
        self.tierLookups = tierLookups
    }
}
