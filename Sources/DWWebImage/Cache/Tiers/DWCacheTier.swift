// DWCacheTier: one level of the cache as a protocol, and the memory and disk levels of a DWWebImageCache as tiers.
import Foundation

/// One level of the cache (Nuke's `DataCaching`, Kingfisher's `MemoryStorage` / `DiskStorage`, SDWebImage's
/// `SDImageCacheProtocol` in an `SDImageCachesManager`). The manager reads the tiers of
/// ``DWWebImageManager/Configuration/cacheTiers`` in order until one has the key, then fills the tiers before it
/// from that one; a download is stored into every tier. The built-in tiers also keep each entry's validators and
/// age, so that the manager revalidates their stale entries (one conditional request; a 304 refreshes every tier, a
/// 200 replaces the entry); a tier of an app's own keeps bytes alone, always fresh. Its methods run in a Task, off
/// the transfer thread and off the callback queue; a request's reads go one tier at a time, in order. A read that
/// throws counts as a miss (logged); a store that throws is logged as 10008 and the image is still delivered.
/// Called concurrently for different keys: an implementation must be thread-safe.
public protocol DWCacheTier: Sendable {
    /// Stable and short: "memory", "disk", "s3" for the built-ins; what metrics and `willCache` call the tier.
    var name: String { get }
    /// The bytes stored under `key`, or nil when the tier has none.
    func data(forKey key: String) async throws(DWWebImageError) -> Data?
    /// Keeps `data` under `key`, replacing what was there.
    func store(_ data: Data, forKey key: String) async throws(DWWebImageError)
    /// Forgets `key` (nothing stored is not an error).
    func removeData(forKey key: String) async throws(DWWebImageError)
}

/// Transforms (compresses, encrypts…) or refuses (nil) bytes about to be stored in one tier (Nuke's
/// `ImagePipelineDelegate.willCache`, Kingfisher's and SDWebImage's `cacheSerializer`): `tier` is the tier's
/// ``DWCacheTier/name``. Called once per tier and store, write-backs from a lower tier included. Runs synchronously
/// in the task that stores into that tier (never on the callback queue), concurrently for different keys: keep it
/// quick. Bytes it transforms are read back as stored: a tier whose bytes it encrypts must decrypt them itself in
/// ``DWCacheTier/data(forKey:)`` (a hit that is not an image is a miss).
public typealias DWWillCacheHandler = @Sendable (_ data: Data, _ key: String, _ tier: String) -> Data?

/// One tier asked for one request, and whether it had the entry.
public struct DWCacheTierLookup: Sendable, Equatable {
    /// The tier's ``DWCacheTier/name``.
    public var tier: String
    /// Whether the tier had the key (as an image).
    public var hit: Bool

    /// A lookup record.
    public init(tier: String, hit: Bool) {
        self.tier = tier
        self.hit = hit
    }
}

/// The encoded-bytes memory tier of `cache`: its LRU, limits and keys (name "memory"). Reads and writes take the
/// memory layer's lock on the calling thread; they never block on I/O.
public struct DWMemoryCacheTier: DWCacheTier {
    /// The cache whose memory layer this is.
    public let cache: DWWebImageCache

    /// The memory tier of `cache`.
    public init(cache: DWWebImageCache = .shared) { self.cache = cache }

    /// "memory".
    public var name: String { "memory" }

    /// The bytes in `cache`'s memory layer under `key`, or nil.
    public func data(forKey key: String) async throws(DWWebImageError) -> Data? {
        cache.memory.object(forKey: key)?.data
    }

    /// Keeps `data` in `cache`'s memory layer (decoded lazily when the manager reads it).
    public func store(_ data: Data, forKey key: String) async throws(DWWebImageError) {
        cache.memory.set(MemoryEntry(data: data, image: nil), forKey: key)
    }

    /// Drops `key` from `cache`'s memory layer and its decoded tier.
    public func removeData(forKey key: String) async throws(DWWebImageError) {
        cache.memory.removeObject(forKey: key)
        cache.decoded.removeObject(forKey: key)
    }
}

/// The disk tier of `cache` (name "disk"): its space, self-validating entries (a torn, corrupt or foreign file is a
/// miss and is removed), the cross-process budget and expiry (a stale entry is a miss; one with a validator is kept,
/// as the manager's own lookup keeps it). Reads and writes block the calling task's thread on the file system.
public struct DWDiskCacheTier: DWCacheTier {
    /// The cache whose disk layer this is.
    public let cache: DWWebImageCache

    /// The disk tier of `cache`.
    public init(cache: DWWebImageCache = .shared) { self.cache = cache }

    /// "disk".
    public var name: String { "disk" }

    /// The payload of `key`'s fresh disk entry, or nil.
    public func data(forKey key: String) async throws(DWWebImageError) -> Data? {
        guard let (entry, fresh) = cache.findOnDisk(forKey: key), fresh else { return nil }
        return entry.payload
    }

    /// Writes `data` as `key`'s entry (atomically, within the space's budget); a failure is 10008.
    public func store(_ data: Data, forKey key: String) async throws(DWWebImageError) {
        try cache.store(data, forKey: key, policy: [.disk])
    }

    /// Deletes `key`'s disk entry.
    public func removeData(forKey key: String) async throws(DWWebImageError) {
        cache.removeDiskEntry(forKey: key)
    }
}
