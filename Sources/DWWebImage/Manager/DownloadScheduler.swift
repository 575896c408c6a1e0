// DownloadScheduler: which waiting download gets the next free slot — priority, newest first, per-host and
// prefetch caps — in amortised constant time per decision.
import Foundation

/// The manager's scheduler. A value inside the manager's locked state: every call happens under that lock.
///
/// Waiting downloads live in ten buckets — five priorities × (wanted by someone / only by the prefetcher) — each
/// ordered by how recently someone asked (a sequence number). A free slot goes to the newest entry of the
/// highest non-empty priority whose host is under its cap; prefetch-only buckets are skipped while the prefetch
/// cap is reached. A changed demand (a caller joins, cancels or changes priority) re-files the entry; the old
/// record is left behind and recognised as stale when met (lazy deletion), so no step scans all waiting work.
struct DownloadScheduler {
    /// What the callers still waiting for a download want.
    struct Demand: Equatable {
        var priority: DWWebImagePriority
        var prefetchOnly: Bool

        init(priority: DWWebImagePriority, prefetchOnly: Bool) {
            self.priority = priority
            self.prefetchOnly = prefetchOnly
        }

        init(_ demand: (priority: DWWebImagePriority, prefetchOnly: Bool)) {
            self.init(priority: demand.priority, prefetchOnly: demand.prefetchOnly)
        }
    }

    private struct Waiting {
        let operation: DWWebImageOperation
        var demand: Demand
        var sequence: UInt64
    }
    private struct Record {
        let key: ObjectIdentifier
        let sequence: UInt64
    }
    private struct Running {
        let operation: DWWebImageOperation
        let host: String
        var prefetchOnly: Bool
    }

    var maxConcurrent = 6
    var maxPerHost = 6
    var maxPrefetches = 2

    private var waiting: [ObjectIdentifier: Waiting] = [:]
    private var buckets = [[Record]](repeating: [], count: 10)
    private var running: [ObjectIdentifier: Running] = [:]
    private var perHost: [String: Int] = [:]
    private var nextSequence: UInt64 = 0

    /// Downloads waiting for a slot.
    var waitingCount: Int { waiting.count }
    /// Downloads given a slot and not finished.
    var runningCount: Int { running.count }

    private static func key(_ operation: DWWebImageOperation) -> ObjectIdentifier { ObjectIdentifier(operation.downloader) }
    private static func bucket(_ demand: Demand) -> Int { (demand.priority.rawValue + 2) * 2 + (demand.prefetchOnly ? 0 : 1) }

    /// A new download, the newest request so far.
    mutating func enqueue(_ operation: DWWebImageOperation, demand: Demand) {
        nextSequence += 1
        let key = Self.key(operation)
        waiting[key] = Waiting(operation: operation, demand: demand, sequence: nextSequence)
        buckets[Self.bucket(demand)].append(Record(key: key, sequence: nextSequence))
    }

    /// The callers of `downloader` changed: `demand` is what they want now (nil = nobody waits); `asked` = someone
    /// just asked for it, which makes it the newest request of its priority.
    mutating func update(_ downloader: DWWebImageDownloader, demand: Demand?, asked: Bool) {
        let key = ObjectIdentifier(downloader)
        if running[key] != nil {
            if let demand { running[key]?.prefetchOnly = demand.prefetchOnly }  // a prefetch lifted while running
            return
        }
        guard var entry = waiting[key] else { return }
        guard let demand else {
            waiting[key] = nil
            return
        }
        guard asked || demand != entry.demand else { return }
        if asked {
            nextSequence += 1
            entry.sequence = nextSequence
        }
        entry.demand = demand
        waiting[key] = entry
        // File a new record in order; the old one is now stale (other sequence or other bucket).
        let record = Record(key: key, sequence: entry.sequence)
        var bucket = buckets[Self.bucket(demand)]
        var index = bucket.count
        while index > 0 && bucket[index - 1].sequence > record.sequence { index -= 1 }
        bucket.insert(record, at: index)
        buckets[Self.bucket(demand)] = bucket
    }

    /// The download ended while it waited (cancelled): forget it.
    mutating func remove(_ downloader: DWWebImageDownloader) {
        waiting[ObjectIdentifier(downloader)] = nil
    }

    /// A running download's operation finished: its slot is free.
    mutating func finished(_ operation: DWWebImageOperation) {
        guard let entry = running.removeValue(forKey: Self.key(operation)) else { return }
        perHost[entry.host, default: 1] -= 1
        if perHost[entry.host] == 0 { perHost[entry.host] = nil }
    }

    /// Hands out free slots; returns the operations to start now, best first.
    mutating func next() -> [DWWebImageOperation] {
        var started: [DWWebImageOperation] = []
        while running.count < maxConcurrent, !waiting.isEmpty {
            let prefetchAllowed = running.values.lazy.filter(\.prefetchOnly).count < maxPrefetches
            var pick: (bucket: Int, index: Int, sequence: UInt64)?
            for level in stride(from: 4, through: 0, by: -1) {
                for bucket in [level * 2 + 1, level * 2] where bucket % 2 == 1 || prefetchAllowed {
                    guard let (index, sequence) = newestEligible(in: bucket) else { continue }
                    if pick == nil || sequence > pick!.sequence { pick = (bucket, index, sequence) }
                }
                if pick != nil { break }
            }
            guard let pick else { break }
            let record = buckets[pick.bucket].remove(at: pick.index)
            guard let entry = waiting.removeValue(forKey: record.key) else { continue }
            let host = entry.operation.downloader.context.hostKey
            running[record.key] = Running(operation: entry.operation, host: host, prefetchOnly: entry.demand.prefetchOnly)
            perHost[host, default: 0] += 1
            started.append(entry.operation)
        }
        return started
    }

    /// The newest live record in `bucket` whose host is under its cap; drops stale records at the end.
    private mutating func newestEligible(in bucket: Int) -> (Int, UInt64)? {
        var index = buckets[bucket].count - 1
        while index >= 0 {
            let record = buckets[bucket][index]
            guard let entry = waiting[record.key], entry.sequence == record.sequence,
                  Self.bucket(entry.demand) == bucket else {
                if index == buckets[bucket].count - 1 { buckets[bucket].removeLast() }
                index -= 1
                continue
            }
            if perHost[entry.operation.downloader.context.hostKey, default: 0] < maxPerHost {
                return (index, record.sequence)
            }
            index -= 1
        }
        return nil
    }
}
