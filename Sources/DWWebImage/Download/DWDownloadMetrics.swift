// DWDownloadMetrics: what one request cost — where it came from, attempts, bytes, status, and where time went.
import Foundation

/// A record of one finished request (Imaginary's `trackBytesDownloaded`/`trackError`, Kingfisher's
/// `NetworkMetrics`). Network downloads get one whether they succeed or fail; cache hits get one too
/// (`source` memory or disk, no bytes over the network).
///
/// Delivered to ``DWWebImageManager/metricsHandler``, attached to ``DWImage/metrics`` and to the Finish
/// notification's userInfo under `"metrics"`.
public struct DWDownloadMetrics: Sendable, Equatable {
    /// The URL as the caller gave it.
    public var url: String = ""
    /// Where the result came from.
    public var source: DWImageSource = .network
    /// Attempts made (1 when the first one succeeded; 0 for cache hits).
    public var attempts: Int
    /// Bytes already held when the final attempt started (a resumed download); 0 for a full download.
    public var resumedFrom: Int64
    /// Body bytes received over the network, all attempts together.
    public var bytesReceived: Int64
    /// HTTP status of the final response (0 when none arrived, or for cache hits).
    public var httpStatus: Int
    /// Seconds from the request to the transfer's start (waiting for a slot, or the disk lookup).
    public var queued: TimeInterval = 0
    /// Seconds from the transfer's start to the first response head; nil when none arrived.
    public var timeToFirstByte: TimeInterval?
    /// Seconds from the transfer's start to its end, retries included.
    public var elapsed: TimeInterval
    /// The error code when the request failed.
    public var errorCode: DWWebImageError.Code?
    /// The tiers of ``DWWebImageManager/Configuration/cacheTiers`` asked, in order (the last is the hit, if any);
    /// empty without tiers and with `.noCache` / `.refreshCached`. A hit in the "memory" tier reports ``source``
    /// `.memory`, in any other tier `.disk` (SDWebImage's convention for its additional caches).
    public var tierLookups: [DWCacheTierLookup] = []

    /// Seconds from the request to its end.
    public var total: TimeInterval { queued + elapsed }
}
