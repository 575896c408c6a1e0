// DWWebImageCache + disk lookup: where a key's file is, reading it, and whether it is still fresh (or, expired,
// can be revalidated with If-None-Match/If-Modified-Since).
import Foundation

/// A disk lookup's outcome, expired-but-revalidatable entries included.
enum DiskLookup {
    /// A valid, unexpired entry.
    case hit(DWImage, DWCacheEntryMetadata)
    /// An expired entry that carries an ETag or Last-Modified: revalidate it rather than fetch it again.
    case expired(DWImage, DWCacheEntryMetadata)
    /// Nothing usable (absent, corrupt, or expired without validators — such entries are removed).
    case miss
}

extension DWWebImageCache {
    /// The bytes stored under `key`: memory first, then disk (a disk hit is promoted to memory). Nil on a miss,
    /// an expired entry, or a damaged file (which is removed).
    public func objCache(forKey key: String) -> Data? {
        let policy = cachePolicy
        if policy.contains(.memory), let entry = memory.object(forKey: key) { return entry.data }
        guard policy.contains(.disk), let entry = diskEntry(forKey: key) else { return nil }
        if policy.contains(.memory) { memory.set(MemoryEntry(data: entry.payload, image: nil), forKey: key) }
        return entry.payload
    }

    /// The file `key` is stored in (whether or not it exists).
    public func fileURL(forKey key: String) -> URL {
        let (secure, digest) = settings.withLock { ($0.configuration.useSecureKey, $0.configuration.keyDigest) }
        return directory.appendingPathComponent(CacheKey.fileName(for: key, secure: secure, digest: digest))
    }

    /// What the origin's response said of `key`'s disk entry (validators, type, Cache-Control), fresh or stale;
    /// nil when the disk tier holds no valid entry for `key`. Reads (and checks) the entry on the caller's thread,
    /// marking nothing as read and removing nothing.
    public func entryMetadata(forKey key: String) -> DWCacheEntryMetadata? {
        guard cachePolicy.contains(.disk), case .entry(let entry) = DiskEntryCodec.read(path: filePath(forKey: key)),
            entry.key == key
        else { return nil }
        return entry.metadata
    }

    /// `key`'s entry file opened, as a lookup opens it; nil when there is none (a miss, known without reading).
    /// On the caller's thread: one `open`.
    func openDiskEntry(forKey key: String) -> OpenedEntry? {
        OpenedEntry(path: filePath(forKey: key))
    }

    /// Looks `key` up on disk. An expired entry with a validator is returned as `.expired` (and kept) so the
    /// download can ask the server whether it is still current; anything unusable is removed and is a miss.
    /// `opened`: `key`'s file as ``openDiskEntry(forKey:)`` opened it, read instead of opening it again.
    func diskLookup(forKey key: String, maxPixelCount: Int, opened: OpenedEntry? = nil) -> DiskLookup {
        guard let (entry, fresh) = findOnDisk(forKey: key, opened: opened) else { return .miss }
        guard var image = try? DWImage.validated(data: entry.payload, maxPixelCount: maxPixelCount) else {
            removeUnusable(filePath(forKey: key))  // not an image: a miss
            return .miss
        }
        image.entryFile = entry.file
        return fresh ? .hit(image, entry.metadata) : .expired(image, entry.metadata)
    }

    private func diskEntry(forKey key: String) -> DiskEntryCodec.Entry? {
        guard let (entry, fresh) = findOnDisk(forKey: key), fresh else { return nil }
        return entry  // a stale one that can be revalidated stays for the manager's next request
    }

    /// The one disk lookup (``objCache(forKey:)`` and the pipeline's ``diskLookup(forKey:maxPixelCount:)`` both
    /// go through it): `key`'s entry read and validated, marked as just read (for LRU eviction), with whether it is
    /// still fresh. Anything unusable — torn, corrupt, another key's file (a hash collision), or stale without a
    /// validator to revalidate it with — is removed and is a miss, as an absent file is. On the caller's thread.
    /// `opened`: `key`'s file, already open (``openDiskEntry(forKey:)``).
    func findOnDisk(forKey key: String, opened: OpenedEntry? = nil) -> (entry: DiskEntryCodec.Entry, fresh: Bool)? {
        let path = opened?.path ?? filePath(forKey: key)
        let found =
            opened.map { DiskEntryCodec.read($0, touches: readTouches) }
            ?? DiskEntryCodec.read(path: path, touches: readTouches)
        if case .absent = found { return nil }
        guard case .entry(let entry) = found, entry.key == key else {
            removeUnusable(path)
            return nil
        }
        if Date().timeIntervalSince(entry.metadata.storedAt) <= freshnessLifetime(of: entry.metadata) {
            return (entry, true)
        }
        guard entry.metadata.etag != nil || entry.metadata.lastModified != nil else {
            removeUnusable(path)
            return nil
        }
        return (entry, false)
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
        !(configuration.honorsCacheControl && CacheControl(head.cacheControl).noStore)
    }

    /// Removes `key`'s disk entry, if any (a response that must not be stored replaces nothing).
    func removeDiskEntry(forKey key: String) {
        removeUnusable(filePath(forKey: key))
    }

    /// Deletes the entry file at `path`; the space's budget ledger is invalidated when a file went (every removal
    /// outside a write does, ``DiskBudget``), so the next write counts the space again.
    private func removeUnusable(_ path: String) {
        if unlink(path) == 0 { DiskBudget.invalidate(directory.path) }
    }

    /// The path of `key`'s file, built as a string (URL path operations cost microseconds each).
    func filePath(forKey key: String) -> String {
        let (dir, secure, digest) = settings.withLock {
            ($0.spacePath, $0.configuration.useSecureKey, $0.configuration.keyDigest)
        }
        return entryNames.path(for: key, in: dir, secure: secure, digest: digest)
    }
}
