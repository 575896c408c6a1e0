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
    /// The room in the disk budget's ledger this cache took ahead of its writes is given back once they are done.
    @discardableResult
    public func waitForPendingWrites(timeout: TimeInterval = 30) -> Bool {
        guard pendingWrites.wait(timeout: .now() + timeout) == .success else { return false }
        writeSemaphore.wait()
        lockFiles.releaseReservations()
        writeSemaphore.signal()
        return true
    }

    /// Announces a disk write of `key` (``waitForPendingWrites(timeout:)`` waits for it from now on), as the one
    /// value that carries it to its end (``CacheWrite``).
    func takeWrite(forKey key: String) -> CacheWrite {
        pendingWrites.enter()
        return CacheWrite(cache: self, key: key, reserved: false)
    }

    /// ``takeWrite(forKey:)`` with a place in the write backlog taken now, if one is free (for a write the caller
    /// must not wait for: the transfer engine's thread); nil when none is.
    func reserveWrite(forKey key: String) -> CacheWrite? {
        guard writeBacklog.wait(timeout: .now()) == .success else { return nil }
        pendingWrites.enter()
        return CacheWrite(cache: self, key: key, reserved: true)
    }

    /// Announces and queues a disk write of `data` under `key` (`dwfetch serve`'s `/info` answers): it runs on the
    /// write queue, and ``waitForPendingWrites(timeout:)`` waits for it. Failures are logged.
    package func writeInBackground(_ data: Data, forKey key: String) {
        takeWrite(forKey: key).writeData(data)
    }

    /// How many announced writes of downloaded images have finished (their entry on disk, or failed); read before a
    /// disk lookup, it tells whether one finished since (``PendingImages``).
    var pendingWritesFinished: UInt64 { pendingImages.withLock { $0.finished } }

    /// Hands `body` to the write queue, waiting while 16 writes are already queued (unless `reserved`: a place was
    /// taken by ``reserveWrite(forKey:)``; or `backlog` is false: a small write whose caller must never block, which
    /// takes no place); ends the announced write when done.
    func enqueueWrite(reserved: Bool = false, backlog: Bool = true, _ body: @escaping @Sendable () -> Void) {
        let placed = reserved || backlog
        if placed && !reserved { writeBacklog.wait() }
        writeQueue.async { [self] in
            body()
            if placed { writeBacklog.signal() }
            pendingWrites.leave()
        }
    }

    /// Writes one downloaded image's entry: the error, if it failed (logged), and a body-only entry's file (kept
    /// open with `keepsOpen`, see ``DWCacheEntryFile/Identity/open(_:)``).
    func writeEntry(
        _ image: DWImage, forKey key: String, metadata: DWCacheEntryMetadata, url: String, keepsOpen: Bool = false
    ) -> (error: DWWebImageError?, file: DWCacheEntryFile?) {
        do {
            let file = try writeToDisk(
                image.data, forKey: key, metadata: metadata, release: image.releasesWindows, format: image.format,
                keepsOpen: keepsOpen)
            return (nil, file)
        } catch {
            DWLog.warning("cache write failed for \(url): \(error.message)")
            return (error, nil)
        }
    }

    /// Posts ``Notification/Name/DWWebImageCacheComplete`` for `url`'s write (with `"error"` when it failed).
    func postCacheComplete(url: String, error: DWWebImageError?) {
        var info: [String: any Sendable] = [DWWebImageNotificationKey.url: url]
        if let error { info[DWWebImageNotificationKey.error] = error }
        notificationCenter.post(name: .DWWebImageCacheComplete, object: self, userInfo: info)
    }

    /// Writes a cache tier's entry (``DWDiskCacheTier``) on the caller's thread: its body-only file, if it is one.
    func writeTierEntry(
        _ data: Data, forKey key: String, metadata: DWCacheEntryMetadata
    ) throws(DWWebImageError) -> DWCacheEntryFile? {
        try writeToDisk(data, forKey: key, metadata: metadata)
    }

    /// Writes `data` under `key` with no validators, logging a failure.
    func writeLogged(_ data: Data, forKey key: String, release: Bool) {
        do throws(DWWebImageError) {
            try writeToDisk(data, forKey: key, metadata: DWCacheEntryMetadata(), release: release)
        } catch {
            DWLog.warning("cache write failed for \(key): \(error.message)")
        }
    }

    static let tempPrefix = ".tmp-"

    /// Writes one entry file atomically under `key`, within the disk budget (evicting the least recently read
    /// entries when it would pass it). Runs on the caller's thread (the write queue for the pipeline), one write
    /// at a time through `writeSemaphore`.
    /// `release`: whether full passes may drop windows of a mapped `data` (see ``FileBytes``); `format`: its image
    /// format, when known. Returns a body-only entry's file (nil for one with its header inside): with `keepsOpen`,
    /// the file itself, still open (while fewer than ``OpenedEntry/keptLimit`` are), else its device and inode.
    @discardableResult
    private func writeToDisk(
        _ data: Data, forKey key: String, metadata: DWCacheEntryMetadata,
        release: Bool = false, format: DWImageFormat? = nil, keepsOpen: Bool = false
    ) throws(DWWebImageError) -> DWCacheEntryFile? {
        // One read of the settings per write. Paths as strings: Foundation's URL path operations cost
        // microseconds each, per write.
        let (config, spacePath, dirPath) = settings.withLock { ($0.configuration, $0.spacePath, $0.spaceDirectory) }
        let finalPath = entryNames.path(
            for: key, in: spacePath, secure: config.useSecureKey, digest: config.keyDigest)
        let writer = DiskEntryWriter(
            data: data, key: key, metadata: metadata, compression: config.compression,
            release: release, bodyOnly: config.bodyOnlyEntries, format: format)
        let limit = max(0, config.diskSizeLimit)
        if limit > 0, let size = writer.plainSize, size > limit {
            throw .overDiskBudget(size, limit, key: key)
        }
        writeSemaphore.wait()
        defer { writeSemaphore.signal() }
        let tempName = { Self.tempPrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max))" }
        let mode: mode_t = config.privateFiles ? 0o600 : 0o644
        var file = try createEntryFile(in: dirPath, mode: mode, fallbackName: tempName, key: key)
        let size: Int64
        var entryFile: DWCacheEntryFile?
        var keeps = false
        switch writer.write(to: file.fd) {
        case .success(let written):
            size = written.size
            keeps = keepsOpen && written.bodyOnly
            var st = stat()
            if written.bodyOnly && !keeps && fstat(file.fd, &st) == 0 {
                entryFile = DWCacheEntryFile(path: finalPath, stat: st)
            }
        case .failure(let code):
            file.discard()
            throw .cacheFailure("write \(file.tempPath ?? dirPath + "/(unnamed)")", errno: code.value, key: key)
        }
        if limit > 0 && size > limit {
            file.discard()
            throw .overDiskBudget(size, limit, key: key)
        }
        Self.setModificationTime(of: file.fd, to: metadata.storedAt)
        let space = lockFiles.space(for: dirPath)
        var reserved = space.reserved
        let (code, evicted) = DiskBudget.commit(
            dir: dirPath, final: finalPath, size: size, limit: limit, lockFile: space.fd, reserved: &reserved,
            publishIfAbsent: { file.publishIfAbsent(as: finalPath, closing: !keeps) },
            publish: { file.publish(as: finalPath, fallbackName: tempName, closing: !keeps) })
        if reserved != space.reserved { lockFiles.setReserved(reserved, in: dirPath) }
        if !evicted.isEmpty { postDidClean(evicted) }
        if keeps {
            if code == 0, let kept = OpenedEntry.adopting(file.fd, path: finalPath) {
                entryFile = DWCacheEntryFile(kept: kept, mode: UInt32(mode), size: Int(size))
            } else {
                var st = stat()
                if code == 0 && fstat(file.fd, &st) == 0 { entryFile = DWCacheEntryFile(path: finalPath, stat: st) }
                close(file.fd)
            }
        }
        if code != 0 {
            throw .cacheFailure("publish \(finalPath)", errno: code, key: key)
        }
        return entryFile
    }

    /// A new, not yet visible file in `dirPath`: unnamed until published (O_TMPFILE), else a named temp file;
    /// either way never seen half-written. Creates the directory when it is missing.
    private func createEntryFile(
        in dirPath: String, mode: mode_t, fallbackName: () -> String, key: String
    ) throws(DWWebImageError) -> AtomicFile {
        var created = AtomicFile.create(in: dirPath, mode: mode, fallbackName: fallbackName)
        if created == nil && errno == ENOENT {
            // First write, or the directory was deleted while we ran: create it and try once more.
            Self.createDirectories(dirPath, private: mode == 0o600)
            lockFiles.forget(dirPath)  // a lock file kept open from before was deleted with it
            created = AtomicFile.create(in: dirPath, mode: mode, fallbackName: fallbackName)
        }
        guard let file = created else { throw .cacheFailure("create a file in \(dirPath)", errno: errno, key: key) }
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

}
