// DWDownloadMetrics.cacheHit: the record of a request answered from the memory or disk cache.
import Foundation

extension DWDownloadMetrics {
    /// A cache hit's record: no attempt, no bytes received; `queued` from when it was asked (`asked`) to when the
    /// lookup started, `elapsed` from then to now (uptime nanoseconds). Pure: any thread.
    static func cacheHit(
        _ url: String, _ source: DWImageSource, since asked: UInt64, lookupStarted: UInt64
    ) -> DWDownloadMetrics {
        let now = DispatchTime.now().uptimeNanoseconds
        var metrics = DWDownloadMetrics(
            url: url, source: source, attempts: 0, resumedFrom: 0, bytesReceived: 0,
            httpStatus: 0, elapsed: Double(now &- lookupStarted) / 1e9)
        metrics.queued = Double(lookupStarted &- asked) / 1e9
        return metrics
    }
}
