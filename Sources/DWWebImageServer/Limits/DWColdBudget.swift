// DWColdBudget: one token bucket per client, charged only for cold work; a bounded table of them.
import DWLocking
import Foundation

/// Token buckets by client: each holds up to `burst` tokens, refilled at `rate` per second, and a cold request takes
/// one. A bucket that has refilled to `burst` is the same as a new one, so it is forgotten first when the table
/// passes `maxClients` (then the least recently charged ones go): memory stays bounded whatever the number of
/// clients. Thread safety: the table is behind one ``DWLock`` (a leaf); callable from any thread or task.
final class DWColdBudget: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: TimeInterval
    }

    let rate: Double
    let burst: Double
    let maxClients: Int
    private let buckets = DWLock([String: Bucket]())

    init(rate: Double, burst: Int, maxClients: Int) {
        self.rate = rate
        self.burst = Double(max(1, burst))
        self.maxClients = max(1, maxClients)
    }

    /// Takes one token from `client`'s bucket at time `now` (seconds, monotonic): nil when taken, else the seconds
    /// until one is there (at least 1, for `Retry-After`).
    func charge(_ client: String, now: TimeInterval = ProcessInfo.processInfo.systemUptime) -> Int? {
        buckets.withLock { table -> Int? in
            var bucket = table[client].map { refilled($0, now: now) } ?? Bucket(tokens: burst, updated: now)
            guard bucket.tokens >= 1 else {
                table[client] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            table[client] = bucket
            if table.count > maxClients { evict(&table, now: now) }
            return nil
        }
    }

    /// How many clients have a bucket now.
    var clientCount: Int { buckets.withLock { $0.count } }

    private func refilled(_ bucket: Bucket, now: TimeInterval) -> Bucket {
        Bucket(tokens: min(burst, bucket.tokens + max(0, now - bucket.updated) * rate), updated: now)
    }

    /// Drops full buckets (an idle client's, the same as a new one), then the least recently charged, until at
    /// most 3/4 of `maxClients` remain, so a sweep is paid once per many new clients. Under the table's lock.
    private func evict(_ table: inout [String: Bucket], now: TimeInterval) {
        for (client, bucket) in table where refilled(bucket, now: now).tokens >= burst { table[client] = nil }
        let target = max(1, maxClients * 3 / 4)
        guard table.count > target else { return }
        let oldest = table.sorted { $0.value.updated < $1.value.updated }.prefix(table.count - target)
        for (client, _) in oldest { table[client] = nil }
    }
}
