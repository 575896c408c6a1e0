// CacheEntryMetadata: what an on-disk entry records besides the bytes (for validation and later revalidation).
import Foundation

/// What a disk entry knows about the response it came from.
public struct DWCacheEntryMetadata: Sendable, Equatable {
    /// When the entry was written, as read back: the entry file's modification time, the one clock that expiry,
    /// the sweep and the statistics use (so `touch` renews an entry and `find -mtime` sees its age). The time in
    /// the entry's header is a record of the write only.
    public var storedAt: Date
    /// The response's ETag, for revalidation.
    public var etag: String?
    /// The response's Last-Modified, for revalidation.
    public var lastModified: String?
    /// The response's Content-Type.
    public var contentType: String?
    /// The response's Cache-Control, verbatim; acted on only when `configuration.honorsCacheControl` is on.
    public var cacheControl: String?
    /// The response's Expires, verbatim; kept for a server to pass on (never acted on by the cache).
    public var expires: String?

    /// Creates metadata; `storedAt` defaults to now.
    public init(
        storedAt: Date = Date(), etag: String? = nil, lastModified: String? = nil, contentType: String? = nil,
        cacheControl: String? = nil, expires: String? = nil
    ) {
        self.expires = expires
        self.storedAt = storedAt
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.cacheControl = cacheControl
    }
}
