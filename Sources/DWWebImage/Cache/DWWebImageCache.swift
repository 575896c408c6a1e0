// DWWebImageCache: the DW cache — an LRU in memory (DW's NSCache limits) plus self-validating files on disk, per cache space.
import DWFileIO
import Foundation
import DWLocking

/// Memory and disk cache for downloaded images.
///
/// - Memory: an LRU bounded by entry count and bytes (cost = bytes held), DW's `NSCache` limits.
/// - Disk: one file per key under `<rootDirectory>/<cacheSpace>/`, named by a digest of the key
///   (``keyDigest``: MD5 by default, SHA-1 or SHA-256) when ``useSecureKey`` is on. Writes are serialised by a semaphore (as in DW) and atomic (an unnamed `O_TMPFILE`
///   given its name by `linkat`, or a temp file renamed in the same directory), so readers in this or another
///   process never see a torn entry. Each file carries its key, its length and CRC-32Cs; a truncated, corrupt or
///   foreign file is a miss and is removed. ``diskSizeLimit`` is held when entries are written (LRU by last read).
/// - Expiry: entries older than ``expirationTime`` by their file's modification time (DW's clock, and the one the
///   sweep and ``diskStatistics()`` read),
///   or than their `Cache-Control` allows when ``honorsCacheControl`` is on, are misses (kept for revalidation when
///   they have a validator), and ``removeExpiredCache()`` deletes them.
///
/// Settings are one ``Configuration`` value (``configuration``), also reachable by DW's property names.
///
/// Thread safety: the configuration lives behind one `DWLock` (a leaf: nothing else is locked inside it); disk
/// writes are serialised by `writeSemaphore`, inside which the space's `flock` is taken; the memory layer has its own
/// lock (a leaf); ``ReadTouches`` has its own lock (a leaf).
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
        /// Most entries the memory cache keeps (DW: 20).
        public var memoryCountLimit = 20
        /// Most bytes the memory cache keeps (DW: 5 MB).
        public var memoryCostLimit = 5 * 1024 * 1024

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

    private struct Settings {
        var configuration: Configuration {
            didSet {
                spacePath = configuration.spacePath
                partialPath = configuration.partialPath
            }
        }
        /// `<root>/<space>/` as a string, kept with the configuration it is made of: every lookup needs it, and
        /// URL.path plus the space-name encoding cost more than the rest of building a file name.
        private(set) var spacePath: String
        /// `<root>/partial`, where downloads keep partial bodies (one ``PartialStore`` is made per download).
        private(set) var partialPath: String

        init(_ configuration: Configuration) {
            self.configuration = configuration
            self.spacePath = configuration.spacePath
            self.partialPath = configuration.partialPath
        }
    }

    /// `<root>/partial`, the folder of partial downloads beside the cache spaces.
    var partialPath: String { settings.withLock { $0.partialPath } }

    private let settings: DWLock<Settings>
    private let memory: MemoryCache
    private let writeSemaphore = DispatchSemaphore(value: 1)
    private let pendingWrites = DispatchGroup()
    /// The pipeline's disk writes, one at a time in the order handed over: one thread, not one thread blocked on
    /// `writeSemaphore` per write (each with its own malloc arena).
    private let writeQueue = DispatchQueue(label: "DWWebImage.cache.writes", qos: .userInitiated)
    /// Writes handed to `writeQueue` and not done yet, at most 16: downloads faster than the disk wait here (on the
    /// work queue, after their slot was freed and their callers answered) rather than pile images up in memory.
    private let writeBacklog = DispatchSemaphore(value: 16)
    /// Which entries this process marked as read in the last minute (LRU atimes; see ``ReadTouches``).
    let readTouches = ReadTouches()
    /// Where DidClean notifications are posted (the cache has no caller's queue of its own).
    private let notifyQueue = DispatchQueue(label: "DWWebImage.cache.notifications")
    private let notificationCenter: NotificationCenter

    /// Creates a cache with `configuration`.
    /// - Parameter notificationCenter: where ``Notification/Name/DWWebImageCacheComplete`` is posted.
    public init(configuration: Configuration, notificationCenter: NotificationCenter = .default) {
        self.settings = DWLock(Settings(configuration))
        self.memory = MemoryCache(countLimit: configuration.memoryCountLimit, costLimit: configuration.memoryCostLimit)
        self.notificationCenter = notificationCenter
    }

    /// Creates a cache.
    /// - Parameters:
    ///   - rootDirectory: where cache spaces live; default `$XDG_CACHE_HOME/dwwebimage`, else `~/.cache/dwwebimage`.
    ///   - cacheSpace: the namespace (a subdirectory) entries go to.
    ///   - memoryCountLimit: most entries kept in memory (DW: 20).
    ///   - memoryCostLimit: most bytes kept in memory (DW: 5 MB).
    ///   - notificationCenter: where ``Notification/Name/DWWebImageCacheComplete`` is posted.
    public convenience init(rootDirectory: URL? = nil, cacheSpace: String = "defaultCacheSpace",
                            memoryCountLimit: Int = 20, memoryCostLimit: Int = 5 * 1024 * 1024,
                            notificationCenter: NotificationCenter = .default) {
        var configuration = Configuration(rootDirectory: rootDirectory, cacheSpace: cacheSpace)
        configuration.memoryCountLimit = memoryCountLimit
        configuration.memoryCostLimit = memoryCostLimit
        self.init(configuration: configuration, notificationCenter: notificationCenter)
    }

    /// `$XDG_CACHE_HOME/dwwebimage` when set and absolute, else `~/.cache/dwwebimage`.
    public static func defaultRootDirectory() -> URL {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("dwwebimage", isDirectory: true)
        }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
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
        }
    }

    private func setting<T>(_ path: KeyPath<Configuration, T>) -> T { settings.withLock { $0.configuration[keyPath: path] } }
    private func set<T>(_ path: WritableKeyPath<Configuration, T>, _ value: T) {
        settings.withLock { $0.configuration[keyPath: path] = value }
    }

    /// Where cache spaces live (default ``defaultRootDirectory()``). Changing it affects later reads and writes.
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
    public var keyDigest: DWCacheKeyDigest {
        get { setting(\.keyDigest) }
        set { set(\.keyDigest, newValue) }
    }
    /// How entries are stored on disk (default `.auto`: gzip only what a sample shows will shrink by 10% or more).
    /// A gzip entry is checked against its CRC-32 and length when read; a mismatch is a miss that removes it.
    public var compression: DWCacheCompression {
        get { setting(\.compression) }
        set { set(\.compression, newValue) }
    }
    /// The disk budget of a cache space in bytes (default 1 GiB; 0 = none), enforced when entries are written:
    /// a write that would pass it first evicts the least recently read entries down to 70 % of it. Holds across
    /// processes sharing the directory (a byte ledger in the space's lock file, under an `flock`), to within one
    /// entry.
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
    public var honorsCacheControl: Bool {
        get { setting(\.honorsCacheControl) }
        set { set(\.honorsCacheControl, newValue) }
    }
    /// The namespace entries are read from and written to; default "defaultCacheSpace".
    public var cacheSpace: String {
        get { setting(\.cacheSpace) }
        set { set(\.cacheSpace, newValue) }
    }
    /// The directory of the current cache space.
    public var directory: URL {
        let c = configuration
        return c.rootDirectory.appendingPathComponent(CacheKey.directoryName(forSpace: c.cacheSpace), isDirectory: true)
    }
    /// Most entries the memory cache keeps.
    public var memoryCountLimit: Int {
        get { memory.countLimit }
        set {
            set(\.memoryCountLimit, newValue)
            memory.countLimit = newValue
        }
    }
    /// Most bytes the memory cache keeps.
    public var memoryCostLimit: Int {
        get { memory.costLimit }
        set {
            set(\.memoryCostLimit, newValue)
            memory.costLimit = newValue
        }
    }

    // MARK: - DW API

    /// Stores `data` under `key` in the layers of ``cachePolicy`` (the disk write is done when this returns).
    /// Failures are dropped, as in DW; use ``store(_:forKey:metadata:policy:)`` to see them.
    public func cacheObj(_ data: Data, forKey key: String) {
        try? store(data, forKey: key, metadata: DWCacheEntryMetadata(), policy: cachePolicy)
    }

    /// The bytes stored under `key`: memory first, then disk (a disk hit is promoted to memory). Nil on a miss,
    /// an expired entry, or a damaged file (which is removed).
    public func objCache(forKey key: String) -> Data? {
        let policy = cachePolicy
        if policy.contains(.memory), let entry = memory.object(forKey: key) { return entry.data }
        guard policy.contains(.disk), let entry = diskEntry(forKey: key) else { return nil }
        if policy.contains(.memory) { memory.set(MemoryEntry(data: entry.payload, image: nil), forKey: key) }
        return entry.payload
    }

    /// Removes `key` from memory and from disk.
    public func removeCache(byKey key: String) {
        memory.removeObject(forKey: key)
        removeDiskEntry(forKey: key)
    }

    /// Deletes disk entries of the current space older than ``expirationTime`` (by the time they were written, as
    /// DW), and temp files left by writers that died (older than an hour). An expired entry that carries an ETag or
    /// Last-Modified is kept up to four expiration times, so the next request can revalidate it (304) instead of
    /// downloading it again. Posts ``Notification/Name/DWWebImageCacheDidClean`` with the removed keys.
    /// Tolerates files vanishing under it (another process sweeping). Returns the removed keys.
    @discardableResult
    public func removeExpiredCache() -> [String] {
        let dir = directory
        let now = Date().timeIntervalSince1970
        let maxAge = expirationTime
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return [] }
        var removed: [String] = []
        let prefix = dir.path.hasSuffix("/") ? dir.path : dir.path + "/"
        for name in names {
            let path = prefix + name  // not appendingPathComponent, which stats every name
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let age = now - TimeInterval(st.st_mtim.tv_sec)
            if name.hasPrefix(Self.tempPrefix) {
                if age > 3600 { unlink(path) }
                continue
            }
            guard !name.hasPrefix("."), age > maxAge else { continue }
            if age <= 4 * maxAge, case .entry(let entry) = DiskEntryCodec.read(path: path),
               entry.metadata.etag != nil || entry.metadata.lastModified != nil {
                continue  // revalidatable
            }
            let key = DiskBudget.entryKey(path)
            if unlink(path) == 0, let key { removed.append(key) }
        }
        if !removed.isEmpty {
            DiskBudget.invalidate(dir.path)
            postDidClean(removed)
        }
        return removed
    }

    /// Runs ``removeExpiredCache()`` unless a sweep of this space started less than `interval` seconds ago (in any
    /// process: the time is the modification time of `<space>/.swept`). A command-line tool that starts a manager
    /// per invocation would otherwise stat every entry every time.
    @discardableResult
    func removeExpiredCacheIfDue(interval: TimeInterval = 3600) -> [String] {
        let marker = directory.path + "/" + Self.sweptMarker
        var st = stat()
        if stat(marker, &st) == 0, Date().timeIntervalSince1970 - TimeInterval(st.st_mtim.tv_sec) < interval {
            return []
        }
        let fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        if fd >= 0 {
            _ = futimens(fd, nil)  // now
            close(fd)
        }
        return removeExpiredCache()
    }

    static let sweptMarker = ".swept"

    /// What the current cache space holds on disk.
    public func diskStatistics() -> DWCacheDiskStatistics {
        let files = DiskBudget.scan(directory.path)
        let written = files.map(\.written)
        return DWCacheDiskStatistics(
            space: cacheSpace, directory: directory, entryCount: files.count,
            totalBytes: files.reduce(0) { $0 + $1.size }, limit: diskSizeLimit,
            oldest: written.min().map { Date(timeIntervalSince1970: TimeInterval($0)) },
            newest: written.max().map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    /// Bytes the current cache space holds on disk.
    public func totalDiskSize() -> Int64 { diskStatistics().totalBytes }

    /// Entries the current cache space holds on disk.
    public func entryCount() -> Int { diskStatistics().entryCount }

    /// Empties the memory cache and deletes the entries of `space` (default: the current one), or of every space
    /// under the root with `allSpaces`. Partial downloads are kept.
    public func clear(space: String? = nil, allSpaces: Bool = false) {
        memory.removeAllObjects()
        let root = rootDirectory
        var dirs: [URL] = []
        if allSpaces {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
            dirs = names.filter { $0 != "partial" && !$0.hasPrefix(".") }.map { root.appendingPathComponent($0) }
        } else {
            dirs = [root.appendingPathComponent(CacheKey.directoryName(forSpace: space ?? cacheSpace))]
        }
        for dir in dirs {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names where name != DiskBudget.lockName { unlink(dir.appendingPathComponent(name).path) }
            DiskBudget.invalidate(dir.path)
        }
    }

    /// Empties the memory cache and deletes every entry of the current cache space.
    public func removeAllCache() {
        clear()
    }

    // MARK: - Typed API

    /// Stores `data` under `key`, reporting disk failures as ``DWWebImageError`` 10008.
    public func store(_ data: Data, forKey key: String, metadata: DWCacheEntryMetadata = DWCacheEntryMetadata(),
                      policy: DWWebImageCachePolicy) throws(DWWebImageError) {
        if policy.contains(.memory) { memory.set(MemoryEntry(data: data, image: try? DWImage(data: data)), forKey: key) }
        if policy.contains(.disk) { try writeToDisk(data, forKey: key, metadata: metadata) }
    }

    /// Blocks until the disk writes the pipeline has started are done (a CLI calls this before it exits).
    /// Returns false if `timeout` passed first.
    @discardableResult
    public func waitForPendingWrites(timeout: TimeInterval = 30) -> Bool {
        pendingWrites.wait(timeout: .now() + timeout) == .success
    }

    /// The file `key` is stored in (whether or not it exists).
    public func fileURL(forKey key: String) -> URL {
        let (secure, digest) = settings.withLock { ($0.configuration.useSecureKey, $0.configuration.keyDigest) }
        return directory.appendingPathComponent(CacheKey.fileName(for: key, secure: secure, digest: digest))
    }

    // MARK: - Pipeline internals

    /// A memory hit.
    func memoryImage(forKey key: String) -> DWImage? {
        guard let entry = memory.object(forKey: key) else { return nil }
        if let image = entry.image { return image }
        return try? DWImage(data: entry.data)
    }

    /// Keeps a decoded image in memory.
    func storeInMemory(_ image: DWImage, forKey key: String) {
        memory.set(MemoryEntry(data: image.data, image: image), forKey: key)
    }

    /// Announces a write that ``writeAndNotify(_:forKey:metadata:url:queue:)`` will do, so that
    /// ``waitForPendingWrites(timeout:)`` waits for it even if called before the write begins.
    func willWrite() { pendingWrites.enter() }

    /// Takes one place in the write backlog now, if one is free (for a write the caller must not wait for: the
    /// transfer engine's thread). Pass `reserved: true` to the write that uses it.
    func reserveWrite() -> Bool { writeBacklog.wait(timeout: .now()) == .success }

    /// Gives back a place taken by ``reserveWrite()`` that no write will use.
    func unreserveWrite() { writeBacklog.signal() }

    /// Hands `body` to the write queue, waiting while 16 writes are already queued (unless `reserved`: a place was
    /// taken by ``reserveWrite()``); ends the write announced by ``willWrite()`` when done.
    private func enqueueWrite(reserved: Bool = false, _ body: @escaping @Sendable () -> Void) {
        if !reserved { writeBacklog.wait() }
        writeQueue.async { [self] in
            body()
            writeBacklog.signal()
            pendingWrites.leave()
        }
    }

    /// Writes `data` atomically under `key` (announced by ``willWrite()``) on the cache's write queue, then posts
    /// ``Notification/Name/DWWebImageCacheComplete`` (with `"error"` on failure) on `queue`.
    func writeAndNotify(_ image: DWImage, forKey key: String, metadata: DWCacheEntryMetadata, url: String,
                        queue: DispatchQueue, reserved: Bool = false) {
        enqueueWrite(reserved: reserved) { [self] in write(image, forKey: key, metadata: metadata, url: url, queue: queue) }
    }

    private func write(_ image: DWImage, forKey key: String, metadata: DWCacheEntryMetadata, url: String,
                       queue: DispatchQueue) {
        var info: [String: any Sendable] = [DWWebImageNotificationKey.url: url]
        do {
            try writeToDisk(image.data, forKey: key, metadata: metadata, release: image.releasesWindows)
        } catch {
            info[DWWebImageNotificationKey.error] = error
            DWLog.warning("cache write failed for \(url): \(error.message)")
        }
        let center = notificationCenter
        let payload = info
        queue.async { center.post(name: .DWWebImageCacheComplete, object: self, userInfo: payload) }
    }

    /// Writes a processed variant (announced by ``willWrite()``; nil when making it failed: nothing to write).
    /// It carries no validators, so once expired it is a miss and is made again from the original (which is
    /// revalidated). Failures are logged; no notification is posted.
    func writeVariant(_ image: DWImage?, forKey key: String) {
        guard let image else {
            pendingWrites.leave()
            return
        }
        enqueueWrite { [self] in
            do throws(DWWebImageError) {
                try writeToDisk(image.data, forKey: key, metadata: DWCacheEntryMetadata(), release: image.releasesWindows)
            } catch {
                DWLog.warning("cache write failed for \(key): \(error.message)")
            }
        }
    }

    private static let tempPrefix = ".tmp-"

    private func diskEntry(forKey key: String) -> DiskEntryCodec.Entry? {
        let path = filePath(forKey: key)
        let found = DiskEntryCodec.read(path: path, touches: readTouches)  // last read, for LRU eviction
        if case .absent = found { return nil }
        guard case .entry(let entry) = found, entry.key == key else {
            unlink(path)  // torn, corrupt, or another key's file (a hash collision): a miss
            return nil
        }
        if Date().timeIntervalSince(entry.metadata.storedAt) > freshnessLifetime(of: entry.metadata) {
            // Stale. One that can be revalidated stays for the manager's next request (as the sweep keeps it).
            if entry.metadata.etag == nil && entry.metadata.lastModified == nil { unlink(path) }
            return nil
        }
        return entry
    }

    /// How long after it was stored an entry stays fresh: ``expirationTime``, shortened by the entry's
    /// Cache-Control when ``honorsCacheControl`` is on.
    func freshnessLifetime(of metadata: DWCacheEntryMetadata) -> TimeInterval {
        let (expiration, honors) = settings.withLock {
            ($0.configuration.expirationTime, $0.configuration.honorsCacheControl)
        }
        guard honors, metadata.cacheControl != nil else { return expiration }
        return CacheControl(metadata.cacheControl).freshnessLifetime(cappedAt: expiration)
    }

    /// Whether a response with these headers may be written to disk (only `no-store` under
    /// ``honorsCacheControl`` says no).
    func mayStore(_ head: DWResponseHead) -> Bool {
        !(honorsCacheControl && CacheControl(head.cacheControl).noStore)
    }

    /// Removes `key`'s disk entry, if any (a response that must not be stored replaces nothing).
    func removeDiskEntry(forKey key: String) {
        if unlink(filePath(forKey: key)) == 0 { DiskBudget.invalidate(directory.path) }
    }

    /// The path of `key`'s file, built as a string (URL path operations cost microseconds each).
    func filePath(forKey key: String) -> String {
        let (dir, secure, digest) = settings.withLock {
            ($0.spacePath, $0.configuration.useSecureKey, $0.configuration.keyDigest)
        }
        return dir + CacheKey.fileName(for: key, secure: secure, digest: digest)
    }

    /// `release`: whether full passes may drop windows of a mapped `data` (see ``FileBytes``).
    private func writeToDisk(_ data: Data, forKey key: String, metadata: DWCacheEntryMetadata,
                             release: Bool = false) throws(DWWebImageError) {
        // One read of the settings per write. Paths as strings: Foundation's URL path operations cost
        // microseconds each, per write.
        let (config, spacePath) = settings.withLock { ($0.configuration, $0.spacePath) }
        let finalPath = spacePath + CacheKey.fileName(for: key, secure: config.useSecureKey, digest: config.keyDigest)
        let dirPath = String(spacePath.dropLast())
        let compressionSetting = config.compression
        let compress = compressionSetting.applies(to: data)
        var header = compress
            ? DiskEntryCodec.encodeHeader(key: key, payloadLength: 0, payloadCRC: 0, flags: DiskEntryCodec.gzipFlag,
                                          metadata: metadata)  // a placeholder of the final length, rewritten below
            : DiskEntryCodec.encodeHeader(key: key, payload: data, metadata: metadata, release: release)
        let limit = max(0, config.diskSizeLimit)
        if limit > 0 && !compress && Int64(header.count + data.count) > limit {
            throw DWWebImageError(.cacheIO, "entry of \(header.count + data.count) bytes is larger than the disk budget (\(limit))",
                                  url: key)
        }
        writeSemaphore.wait()
        defer { writeSemaphore.signal() }
        // Unnamed until published (O_TMPFILE), else a named temp file; either way never seen half-written.
        let tempName = { Self.tempPrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max))" }
        var created = AtomicFile.create(in: dirPath, fallbackName: tempName)
        if created == nil && errno == ENOENT {
            // First write, or the directory was deleted while we ran: create it and try once more.
            try? FileManager.default.createDirectory(atPath: dirPath, withIntermediateDirectories: true)
            created = AtomicFile.create(in: dirPath, fallbackName: tempName)
        }
        guard var file = created else { throw Self.ioError("create a file in \(dirPath)", errno, key) }
        let fd = file.fd
        func writeAll(_ bytes: Data) -> Int32? {
            let code = bytes.withUnsafeBytes { writeFully(fd, $0) }
            return code == 0 ? nil : code
        }
        // Header, then the payload as it is (no concatenated copy of a large body), or gzipped as it streams
        // through zlib, after which the header is rewritten with the stored length and CRC.
        func writePayload(_ bytes: Data) -> Int32? {
            var failure: Int32?
            FileBytes.forEachWindow(of: bytes, release: release) { window in
                let code = writeFully(fd, window)
                if code != 0 { failure = code }
                return code == 0
            }
            return failure
        }
        var payloadSize = Int64(data.count)
        var stored = false
        var writeErrno: Int32?
        if !compress && data.count < FileBytes.mapThreshold {
            // The usual small entry: header and payload in one writev.
            let total = header.count + data.count
            let n = header.withUnsafeBytes { h in
                data.withUnsafeBytes { p -> Int in
                    var parts = [iovec(iov_base: UnsafeMutableRawPointer(mutating: h.baseAddress), iov_len: h.count),
                                 iovec(iov_base: UnsafeMutableRawPointer(mutating: p.baseAddress), iov_len: p.count)]
                    return writev(fd, &parts, p.count > 0 ? 2 : 1)
                }
            }
            if n == total {
                stored = true
            } else if n < 0 && errno != EINTR {
                writeErrno = errno
            } else if ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0 {
                writeErrno = errno  // a short write: start over the slow way below
            }
        }
        if !stored && writeErrno == nil { writeErrno = writeAll(header) }
        if compress && writeErrno == nil {
            if let (length, crc) = Gzip.compress(data, into: fd, release: release) {
                if length < Int64(data.count) || compressionSetting == .gzip {
                    payloadSize = length
                    header = DiskEntryCodec.encodeHeader(key: key, payloadLength: UInt64(length), payloadCRC: crc,
                                                         flags: DiskEntryCodec.gzipFlag, metadata: metadata)
                    let rewritten = header.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
                    if rewritten != header.count { writeErrno = errno == 0 ? EIO : errno }
                    stored = true
                } else if ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 {
                    // The sample promised more than the whole gave: store it as it is after all.
                    header = DiskEntryCodec.encodeHeader(key: key, payload: data, metadata: metadata, release: release)
                    writeErrno = writeAll(header)
                } else {
                    writeErrno = errno == 0 ? EIO : errno
                }
            } else {
                writeErrno = errno == 0 ? EIO : errno
            }
        }
        if !stored && writeErrno == nil {
            writeErrno = writePayload(data)
        }
        if let code = writeErrno {
            file.discard()
            throw Self.ioError("write \(file.tempPath ?? dirPath + "/(unnamed)")", code, key)
        }
        let size = Int64(header.count) + payloadSize
        if limit > 0 && size > limit {
            file.discard()
            throw DWWebImageError(.cacheIO, "entry of \(size) bytes is larger than the disk budget (\(limit))", url: key)
        }
        // The file's modification time is the entry's clock (see DWCacheEntryMetadata.storedAt): an entry stored
        // with an earlier time (an import, a test) gets it before it is published.
        let storedTime = metadata.storedAt.timeIntervalSince1970, now = Date().timeIntervalSince1970
        if abs(storedTime - now) > 1 {
            let seconds = storedTime.rounded(FloatingPointRoundingRule.down)
            var times = [timespec(tv_sec: Int(now), tv_nsec: 0),
                         timespec(tv_sec: Int(seconds), tv_nsec: Int((storedTime - seconds) * 1e9))]
            _ = futimens(file.fd, &times)
        }
        let (code, evicted) = DiskBudget.commit(dir: dirPath, final: finalPath, size: size, limit: limit) {
            file.publish(as: finalPath, fallbackName: tempName)
        }
        if !evicted.isEmpty { postDidClean(evicted) }
        if code != 0 {
            throw Self.ioError("publish \(finalPath)", code, key)
        }
    }

    /// Posts ``Notification/Name/DWWebImageCacheDidClean`` with the removed keys, on the cache's own queue.
    private func postDidClean(_ keys: [String]) {
        let center = notificationCenter
        notifyQueue.async { center.post(name: .DWWebImageCacheDidClean, object: self, userInfo: ["keys": keys]) }
    }

    private static func ioError(_ what: String, _ code: Int32, _ key: String) -> DWWebImageError {
        DWWebImageError(.cacheIO, "cache \(what) failed: \(String(cString: strerror(code)))", url: key)
    }
}

/// One memory-cache value: the bytes and, when known, the validated image.
final class MemoryEntry: Sendable {
    let data: Data
    let image: DWImage?
    init(data: Data, image: DWImage?) {
        self.data = data
        self.image = image
    }
    /// What a freed slot holds (so it keeps no bytes alive).
    static let empty = MemoryEntry(data: Data(), image: nil)
}

/// The memory layer: least recently used entries go first when a count or byte limit (cost = bytes held; 0 = none)
/// is passed, like DW's `NSCache` limits. Its own LRU, not `NSCache`: corelibs' `NSCache` bridges every key to an
/// `NSString` and cost ~33k instructions per store. An entry bigger than a quarter of the byte limit is not kept.
///
/// Thread safety: everything is in `store`, one `DWLock` (a leaf).
final class MemoryCache: Sendable {
    private struct Node {
        let key: String
        var entry: MemoryEntry
        var newer = -1
        var older = -1
    }

    /// A doubly linked list over `nodes` (indices; `free` recycles slots), newest at `newest`.
    private struct Store {
        var countLimit: Int
        var costLimit: Int
        var index: [String: Int] = [:]
        var nodes: [Node] = []
        var free: [Int] = []
        var newest = -1
        var oldest = -1
        var cost = 0

        mutating func unlink(_ i: Int) {
            let (newer, older) = (nodes[i].newer, nodes[i].older)
            if newer >= 0 { nodes[newer].older = older } else { newest = older }
            if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
            nodes[i].newer = -1
            nodes[i].older = -1
        }

        mutating func pushNewest(_ i: Int) {
            nodes[i].older = newest
            if newest >= 0 { nodes[newest].newer = i }
            newest = i
            if oldest < 0 { oldest = i }
        }

        mutating func remove(_ i: Int) {
            unlink(i)
            cost -= nodes[i].entry.data.count
            index[nodes[i].key] = nil
            nodes[i].entry = MemoryEntry.empty
            free.append(i)
        }

        mutating func trim() {
            while oldest >= 0, (countLimit > 0 && index.count > countLimit) || (costLimit > 0 && cost > costLimit) {
                remove(oldest)
            }
        }
    }

    private let store: DWLock<Store>

    init(countLimit: Int, costLimit: Int) {
        store = DWLock(Store(countLimit: countLimit, costLimit: costLimit))
    }

    var countLimit: Int {
        get { store.withLock { $0.countLimit } }
        set { store.withLock { $0.countLimit = newValue; $0.trim() } }
    }
    var costLimit: Int {
        get { store.withLock { $0.costLimit } }
        set { store.withLock { $0.costLimit = newValue; $0.trim() } }
    }

    /// The entry, now the most recently used.
    func object(forKey key: String) -> MemoryEntry? {
        store.withLock { s in
            guard let i = s.index[key] else { return nil }
            if s.newest != i {
                s.unlink(i)
                s.pushNewest(i)
            }
            return s.nodes[i].entry
        }
    }

    func set(_ entry: MemoryEntry, forKey key: String) {
        store.withLock { s in
            if let i = s.index[key] { s.remove(i) }
            // An entry bigger than a quarter of the budget would push out most of what is kept: leave it to the disk.
            if s.costLimit > 0 && entry.data.count > s.costLimit / 4 { return }
            let node = Node(key: key, entry: entry)
            let i: Int
            if let slot = s.free.popLast() {
                i = slot
                s.nodes[i] = node
            } else {
                i = s.nodes.count
                s.nodes.append(node)
            }
            s.index[key] = i
            s.cost += entry.data.count
            s.pushNewest(i)
            s.trim()
        }
    }

    func removeObject(forKey key: String) {
        store.withLock { s in if let i = s.index[key] { s.remove(i) } }
    }

    func removeAllObjects() {
        store.withLock { s in s = Store(countLimit: s.countLimit, costLimit: s.costLimit) }
    }
}
