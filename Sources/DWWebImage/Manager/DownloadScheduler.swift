// DownloadScheduler: which waiting download gets the next free slot — priority, newest first (or oldest first),
// per-host and prefetch caps — in amortised constant time per decision.
import Foundation

/// The slot scheduler: a pure value type (no threads, no clocks), so its rules are tested directly.
///
/// The manager keeps one inside its locked state (every call happens under that lock), with `ID` the downloader's
/// identity and `Job` its operation. Waiting jobs live in ten buckets — five priorities × (wanted by someone / only
/// by the prefetcher) — each ordered by how recently someone asked (a sequence number). A free slot goes to the
/// newest entry of the highest non-empty priority whose host is under its cap; prefetch-only buckets are skipped
/// while the prefetch cap is reached. A changed demand (a caller joins, cancels or changes priority) re-files the
/// entry; the old record is left behind and recognised as stale when met (lazy deletion), so no step scans all
/// waiting work. A job holds its slot from ``next()`` until ``end(_:)``.
///
/// With ``newestFirst`` off, the oldest entry of a priority goes first instead and a joining caller does not make an
/// entry newer (list order, for callers that want it). Each bucket then has a head (`heads`): records before it are
/// spent, so taking the oldest costs no shift of the array.
///
/// A rate limit (the manager's ``RequestRateLimiter``) is asked through ``next(mayStart:didStart:)``: an entry whose
/// host may not start now is passed over like one whose host is at its cap, and keeps waiting without a slot.
struct DownloadScheduler<ID: Hashable, Job> {
    typealias Demand = DownloadDemand

    fileprivate struct Waiting {
        let job: Job
        let host: String
        var demand: Demand
        var sequence: UInt64
    }
    fileprivate struct Record {
        let id: ID
        let sequence: UInt64
    }
    private struct Running {
        let host: String
        var prefetchOnly: Bool
    }

    /// Slots in all.
    var maxConcurrent = 6
    /// Slots one host (`host:port`) may hold.
    var maxPerHost = 6
    /// Slots jobs that only the prefetcher wants may hold.
    var maxPrefetches = 2
    /// Newest first within a priority (DW's LIFO, the default); false: oldest first.
    var newestFirst = true

    private var waiting: [ID: Waiting] = [:]
    private var buckets = [[Record]](repeating: [], count: 10)
    /// Per bucket, the first record not yet spent (only oldest first spends records; 0 while newest first).
    private var heads = [Int](repeating: 0, count: 10)
    private var running: [ID: Running] = [:]
    private var perHost: [String: Int] = [:]
    private var runningPrefetches = 0
    private var nextSequence: UInt64 = 0

    /// Jobs waiting for a slot.
    var waitingCount: Int { waiting.count }
    /// Jobs holding a slot.
    var runningCount: Int { running.count }

    private static func bucket(_ demand: Demand) -> Int {
        (demand.priority.rawValue + 2) * 2 + (demand.prefetchOnly ? 0 : 1)
    }

    /// A new job, the newest request so far.
    mutating func enqueue(_ id: ID, job: Job, host: String, demand: Demand) {
        nextSequence += 1
        waiting[id] = Waiting(job: job, host: host, demand: demand, sequence: nextSequence)
        buckets[Self.bucket(demand)].append(Record(id: id, sequence: nextSequence))
    }

    /// The callers of `id` changed: `demand` is what they want now (nil = nobody waits); `asked` = someone just
    /// asked for it, which makes it the newest request of its priority. A running job only leaves (or joins) the
    /// prefetch count.
    mutating func update(_ id: ID, demand: Demand?, asked: Bool) {
        if let entry = running[id] {
            if let demand, demand.prefetchOnly != entry.prefetchOnly {
                running[id]?.prefetchOnly = demand.prefetchOnly
                runningPrefetches += demand.prefetchOnly ? 1 : -1
            }
            return
        }
        guard var entry = waiting[id] else { return }
        guard let demand else {
            waiting[id] = nil
            return
        }
        guard asked || demand != entry.demand else { return }
        if asked && newestFirst {
            nextSequence += 1
            entry.sequence = nextSequence
        }
        entry.demand = demand
        waiting[id] = entry
        // File a new record in order; the old one is now stale (other sequence or other bucket).
        let record = Record(id: id, sequence: entry.sequence)
        let b = Self.bucket(demand)
        var index = buckets[b].count
        while index > heads[b] && buckets[b][index - 1].sequence > record.sequence { index -= 1 }
        buckets[b].insert(record, at: index)
    }

    /// The job is over — it ended while waiting (cancelled), or it held a slot and that slot is free now.
    mutating func end(_ id: ID) {
        if waiting.removeValue(forKey: id) != nil { return }
        guard let entry = running.removeValue(forKey: id) else { return }
        if entry.prefetchOnly { runningPrefetches -= 1 }
        // A running entry was counted when it started, so its host has a count of at least 1 here.
        guard let count = perHost[entry.host] else {
            assertionFailure("running job on \(entry.host) was never counted")
            return
        }
        perHost[entry.host] = count > 1 ? count - 1 : nil
    }

    /// Hands out free slots; returns the jobs to start now, best first. `mayStart(host)` may pass over an entry (a
    /// rate limit); `didStart(host)` is told of each job handed out.
    mutating func next(
        mayStart: (String) -> Bool = { _ in true }, didStart: (String) -> Void = { _ in }
    ) -> [Job] {
        var started: [Job] = []
        while running.count < maxConcurrent, !waiting.isEmpty {
            let prefetchAllowed = runningPrefetches < maxPrefetches
            var pick: (bucket: Int, index: Int, sequence: UInt64)?
            for level in stride(from: 4, through: 0, by: -1) {
                for bucket in [level * 2 + 1, level * 2] where bucket % 2 == 1 || prefetchAllowed {
                    let found =
                        newestFirst ? newestEligible(in: bucket, mayStart) : oldestEligible(in: bucket, mayStart)
                    guard let (index, sequence) = found else { continue }
                    if pick == nil || (sequence > pick!.sequence) == newestFirst { pick = (bucket, index, sequence) }
                }
                if pick != nil { break }
            }
            guard let pick else { break }
            let record = take(pick.index, from: pick.bucket)
            guard let entry = waiting.removeValue(forKey: record.id) else { continue }
            running[record.id] = Running(host: entry.host, prefetchOnly: entry.demand.prefetchOnly)
            if entry.demand.prefetchOnly { runningPrefetches += 1 }
            perHost[entry.host, default: 0] += 1
            didStart(entry.host)
            started.append(entry.job)
        }
        return started
    }

    /// The waiting entry whose live record `record` is (filed in `bucket`); nil for one a re-filing left behind.
    private func liveEntry(_ record: Record, in bucket: Int) -> Waiting? {
        guard let entry = waiting[record.id], entry.sequence == record.sequence, Self.bucket(entry.demand) == bucket
        else { return nil }
        return entry
    }

    /// The newest live record in `bucket` whose host is under its cap and may start; drops stale records at the end.
    private mutating func newestEligible(in bucket: Int, _ mayStart: (String) -> Bool) -> (Int, UInt64)? {
        var index = buckets[bucket].count - 1
        while index >= heads[bucket] {
            let record = buckets[bucket][index]
            guard let entry = liveEntry(record, in: bucket) else {
                if index == buckets[bucket].count - 1 { buckets[bucket].removeLast() }
                index -= 1
                continue
            }
            if perHost[entry.host, default: 0] < maxPerHost, mayStart(entry.host) {
                return (index, record.sequence)
            }
            index -= 1
        }
        return nil
    }

    /// The oldest live record in `bucket` whose host is under its cap and may start; spends stale records at the head.
    private mutating func oldestEligible(in bucket: Int, _ mayStart: (String) -> Bool) -> (Int, UInt64)? {
        var index = heads[bucket]
        while index < buckets[bucket].count {
            let record = buckets[bucket][index]
            guard let entry = liveEntry(record, in: bucket) else {
                if index == heads[bucket] { heads[bucket] += 1 }
                index += 1
                continue
            }
            if perHost[entry.host, default: 0] < maxPerHost, mayStart(entry.host) {
                return (index, record.sequence)
            }
            index += 1
        }
        compact(bucket)
        return nil
    }

    /// Removes the record at `index` of `bucket`; oldest first, the head record is only marked spent.
    private mutating func take(_ index: Int, from bucket: Int) -> Record {
        let record = buckets[bucket][index]
        if !newestFirst && index == heads[bucket] {
            heads[bucket] += 1
            compact(bucket)
        } else {
            buckets[bucket].remove(at: index)
        }
        return record
    }

    /// Drops the spent records before the head once they are most of the bucket (amortised constant time).
    private mutating func compact(_ bucket: Int) {
        let spent = heads[bucket]
        guard spent > 0, spent * 2 >= buckets[bucket].count else { return }
        buckets[bucket].removeFirst(spent)
        heads[bucket] = 0
    }
}

/// What the callers still waiting for a download want: the highest priority among them, and whether they are all
/// the prefetcher.
struct DownloadDemand: Equatable, Sendable {
    var priority: DWWebImagePriority
    var prefetchOnly: Bool
}

extension DownloadScheduler: Sendable where ID: Sendable, Job: Sendable {}
extension DownloadScheduler.Waiting: Sendable where ID: Sendable, Job: Sendable {}
extension DownloadScheduler.Record: Sendable where ID: Sendable, Job: Sendable {}
