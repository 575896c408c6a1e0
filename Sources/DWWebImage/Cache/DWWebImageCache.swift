// DWWebImageCache: the DW cache — an LRU in memory (DW's NSCache limits) plus self-validating files on disk, per cache
// space.
import DWFileIO
import Foundation
import DWLocking

/// Memory and disk cache for downloaded images.
///
/// - Memory: an LRU bounded by entry count and bytes (cost = bytes held), DW's `NSCache` limits.
/// - Disk: one file per key under `<rootDirectory>/<cacheSpace>/`, named by a digest of the key
///   (``keyDigest``: MD5 by default, SHA-1 or SHA-256) when ``useSecureKey`` is on. Writes are serialised by a
///   semaphore (as in DW) and atomic (an unnamed `O_TMPFILE` given its name by `linkat`, or a temp file renamed in the
///   same directory), so readers in this or another process never see a torn entry. Each file carries its key, its
///   length and CRC-32Cs; a truncated, corrupt or foreign file is a miss and is removed. ``diskSizeLimit`` is held when
///   entries are written (LRU by last read).
/// - Expiry: entries older than ``expirationTime`` by their file's modification time (DW's clock, and the one the
///   sweep and ``diskStatistics()`` read),
///   or than their `Cache-Control` allows when `configuration.honorsCacheControl` is on, are misses (kept for
///   revalidation when they have a validator), and ``removeExpiredCache()`` deletes them.
///
/// Settings are one ``Configuration`` value (``configuration``); DW's names (``cachePolicy``, ``expirationTime``,
/// ``useSecureKey``, ``cacheSpace``) are also properties; the other per-setting properties are deprecated.
///
/// Thread safety: the configuration lives behind one `DWLock` (a leaf: nothing else is locked inside it); disk
/// writes are serialised by `writeSemaphore`, inside which the space's `flock` is taken; the memory layer has its own
/// lock (a leaf); ``ReadTouches`` and ``DiskLockFiles`` have their own locks (leaves).
public final class DWWebImageCache: Sendable {
    /// The process-wide cache: `$XDG_CACHE_HOME/dwwebimage` (else `~/.cache/dwwebimage`), space "defaultCacheSpace".
    public static let shared = DWWebImageCache()

    /// DW's defaults: 7 days.
    public static let defaultExpirationTime: TimeInterval = 7 * 24 * 60 * 60
    /// Default disk budget per cache space: 1 GiB.
    public static let defaultDiskSizeLimit: Int64 = 1 << 30

    /// Every setting of a cache, as one value (read or replaced at once under the cache's lock).
    public struct Configuration: Sendable, Equatable {
        /// Where cache spaces live (default ``DWWebImageCache/defaultRootDirectory()``).
        public var rootDirectory: URL
        /// The namespace entries are read from and written to; default "defaultCacheSpace".
        public var cacheSpace: String
        /// Which layers are used; default `[.memory, .disk]`.
        public var cachePolicy: DWWebImageCachePolicy = [.memory, .disk]
        /// Age after which disk entries are stale (seconds); default 7 days.
        public var expirationTime: TimeInterval = DWWebImageCache.defaultExpirationTime
        /// Name files by a digest of their key (default true); when false, keys are percent-encoded into names.
        public var useSecureKey = true
        /// The digest that names files when ``useSecureKey`` is on (default `.md5`, as DW).
        public var keyDigest: DWCacheKeyDigest = .md5
        /// How entries are stored on disk (default `.auto`).
        public var compression: DWCacheCompression = .auto
        /// The disk budget of a cache space in bytes (default 1 GiB; 0 = none).
        public var diskSizeLimit: Int64 = DWWebImageCache.defaultDiskSizeLimit
        /// Whether responses' `Cache-Control` shortens freshness (default false).
        public var honorsCacheControl = false
        /// Entry files 0600 and the directories the cache creates (root, space, `partial`) 0700, so no other local
        /// user reads what was fetched (default false: 0644 and 0755, files a user's own programs share; `dwfetch
        /// serve` turns it on). The space's lock and sweep marker hold no image data and sit inside those directories.
        public var privateFiles = false
        /// Entries stored as they are (not gzipped) are written body-only: the file holds exactly the payload and
        /// the header (key, validators, checksums) lives in the file's extended attribute `user.dwwebimage.entry`,
        /// so an output file can be a hard link or a kernel copy of the entry (`dwfetch -o` does). Default false
        /// (the header first in the file). Where the file system keeps no user attributes the header goes in the
        /// file anyway. Readers take both layouts whatever this says.
        public var bodyOnlyEntries = false
        /// Most entries the memory cache keeps (DW: 20).
        public var memoryCountLimit = 20
        /// Most bytes the memory cache keeps (DW: 5 MB).
        public var memoryCostLimit = 5 * 1024 * 1024
        /// Seconds a memory-cache entry is answered after it was put there (a disk hit counts from when it was read);
        /// 0 (default, DW's NSCache): until evicted. `dwfetch serve` sets its ``expirationTime``, so that a copy in
        /// memory expires as its disk entry does.
        public var memoryMaxAge: TimeInterval = 0
        /// Bytes of decoded bitmaps kept (cost = bytesPerRow × height); default ``defaultDecodedCostLimit``
        /// (proportional to physical memory); 0 = no decoded tier.
        public var decodedCostLimit = DWWebImageCache.defaultDecodedCostLimit
        /// Most decoded bitmaps kept; default 0 = no count limit.
        public var decodedCountLimit = 0

        /// The defaults, under `rootDirectory` (default ``DWWebImageCache/defaultRootDirectory()``).
        public init(rootDirectory: URL? = nil, cacheSpace: String = "defaultCacheSpace") {
            self.rootDirectory = rootDirectory ?? DWWebImageCache.defaultRootDirectory()
            self.cacheSpace = cacheSpace
        }

        /// `<root>/partial` as a string.
        fileprivate var partialPath: String {
            let root = rootDirectory.path
            return root + (root.hasSuffix("/") ? "" : "/") + "partial"
        }

        /// `<root>/<space>/` as a string.
        fileprivate var spacePath: String {
            var dir = rootDirectory.path
            if !dir.hasSuffix("/") { dir += "/" }
            return dir + CacheKey.directoryName(forSpace: cacheSpace) + "/"
        }
    }

    struct Settings {
        var configuration: Configuration {
            didSet {
                spacePath = configuration.spacePath
                spaceDirectory = String(spacePath.utf8.dropLast())!
                partialPath = configuration.partialPath
            }
        }
        /// `<root>/<space>/` as a string, kept with the configuration it is made of: every lookup needs it, and
        /// URL.path plus the space-name encoding cost more than the rest of building a file name.
        private(set) var spacePath: String
        /// ``spacePath`` without its final `/`, the directory a write creates its file in (String.dropLast walks
        /// the whole path by Characters: ~5 k instructions a write).
        private(set) var spaceDirectory: String
        /// `<root>/partial`, where downloads keep partial bodies (one ``PartialStore`` is made per download).
        private(set) var partialPath: String

        init(_ configuration: Configuration) {
            self.configuration = configuration
            self.spacePath = configuration.spacePath
            self.spaceDirectory = String(spacePath.utf8.dropLast())!
            self.partialPath = configuration.partialPath
        }
    }

    /// `<root>/partial`, the folder of partial downloads beside the cache spaces.
    var partialPath: String { settings.withLock { $0.partialPath } }

    let settings: DWLock<Settings>
    let memory: MemoryCache
    /// The decoded tier: bitmaps by key (``decodedBitmap(forKey:)``), and its hit and miss counters.
    let decoded: MemoryCache
    let decodedCounters = DWLock((hits: 0, misses: 0))
    let writeSemaphore = DispatchSemaphore(value: 1)
    let pendingWrites = DispatchGroup()
    /// Downloaded images whose disk write is queued, findable by key until it is done (``memoryOrPendingImage``).
    let pendingImages = DWLock(PendingImages())
    /// The pipeline's disk writes, one at a time in the order handed over: one thread, not one thread blocked on
    /// `writeSemaphore` per write (each with its own malloc arena).
    let writeQueue = DispatchQueue(label: "DWWebImage.cache.writes", qos: .userInitiated)
    /// Writes handed to `writeQueue` and not done yet, at most 16: downloads faster than the disk wait here (on the
    /// work queue, after their slot was freed and their callers answered) rather than pile images up in memory.
    let writeBacklog = DispatchSemaphore(value: 16)
    /// The spaces' lock files, kept open between writes (``DiskLockFiles``).
    let lockFiles = DiskLockFiles()
    /// The paths of the keys named last (``EntryNames``): a write after its lookup does not digest the key again.
    let entryNames = EntryNames()
    /// Which entries this process marked as read in the last minute (LRU atimes; see ``ReadTouches``).
    let readTouches = ReadTouches()
    /// Where DidClean notifications are posted (the cache has no caller's queue of its own).
    let notifyQueue = DispatchQueue(label: "DWWebImage.cache.notifications")
    let notificationCenter: NotificationCenter

    /// Creates a cache with `configuration`.
    /// - Parameter notificationCenter: where ``Notification/Name/DWWebImageCacheComplete`` is posted.
    public init(configuration: Configuration, notificationCenter: NotificationCenter = .default) {
        self.settings = DWLock(Settings(configuration))
        self.memory = MemoryCache(countLimit: configuration.memoryCountLimit, costLimit: configuration.memoryCostLimit)
        memory.maxAge = configuration.memoryMaxAge
        self.decoded = MemoryCache(
            countLimit: configuration.decodedCountLimit, costLimit: configuration.decodedCostLimit)
        self.notificationCenter = notificationCenter
    }

    /// Creates a cache.
    /// - Parameters:
    ///   - rootDirectory: where cache spaces live; default `$XDG_CACHE_HOME/dwwebimage`, else `~/.cache/dwwebimage`.
    ///   - cacheSpace: the namespace (a subdirectory) entries go to.
    ///   - memoryCountLimit: most entries kept in memory (DW: 20).
    ///   - memoryCostLimit: most bytes kept in memory (DW: 5 MB).
    ///   - notificationCenter: where ``Notification/Name/DWWebImageCacheComplete`` is posted.
    public convenience init(
        rootDirectory: URL? = nil, cacheSpace: String = "defaultCacheSpace",
        memoryCountLimit: Int = 20, memoryCostLimit: Int = 5 * 1024 * 1024,
        notificationCenter: NotificationCenter = .default
    ) {
        var configuration = Configuration(rootDirectory: rootDirectory, cacheSpace: cacheSpace)
        configuration.memoryCountLimit = memoryCountLimit
        configuration.memoryCostLimit = memoryCostLimit
        self.init(configuration: configuration, notificationCenter: notificationCenter)
    }

    /// `$XDG_CACHE_HOME/dwwebimage` when set and absolute, else `~/.cache/dwwebimage`.
    public static func defaultRootDirectory() -> URL {
        // getenv, not ProcessInfo's environment: that copies every variable into a dictionary (~0.2 M
        // instructions a call, twice a dwfetch run).
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        if let xdg = variable("XDG_CACHE_HOME"), xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("dwwebimage", isDirectory: true)
        }
        let home = variable("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/dwwebimage", isDirectory: true)
    }

    // MARK: - Settings (DW names)

    /// All settings at once: read them together, or set several under one lock
    /// (`cache.configuration.cacheSpace = …` also works, one setting at a time). Later reads and writes use them.
    public var configuration: Configuration {
        get { settings.withLock { $0.configuration } }
        set {
            settings.withLock { $0.configuration = newValue }
            memory.countLimit = newValue.memoryCountLimit
            memory.costLimit = newValue.memoryCostLimit
            memory.maxAge = newValue.memoryMaxAge
            decoded.countLimit = newValue.decodedCountLimit
            decoded.costLimit = newValue.decodedCostLimit
        }
    }

    private func setting<T>(_ path: KeyPath<Configuration, T>) -> T {
        settings.withLock { $0.configuration[keyPath: path] }
    }
    private func set<T>(_ path: WritableKeyPath<Configuration, T>, _ value: T) {
        settings.withLock { $0.configuration[keyPath: path] = value }
    }

    /// Where cache spaces live (default ``defaultRootDirectory()``). Changing it affects later reads and writes.
    @available(*, deprecated, message: "use configuration.rootDirectory")
    public var rootDirectory: URL {
        get { setting(\.rootDirectory) }
        set { set(\.rootDirectory, newValue) }
    }
    /// Which layers are used; default `[.memory, .disk]`.
    public var cachePolicy: DWWebImageCachePolicy {
        get { setting(\.cachePolicy) }
        set { set(\.cachePolicy, newValue) }
    }
    /// Age after which disk entries are stale (seconds); default 7 days.
    public var expirationTime: TimeInterval {
        get { setting(\.expirationTime) }
        set { set(\.expirationTime, newValue) }
    }
    /// Name files by a digest of their key (``keyDigest``, default MD5; default true). When false, keys are
    /// percent-encoded into names.
    public var useSecureKey: Bool {
        get { setting(\.useSecureKey) }
        set { set(\.useSecureKey, newValue) }
    }
    /// The digest that names files when ``useSecureKey`` is on (default `.md5`, as DW). Changing it orphans
    /// entries written under the old names (they age out).
    @available(*, deprecated, message: "use configuration.keyDigest")
    public var keyDigest: DWCacheKeyDigest {
        get { setting(\.keyDigest) }
        set { set(\.keyDigest, newValue) }
    }
    /// How entries are stored on disk (default `.auto`: gzip only what a sample shows will shrink by 10% or more).
    /// A gzip entry is checked against its CRC-32 and length when read; a mismatch is a miss that removes it.
    @available(*, deprecated, message: "use configuration.compression")
    public var compression: DWCacheCompression {
        get { setting(\.compression) }
        set { set(\.compression, newValue) }
    }
    /// The disk budget of a cache space in bytes (default 1 GiB; 0 = none), enforced when entries are written:
    /// a write that would pass it first evicts the least recently read entries down to 70 % of it. Holds across
    /// processes sharing the directory (a byte ledger in the space's lock file, under an `flock`), to within one
    /// entry.
    @available(*, deprecated, message: "use configuration.diskSizeLimit")
    public var diskSizeLimit: Int64 {
        get { setting(\.diskSizeLimit) }
        set { set(\.diskSizeLimit, max(0, newValue)) }
    }
    /// Whether the responses' `Cache-Control` shortens how long entries stay fresh (default false: every entry
    /// lives ``expirationTime``, as in DW). When on, `no-store` responses are delivered but not written to disk
    /// (an older entry for the URL is removed, and one stored while this was off is stale), `no-cache` entries are
    /// revalidated before every use, and `max-age=N` entries are fresh for min(N, ``expirationTime``) seconds after
    /// they were stored (the response's `Age` is not subtracted; `Expires` is not read). A stale entry with an ETag
    /// or Last-Modified is revalidated (a 304 also updates its Cache-Control), else refetched.
    /// Entries always record the header, so turning this on applies to what is already cached.
    @available(*, deprecated, message: "use configuration.honorsCacheControl")
    public var honorsCacheControl: Bool {
        get { setting(\.honorsCacheControl) }
        set { set(\.honorsCacheControl, newValue) }
    }
    /// The namespace entries are read from and written to; default "defaultCacheSpace".
    public var cacheSpace: String {
        get { setting(\.cacheSpace) }
        set { set(\.cacheSpace, newValue) }
    }
    /// The directory of the current cache space (`<root>/<space>/`, the path every lookup uses). Any thread.
    public var directory: URL { URL(fileURLWithPath: settings.withLock { $0.spacePath }, isDirectory: true) }
    /// Most entries the memory cache keeps.
    @available(*, deprecated, message: "use configuration.memoryCountLimit")
    public var memoryCountLimit: Int {
        get { memory.countLimit }
        set {
            set(\.memoryCountLimit, newValue)
            memory.countLimit = newValue
        }
    }
    /// Most bytes the memory cache keeps.
    @available(*, deprecated, message: "use configuration.memoryCostLimit")
    public var memoryCostLimit: Int {
        get { memory.costLimit }
        set {
            set(\.memoryCostLimit, newValue)
            memory.costLimit = newValue
        }
    }
}
