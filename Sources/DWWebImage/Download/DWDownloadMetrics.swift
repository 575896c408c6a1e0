// DWDownloadMetrics: what one download cost — attempts, bytes, status, time.
import Foundation

/// A record of one network download, attached to the image it produced (``DWImage/metrics``).
public struct DWDownloadMetrics: Sendable, Equatable {
    /// Attempts made (1 when the first one succeeded).
    public var attempts: Int
    /// Bytes the final attempt started from (a resumed download); 0 for a full download.
    public var resumedFrom: Int64
    /// Body bytes received over all attempts.
    public var bytesReceived: Int64
    /// HTTP status of the final response.
    public var httpStatus: Int
    /// Seconds from the download's start to its end, retries included.
    public var elapsed: TimeInterval
}
