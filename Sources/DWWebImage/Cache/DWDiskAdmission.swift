// DWDiskAdmission: originals written to disk from their Nth fetch on (nginx's proxy_cache_min_uses).
import DWLocking

/// Decides which downloaded originals of variants are worth a disk entry: one is written the `minUses`-th time its
/// key is fetched from the network while its uses are remembered (among the last ``remembers``/2 to ``remembers``
/// distinct keys fetched), and every time after that while it is remembered — nginx's `proxy_cache_min_uses`, a
/// CDN's "cache on second hit". An image proxy's sources are mostly asked for once (one variant, then the CDN in front
/// keeps it): each of those would cost a write of the whole source and push out of the budget an entry that is asked
/// for again. The price: a source asked for again
/// within the window is fetched once more before it is kept.
///
/// Uses are counted by the key's hash (the process's seeded `Hasher`, so a client cannot aim collisions at it) in two
/// generations of ``remembers``/2 keys each: when the newer fills, the older is forgotten. A flood of new keys
/// only makes the policy forget sooner; its memory stays bounded (~20 bytes a key).
///
/// Thread safety: one ``DWLock`` around the counts, a leaf (taken and released inside ``admits(_:)``); call it from
/// any thread. The manager asks it on the thread that starts the download
/// (``DWWebImageManager/Configuration/variantSourceAdmission``).
public final class DWDiskAdmission: Sendable {
    /// Fetches of a key, this one included, before its original is written (≥ 1; 1 admits every original).
    public let minUses: Int
    /// Distinct keys whose uses are remembered: the last half as many at least, this many just before the older
    /// generation is forgotten.
    public let remembers: Int

    private struct Generations {
        var newer: [Int: Int] = [:]
        var older: [Int: Int] = [:]
    }
    private let counts = DWLock(Generations())

    /// Writes an original from its `minUses`-th fetch on, among the last `remembers`/2 to `remembers` distinct keys
    /// (default 65,536).
    public init(minUses: Int, remembers: Int = 65_536) {
        self.minUses = max(1, minUses)
        self.remembers = max(2, remembers)
    }

    /// Counts one fetch of `key` and answers whether its original is written to disk this time.
    public func admits(_ key: String) -> Bool {
        guard minUses > 1 else { return true }
        let hash = key.hashValue
        let generation = remembers / 2
        return counts.withLock { c -> Bool in
            let uses = (c.newer[hash] ?? c.older.removeValue(forKey: hash) ?? 0) + 1
            if c.newer.count >= generation && c.newer[hash] == nil {
                c.older = c.newer
                c.newer = Dictionary(minimumCapacity: generation)
            }
            c.newer[hash] = min(uses, minUses)
            return uses >= minUses
        }
    }
}
