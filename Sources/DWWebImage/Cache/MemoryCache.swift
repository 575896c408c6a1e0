// MemoryCache: the memory layer's LRU (entry-count and byte limits, DW's NSCache limits) and its entries.
import Foundation
import DWLocking

/// One memory-cache value: the bytes and, when known, the validated image; or (the decoded tier) a bitmap.
final class MemoryEntry: Sendable {
    let data: Data
    let image: DWImage?
    let bitmap: DWBitmap?
    /// What the response said (validators, when it was stored), for an entry the cache tiers stored; nil else.
    let metadata: DWCacheEntryMetadata?
    /// Bytes held: the encoded bytes, or the bitmap's `bytesPerRow × height`.
    let cost: Int
    init(data: Data, image: DWImage?, metadata: DWCacheEntryMetadata? = nil) {
        self.data = data
        self.image = image
        self.bitmap = nil
        self.metadata = metadata
        self.cost = data.count
    }
    init(bitmap: DWBitmap) {
        self.data = Data()
        self.image = nil
        self.metadata = nil
        self.bitmap = bitmap
        self.cost = bitmap.bytesPerRow * bitmap.height
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
        /// When it was put here (uptime nanoseconds), for ``maxAge``.
        var storedAt: UInt64 = 0
        var newer = -1
        var older = -1
    }

    /// A doubly linked list over `nodes` (indices; `free` recycles slots), newest at `newest`.
    private struct Store {
        var countLimit: Int
        var costLimit: Int
        /// Nanoseconds an entry is kept after it was put here; 0 = until evicted.
        var maxAge: UInt64 = 0
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
            cost -= nodes[i].entry.cost
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
        set {
            store.withLock {
                $0.countLimit = newValue; $0.trim()
            }
        }
    }
    /// Seconds an entry is answered after it was put here (older ones are removed when asked for); 0 = until evicted.
    var maxAge: TimeInterval {
        get { store.withLock { Double($0.maxAge) / 1e9 } }
        set { store.withLock { $0.maxAge = newValue > 0 ? UInt64(min(newValue, 1e9) * 1e9) : 0 } }
    }
    var costLimit: Int {
        get { store.withLock { $0.costLimit } }
        set {
            store.withLock {
                $0.costLimit = newValue; $0.trim()
            }
        }
    }

    /// The entry, now the most recently used.
    func object(forKey key: String) -> MemoryEntry? {
        store.withLock { s in
            guard let i = s.index[key] else { return nil }
            if s.maxAge > 0, DispatchTime.now().uptimeNanoseconds &- s.nodes[i].storedAt > s.maxAge {
                s.remove(i)
                return nil
            }
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
            if s.costLimit > 0 && entry.cost > s.costLimit / 4 { return }
            let node = Node(key: key, entry: entry, storedAt: s.maxAge > 0 ? DispatchTime.now().uptimeNanoseconds : 0)
            let i: Int
            if let slot = s.free.popLast() {
                i = slot
                s.nodes[i] = node
            } else {
                i = s.nodes.count
                s.nodes.append(node)
            }
            s.index[key] = i
            s.cost += entry.cost
            s.pushNewest(i)
            s.trim()
        }
    }

    func removeObject(forKey key: String) {
        store.withLock { s in if let i = s.index[key] { s.remove(i) } }
    }

    /// Removes every entry whose key satisfies `matches` (called under the lock: keep it pure); their keys.
    func removeObjects(where matches: (String) -> Bool) -> [String] {
        store.withLock { s in
            let keys = s.index.keys.filter(matches)
            for key in keys { if let i = s.index[key] { s.remove(i) } }
            return keys
        }
    }

    /// Entries and bytes held now.
    var totals: (count: Int, cost: Int) { store.withLock { ($0.index.count, $0.cost) } }

    func removeAllObjects() {
        store.withLock { s in s = Store(countLimit: s.countLimit, costLimit: s.costLimit, maxAge: s.maxAge) }
    }
}
