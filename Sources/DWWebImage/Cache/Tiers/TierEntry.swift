// TierEntry: what the built-in cache tiers keep beside an entry's bytes (validators, when it was stored, the disk
// tier's file), so the tier path revalidates stale entries and hands out entry files as the default path does.
import Foundation

/// One entry of a built-in tier as the manager reads and writes it. A plain value: any thread.
struct TierEntry: Sendable {
    /// The bytes, as stored (after ``DWWillCacheHandler``).
    var data: Data
    /// The response's validators, type and Cache-Control, and when the entry was stored (its age); nil when the
    /// tier kept none (stored through ``DWCacheTier/store(_:forKey:)``): such an entry is always fresh.
    var metadata: DWCacheEntryMetadata?
    /// The disk tier's body-only file holding exactly ``data``; nil elsewhere.
    var file: DWCacheEntryFile?
}

/// A tier that keeps metadata with each entry: the built-in memory, disk and S3 tiers. The manager's tier path
/// reads and writes those through this (stale entries revalidated, entry files handed out); any other
/// ``DWCacheTier`` through its bytes alone. Called as ``DWCacheTier``'s methods are: in a Task, concurrently for
/// different keys.
protocol MetadataCacheTier: DWCacheTier {
    /// `key`'s entry, fresh or stale (the manager judges its age), or nil when the tier has none.
    func entry(forKey key: String) async throws(DWWebImageError) -> TierEntry?
    /// Keeps `data` under `key` with `metadata` (its `storedAt` is the entry's age from now on); returns the file
    /// that holds exactly `data`, if the tier keeps one (the disk tier's body-only entries).
    func store(_ data: Data, metadata: DWCacheEntryMetadata, forKey key: String) async throws(DWWebImageError)
        -> DWCacheEntryFile?
}

/// A download's response metadata, boxed (see ``DWImage/responseMetadata``). Immutable.
final class ResponseMetadata: Sendable {
    let metadata: DWCacheEntryMetadata
    init(_ metadata: DWCacheEntryMetadata) { self.metadata = metadata }
}

extension DWMemoryCacheTier: MetadataCacheTier {
    /// The memory layer's entry (its metadata when the tier path stored it), under the layer's lock.
    func entry(forKey key: String) async throws(DWWebImageError) -> TierEntry? {
        guard let entry = cache.memory.object(forKey: key) else { return nil }
        return TierEntry(data: entry.data, metadata: entry.metadata)
    }

    /// Keeps `data` with `metadata` in the memory layer; no file.
    func store(_ data: Data, metadata: DWCacheEntryMetadata, forKey key: String) async throws(DWWebImageError)
        -> DWCacheEntryFile?
    {
        cache.memory.set(MemoryEntry(data: data, image: nil, metadata: metadata), forKey: key)
        return nil
    }
}

extension DWDiskCacheTier: MetadataCacheTier {
    /// `key`'s disk entry, fresh or stale (a stale one only when it has a validator: any other is removed), with
    /// its body-only file; on the calling task's thread.
    func entry(forKey key: String) async throws(DWWebImageError) -> TierEntry? {
        guard let (entry, _) = cache.findOnDisk(forKey: key) else { return nil }
        return TierEntry(data: entry.payload, metadata: entry.metadata, file: entry.file)
    }

    /// Writes `key`'s entry with `metadata` (the file's modification time set to its `storedAt`); 10008 on failure.
    func store(_ data: Data, metadata: DWCacheEntryMetadata, forKey key: String) async throws(DWWebImageError)
        -> DWCacheEntryFile?
    {
        try cache.writeTierEntry(data, forKey: key, metadata: metadata)
    }
}
