// DWRetryPolicy: how many more attempts a failed download gets, and how long to wait before each.
import Foundation

/// When and how often a failed download is tried again (ImageX's `DelayRetry`).
///
/// Retried: transport failures (refused, reset, timeout, stall…), HTTP 5xx, 408 and 429. Never retried: other
/// 4xx, cancellation, size limits, redirect loops, refused protocols, bytes that are not an image. Every retry
/// resumes from the bytes already received when the server allows it.
public struct DWRetryPolicy: Sendable, Equatable {
    /// How the wait grows from one retry to the next.
    public enum Backoff: Sendable, Equatable {
        /// Always ``DWRetryPolicy/interval``.
        case constant
        /// `interval × multiplier^(n-1)`, capped at `maxInterval`, then randomised by ±`jitter` (a fraction,
        /// 0…1) so that many clients do not retry in lockstep.
        case exponential(multiplier: Double = 2, maxInterval: TimeInterval = 60, jitter: Double = 0.2)
    }

    /// Retries after the first attempt (0 = none).
    public var maxRetries: Int
    /// The base wait between attempts, in seconds.
    public var interval: TimeInterval
    /// How the wait grows.
    public var backoff: Backoff
    /// The longest `Retry-After` (on 429/503) that is honoured, in seconds; a longer one ends the download with
    /// its error instead of waiting.
    public var maxRetryAfter: TimeInterval

    /// A policy; see the properties.
    public init(maxRetries: Int, interval: TimeInterval, backoff: Backoff = .constant, maxRetryAfter: TimeInterval = 60)
    {
        self.maxRetries = max(0, maxRetries)
        self.interval = max(0, interval)
        self.backoff = backoff
        self.maxRetryAfter = max(0, maxRetryAfter)
    }

    /// ImageX's default: 3 retries, 3 seconds apart.
    public static let max3s = DWRetryPolicy(maxRetries: 3, interval: 3)
    /// No retries.
    public static let none = DWRetryPolicy(maxRetries: 0, interval: 0)

    /// Seconds to wait before retry number `retry` (1-based), ignoring `Retry-After`.
    public func delay(beforeRetry retry: Int, random: () -> Double = { Double.random(in: 0...1) }) -> TimeInterval {
        switch backoff {
        case .constant:
            return interval
        case .exponential(let multiplier, let maxInterval, let jitter):
            let exponent = Double(max(0, retry - 1))
            let base = min(maxInterval, interval * pow(max(1, multiplier), exponent))
            let spread = min(1, max(0, jitter))
            return max(0, base * (1 - spread + 2 * spread * random()))
        }
    }

    /// Parses `Retry-After` (delta-seconds or an HTTP-date, RFC 9110 §10.2.3) into seconds from `now`.
    static func retryAfterSeconds(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) { return value.count > 9 ? .infinity : TimeInterval(value) }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// IMF-fixdate parsing (`Sun, 06 Nov 1994 08:49:37 GMT`), the only form senders may generate.
package enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    package static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
            let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month + 1
        components.day = day
        components.hour = clock[0]
        components.minute = clock[1]
        components.second = clock[2]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        return calendar.date(from: components)
    }
}
