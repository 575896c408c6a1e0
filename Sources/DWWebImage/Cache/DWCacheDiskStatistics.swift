// DWCacheDiskStatistics: what a cache space holds on disk (dwfetch --cache-stats).
import Foundation

/// A snapshot of one cache space on disk.
public struct DWCacheDiskStatistics: Sendable, Equatable {
    /// The cache space's name.
    public var space: String
    /// Its directory.
    public var directory: URL
    /// Entries on disk.
    public var entryCount: Int
    /// Bytes they take (entry files, headers included).
    public var totalBytes: Int64
    /// The disk budget (0 = none).
    public var limit: Int64
    /// When the oldest entry was written; nil when empty.
    public var oldest: Date?
    /// When the newest entry was written; nil when empty.
    public var newest: Date?
}
