// DownloadContext: what a downloader needs from its manager; Revalidation: the expired entry it revalidates.
import Foundation

/// An expired disk entry being revalidated.
struct Revalidation: Sendable {
    let image: DWImage
    let metadata: DWCacheEntryMetadata
}

/// What a downloader needs from its manager.
struct DownloadContext: Sendable {
    let engine: CurlMulti
    let cache: DWWebImageCache
    let notificationCenter: NotificationCenter
    let callbackQueue: DispatchQueue
    /// Where finished transfers too big or too slow for the engine thread are judged and validated (concurrent; off
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
    /// Tells the manager, once per downloader, that it takes no new callers and holds no slot.
    let didEnd: @Sendable (DWWebImageDownloader) -> Void
    /// Hands the downloaded original and the callers of each variant (grouped by variant) to the manager.
    let makeVariants: @Sendable (DWImage, [[Waiter]]) -> Void
    /// The manager's metrics handler, read when a download ends.
    let metricsHandler: @Sendable () -> (@Sendable (DWDownloadMetrics) -> Void)?
    /// `host:port`, for the per-host connection cap.
    let hostKey: String
    /// Disk writes run at the end of the download's callback block on `callbackQueue`, not on the cache's write
    /// queue (``DWWebImageManager/writesCacheInCallbacks``).
    var writesCacheInCallbacks = false
    /// Bytes a resumable body keeps in memory before it moves to ``partialStore``.
    var partialSpillThreshold = PartialBody.defaultSpillThreshold
}
