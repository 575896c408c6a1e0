// DWWebImageCache + maintenance: removing entries, the expiry sweep, statistics and clearing spaces.
import Foundation

extension DWWebImageCache {
    /// Removes `key` from memory (its decoded bitmap too) and from disk.
    public func removeCache(byKey key: String) {
        memory.removeObject(forKey: key)
        decoded.removeObject(forKey: key)
        removeDiskEntry(forKey: key)
    }

    /// Deletes disk entries of the current space older than ``expirationTime`` (by the time they were written, as
    /// DW), and temp files left by writers that died (older than an hour). An expired entry that carries an ETag or
    /// Last-Modified is kept up to four expiration times, so the next request can revalidate it (304) instead of
    /// downloading it again. Posts ``Notification/Name/DWWebImageCacheDidClean`` with the removed keys.
    /// Tolerates files vanishing under it (another process sweeping). Returns the removed keys. Blocks the caller
    /// for a walk of the space's directory: call it off the main thread and the callback queue.
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
                entry.metadata.etag != nil || entry.metadata.lastModified != nil
            {
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

    /// What the current cache space holds on disk. Blocks the caller for a walk of the space's directory.
    public func diskStatistics() -> DWCacheDiskStatistics {
        let files = DiskBudget.scan(directory.path)
        let written = files.map(\.written)
        return DWCacheDiskStatistics(
            space: cacheSpace, directory: directory, entryCount: files.count,
            totalBytes: files.reduce(0) { $0 + $1.size }, limit: configuration.diskSizeLimit,
            oldest: written.min().map { Date(timeIntervalSince1970: TimeInterval($0)) },
            newest: written.max().map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    /// Bytes the current cache space holds on disk.
    public func totalDiskSize() -> Int64 { diskStatistics().totalBytes }

    /// Entries the current cache space holds on disk.
    public func entryCount() -> Int { diskStatistics().entryCount }

    /// Empties the memory cache and deletes the entries of `space` (default: the current one), or of every space
    /// under the root with `allSpaces`. Partial downloads are kept. Blocks the caller until the files are deleted.
    public func clear(space: String? = nil, allSpaces: Bool = false) {
        memory.removeAllObjects()
        decoded.removeAllObjects()
        let root = configuration.rootDirectory
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

    /// Empties the memory cache and deletes every entry of the current cache space (blocking, like
    /// ``clear(space:allSpaces:)``).
    public func removeAllCache() {
        clear()
    }
}
