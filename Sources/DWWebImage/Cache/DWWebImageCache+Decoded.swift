// DWWebImageCache + decoded: the memory tier of decoded bitmaps (Nuke's ImageCache, Kingfisher's and SDWebImage's
// memory caches of decoded images), beside the tier of encoded bytes.
import DWLocking
import Foundation

/// Hits and misses of a tier, and what it holds now.
public struct DWCacheTierStatistics: Sendable, Equatable {
    /// Lookups that found an entry.
    public var hits: Int
    /// Lookups that found none (for the decoded tier: decodes by `bitmap()`).
    public var misses: Int
    /// Entries held now.
    public var entryCount: Int
    /// Bytes held.
    public var totalCost: Int

    /// Counters as given.
    public init(hits: Int, misses: Int, entryCount: Int, totalCost: Int) {
        self.hits = hits
        self.misses = misses
        self.entryCount = entryCount
        self.totalCost = totalCost
    }
}

extension DWWebImageCache {
    /// The decoded tier's default byte limit: a sixteenth of physical memory, at least 16 MiB (more than
    /// ``Configuration/memoryCostLimit``'s default), at most half of it.
    public static let defaultDecodedCostLimit: Int = {
        let ram = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        return min(max(ram / 16, 16 * 1024 * 1024), max(ram / 2, 1))
    }()

    /// Most bytes of decoded bitmaps kept (cost = bytesPerRow × height); 0 = no decoded tier. A bitmap over a
    /// quarter of it is not kept. Any thread.
    public var decodedCostLimit: Int {
        get { decoded.costLimit }
        set {
            settings.withLock { $0.configuration.decodedCostLimit = newValue }
            decoded.costLimit = newValue
        }
    }

    /// Most decoded bitmaps kept; 0 = no count limit. Any thread.
    public var decodedCountLimit: Int {
        get { decoded.countLimit }
        set {
            settings.withLock { $0.configuration.decodedCountLimit = newValue }
            decoded.countLimit = newValue
        }
    }

    /// The decoded first frame of the image cached under `key` (the same keys as the encoded tiers: the URL, a
    /// `.cacheKey`, or a variant's `DWImageProcessors.cacheKey`), or nil. Does not count as a hit or a miss. Any
    /// thread.
    public func decodedBitmap(forKey key: String) -> DWBitmap? {
        decoded.object(forKey: key)?.bitmap
    }

    /// Keeps `bitmap` as the decoded form of `key`'s image (least recently used first out, by cost and count, as
    /// the encoded memory tier). Nothing is kept while ``decodedCostLimit`` is 0. Any thread.
    public func storeDecodedBitmap(_ bitmap: DWBitmap, forKey key: String) {
        guard decoded.costLimit > 0 else { return }
        decoded.set(MemoryEntry(bitmap: bitmap), forKey: key)
    }

    /// Counters of the decoded tier since the cache was made (a miss is one decode by `bitmap()`). Any thread.
    public var decodedStatistics: DWCacheTierStatistics {
        let counters = decodedCounters.withLock { $0 }
        let totals = decoded.totals
        return DWCacheTierStatistics(
            hits: counters.hits, misses: counters.misses, entryCount: totals.count,
            totalCost: totals.cost)
    }

    /// The decoded bitmap of `key`, counted as a hit or a miss (for `bitmap()`, which decodes and stores on a
    /// miss). Any thread.
    package func lookUpDecodedBitmap(forKey key: String) -> DWBitmap? {
        let bitmap = decodedBitmap(forKey: key)
        decodedCounters.withLock { counters in
            if bitmap == nil { counters.misses += 1 } else { counters.hits += 1 }
        }
        return bitmap
    }
}
