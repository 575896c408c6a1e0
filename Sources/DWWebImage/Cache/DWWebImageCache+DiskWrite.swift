// DWWebImageCache + disk write: the pipeline's write queue and backlog, and atomic, budgeted entry files.
import DWFileIO
import Foundation

extension DWWebImageCache {
    /// Stores `data` under `key` in the layers of ``cachePolicy`` (the disk write is done when this returns).
    /// Failures are dropped, as in DW; use ``store(_:forKey:metadata:policy:)`` to see them.
    public func cacheObj(_ data: Data, forKey key: String) {
        try? store(data, forKey: key, metadata: DWCacheEntryMetadata(), policy: cachePolicy)
    }

    /// Stores `data` under `key`, reporting disk failures as ``DWWebImageError`` 10008.
    public func store(
        _ data: Data, forKey key: String, metadata: DWCacheEntryMetadata = DWCacheEntryMetadata(),
        policy: DWWebImageCachePolicy
    ) throws(DWWebImageError) {
        if policy.contains(.memory) {
            memory.set(MemoryEntry(data: data, image: try? DWImage(data: data)), forKey: key)
        }
        if policy.contains(.disk) { try writeToDisk(data, forKey: key, metadata: metadata) }
    }

    /// Blocks until the disk writes the pipeline has started are done (a CLI calls this before it exits).
    /// Returns false if `timeout` passed first.
    @discardableResult
    public func waitForPendingWrites(timeout: TimeInterval = 30) -> Bool {
        pendingWrites.wait(timeout: .now() + timeout) == .success
    }

    /// ``waitForPendingWrites(timeout:)`` waits for it even if called before the write begins.
    func willWrite() { pendingWrites.enter() }

    /// ``willWrite()`` for a downloaded image, which ``memoryOrPendingImage(forKey:)`` finds from now until its
    /// write (``writeAndNotify``, given the returned ticket) is done.
    func willWrite(_ image: DWImage, forKey key: String) -> UInt64 {
        pendingWrites.enter()
        return pendingImages.withLock { $0.add(image, forKey: key) }
    }

    /// How many announced writes of downloaded images have finished (their entry on disk, or failed); read before a
    /// disk lookup, it tells whether one finished since (``PendingImages``).
    var pendingWritesFinished: UInt64 { pendingImages.withLock { $0.finished } }

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
    func writeAndNotify(
        _ image: DWImage, forKey key: String, metadata: DWCacheEntryMetadata, url: String,
        queue: DispatchQueue, reserved: Bool = false, ticket: UInt64? = nil
    ) {
        enqueueWrite(reserved: reserved) { [self] in
            write(image, forKey: key, metadata: metadata, url: url, queue: queue)
            if let ticket { pendingImages.withLock { $0.remove(ticket, forKey: key) } }
        }
    }

    private func write(
        _ image: DWImage, forKey key: String, metadata: DWCacheEntryMetadata, url: String,
        queue: DispatchQueue
    ) {
        let center = notificationCenter
        let payload = writeEntry(image, forKey: key, metadata: metadata, url: url).info
        queue.async { center.post(name: .DWWebImageCacheComplete, object: self, userInfo: payload) }
    }

    /// ``writeAndNotify`` on the calling thread, for a caller already on the callback queue (the start of a
    /// download's callback block, with ``DWWebImageManager/writesCacheInCallbacks``): writes `image` under `key`
    /// (announced by ``willWrite(_:forKey:)``, whose `ticket` this is). Returns `image` with its
    /// ``DWImage/entryFile`` when the entry is body-only, and what is left to do after the callers: posting
    /// ``Notification/Name/DWWebImageCacheComplete`` and ending the announced write (call it on the same queue).
    func writeHere(
        _ image: DWImage, forKey key: String, metadata: DWCacheEntryMetadata, url: String, ticket: UInt64?
    ) -> (DWImage, @Sendable () -> Void) {
        var stamped = image
        let (payload, file) = writeEntry(image, forKey: key, metadata: metadata, url: url)
        stamped.entryFile = file
        if let ticket { pendingImages.withLock { $0.remove(ticket, forKey: key) } }
        return (
            stamped,
            { [self] in
                notificationCenter.post(name: .DWWebImageCacheComplete, object: self, userInfo: payload)
                pendingWrites.leave()
            }
        )
    }

    /// Writes one downloaded image's entry: the CacheComplete notification's userInfo (with the error, if it
    /// failed) and a body-only entry's file.
    private func writeEntry(
        _ image: DWImage, forKey key: String, metadata: DWCacheEntryMetadata, url: String
    ) -> (info: [String: any Sendable], file: DWCacheEntryFile?) {
        var info: [String: any Sendable] = [DWWebImageNotificationKey.url: url]
        var file: DWCacheEntryFile?
        do {
            file = try writeToDisk(image.data, forKey: key, metadata: metadata, release: image.releasesWindows)
        } catch {
            info[DWWebImageNotificationKey.error] = error
            DWLog.warning("cache write failed for \(url): \(error.message)")
        }
        return (info, file)
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
                try writeToDisk(
                    image.data, forKey: key, metadata: DWCacheEntryMetadata(), release: image.releasesWindows)
            } catch {
                DWLog.warning("cache write failed for \(key): \(error.message)")
            }
        }
    }

    static let tempPrefix = ".tmp-"

    /// Writes one entry file atomically under `key`, within the disk budget (evicting the least recently read
    /// entries when it would pass it). Runs on the caller's thread (the write queue for the pipeline), one write
    /// at a time through `writeSemaphore`.
    /// `release`: whether full passes may drop windows of a mapped `data` (see ``FileBytes``).
    /// Returns a body-only entry's file (nil for one with its header inside).
    @discardableResult
    private func writeToDisk(
        _ data: Data, forKey key: String, metadata: DWCacheEntryMetadata,
        release: Bool = false
    ) throws(DWWebImageError) -> DWCacheEntryFile? {
        // One read of the settings per write. Paths as strings: Foundation's URL path operations cost
        // microseconds each, per write.
        let (config, spacePath, dirPath) = settings.withLock { ($0.configuration, $0.spacePath, $0.spaceDirectory) }
        let finalPath = spacePath + CacheKey.fileName(for: key, secure: config.useSecureKey, digest: config.keyDigest)
        let writer = DiskEntryWriter(
            data: data, key: key, metadata: metadata, compression: config.compression,
            release: release, bodyOnly: config.bodyOnlyEntries)
        let limit = max(0, config.diskSizeLimit)
        if limit > 0, let size = writer.plainSize, size > limit {
            throw DWWebImageError(
                .cacheIO, "entry of \(size) bytes is larger than the disk budget (\(limit))", url: key)
        }
        writeSemaphore.wait()
        defer { writeSemaphore.signal() }
        let tempName = { Self.tempPrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max))" }
        var file = try createEntryFile(in: dirPath, privateFiles: config.privateFiles, fallbackName: tempName, key: key)
        let size: Int64
        var entryFile: DWCacheEntryFile?
        switch writer.write(to: file.fd) {
        case .success(let written):
            size = written.size
            var st = stat()
            if written.bodyOnly && fstat(file.fd, &st) == 0 { entryFile = DWCacheEntryFile(path: finalPath, stat: st) }
        case .failure(let code):
            file.discard()
            throw Self.ioError("write \(file.tempPath ?? dirPath + "/(unnamed)")", code.value, key)
        }
        if limit > 0 && size > limit {
            file.discard()
            throw DWWebImageError(
                .cacheIO, "entry of \(size) bytes is larger than the disk budget (\(limit))", url: key)
        }
        Self.setModificationTime(of: file.fd, to: metadata.storedAt)
        let (code, evicted) = DiskBudget.commit(
            dir: dirPath, final: finalPath, size: size, limit: limit, lockFile: lockFiles.descriptor(for: dirPath),
            publishIfAbsent: { file.publishIfAbsent(as: finalPath) },
            publish: { file.publish(as: finalPath, fallbackName: tempName) })
        if !evicted.isEmpty { postDidClean(evicted) }
        if code != 0 {
            throw Self.ioError("publish \(finalPath)", code, key)
        }
        return entryFile
    }

    /// A new, not yet visible file in `dirPath`: unnamed until published (O_TMPFILE), else a named temp file;
    /// either way never seen half-written. Creates the directory when it is missing.
    private func createEntryFile(
        in dirPath: String, privateFiles: Bool, fallbackName: () -> String,
        key: String
    ) throws(DWWebImageError) -> AtomicFile {
        let mode: mode_t = privateFiles ? 0o600 : 0o644
        var created = AtomicFile.create(in: dirPath, mode: mode, fallbackName: fallbackName)
        if created == nil && errno == ENOENT {
            // First write, or the directory was deleted while we ran: create it and try once more.
            Self.createDirectories(dirPath, private: privateFiles)
            lockFiles.forget(dirPath)  // a lock file kept open from before was deleted with it
            created = AtomicFile.create(in: dirPath, mode: mode, fallbackName: fallbackName)
        }
        guard let file = created else { throw Self.ioError("create a file in \(dirPath)", errno, key) }
        return file
    }

    /// Creates `path` and its missing parents, 0700 each with `private` (else 0755; the umask applies either way).
    static func createDirectories(_ path: String, private: Bool) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if mkdir(current, `private` ? 0o700 : 0o755) != 0 && errno != EEXIST { return }
        }
    }

    /// The file's modification time is the entry's clock (see DWCacheEntryMetadata.storedAt): an entry stored
    /// with an earlier time (an import, a test) gets it before it is published.
    private static func setModificationTime(of fd: Int32, to storedAt: Date) {
        let storedTime = storedAt.timeIntervalSince1970, now = Date().timeIntervalSince1970
        guard abs(storedTime - now) > 1 else { return }
        let seconds = storedTime.rounded(FloatingPointRoundingRule.down)
        var times = [
            timespec(tv_sec: Int(now), tv_nsec: 0),
            timespec(tv_sec: Int(seconds), tv_nsec: Int((storedTime - seconds) * 1e9))
        ]
        _ = futimens(fd, &times)
    }

    /// Posts ``Notification/Name/DWWebImageCacheDidClean`` with the removed keys, on the cache's own queue.
    func postDidClean(_ keys: [String]) {
        let center = notificationCenter
        notifyQueue.async { center.post(name: .DWWebImageCacheDidClean, object: self, userInfo: ["keys": keys]) }
    }

    private static func ioError(_ what: String, _ code: Int32, _ key: String) -> DWWebImageError {
        DWWebImageError(.cacheIO, "cache \(what) failed: \(String(cString: strerror(code)))", url: key)
    }
}
