// RequestRateLimiter: token buckets over the requests a manager sends (Configuration.requestsPerSecond(PerHost)).
import DWLocking
import Dispatch

/// Nuke's rate limiter as two token buckets: one over every request and one per `host:port`. A bucket refills at
/// its rate up to ``Settings/burst`` tokens; a request starts only when both buckets it draws from hold a whole
/// token. The manager asks before a waiting download is given a slot (so a download waiting for a token holds none)
/// and the downloader before each retry; a take may drive a bucket below zero when the two race, which delays the
/// next start by the debt, so the average rate holds.
///
/// Thread safety: one ``DWLock`` (a leaf, taken inside the manager's `state` lock).
final class RequestRateLimiter: Sendable {
    /// The limits in force (nil rate: no limit on that bucket).
    struct Settings: Equatable, Sendable {
        var overall: Double?
        var perHost: Double?
        var burst: Int
        var isLimited: Bool { overall != nil || perHost != nil }
    }
    private struct Bucket {
        var tokens: Double
        var updated: UInt64
        /// Refills to `now` at `rate` tokens a second, up to `burst`.
        mutating func refill(rate: Double, burst: Int, now: UInt64) {
            tokens = min(Double(burst), tokens + Double(now &- updated) / 1e9 * rate)
            updated = now
        }
    }
    private struct State {
        var settings = Settings(overall: nil, perHost: nil, burst: 1)
        var overall: Bucket?
        var hosts: [String: Bucket] = [:]
    }
    private let state = DWLock(State())

    /// Adopts `settings` (buckets start full when limits change).
    func configure(_ settings: Settings) {
        state.withLock { s in
            guard s.settings != settings else { return }
            s = State()
            s.settings = settings
        }
    }

    /// Whether a request to `host` may start now (both buckets hold a whole token). Takes nothing.
    func mayStart(host: String) -> Bool {
        state.withLock { s in
            let now = DispatchTime.now().uptimeNanoseconds
            return Self.available(&s, host: host, now: now)
        }
    }

    /// Takes a token from both buckets of `host` (after ``mayStart(host:)``, or for a retry: then the debt, if any,
    /// delays later starts). Returns the seconds to wait before sending (0: at once).
    @discardableResult
    func take(host: String) -> Double {
        state.withLock { s in
            guard s.settings.isLimited else { return 0 }
            let now = DispatchTime.now().uptimeNanoseconds
            _ = Self.available(&s, host: host, now: now)
            var wait = 0.0
            if let rate = s.settings.overall, var bucket = s.overall {
                bucket.tokens -= 1
                if bucket.tokens < 0 { wait = max(wait, -bucket.tokens / rate) }
                s.overall = bucket
            }
            if let rate = s.settings.perHost, var bucket = s.hosts[host] {
                bucket.tokens -= 1
                if bucket.tokens < 0 { wait = max(wait, -bucket.tokens / rate) }
                s.hosts[host] = bucket
            }
            return wait
        }
    }

    /// Seconds until any bucket gains a token (when something waits for one), at least 1 ms; nil without limits.
    var refillInterval: Double? {
        state.withLock { s in
            let rates = [s.settings.overall, s.settings.perHost].compactMap { $0 }
            guard let fastest = rates.max(), fastest > 0 else { return nil }
            return max(0.001, 1 / fastest)
        }
    }

    /// Refills `host`'s buckets (made full when new) and says whether both hold a whole token.
    private static func available(_ s: inout State, host: String, now: UInt64) -> Bool {
        var ok = true
        let burst = max(1, s.settings.burst)
        if let rate = s.settings.overall {
            var bucket = s.overall ?? Bucket(tokens: Double(burst), updated: now)
            bucket.refill(rate: rate, burst: burst, now: now)
            s.overall = bucket
            ok = ok && bucket.tokens >= 1
        }
        if let rate = s.settings.perHost {
            if s.hosts.count > 4096 { s.hosts = s.hosts.filter { $0.value.tokens < Double(burst) } }
            var bucket = s.hosts[host] ?? Bucket(tokens: Double(burst), updated: now)
            bucket.refill(rate: rate, burst: burst, now: now)
            s.hosts[host] = bucket
            ok = ok && bucket.tokens >= 1
        }
        return ok
    }
}
