// FailedURLs: the manager's negative cache (Configuration.failedURLTTL), keys whose last download failed.
import DWLocking
import Dispatch

/// Keys whose download failed recently, with the failure and when it stops counting. A request for such a key is
/// answered with that failure instead of a request (SDWebImage's failed-URL blacklist, with an expiry; the
/// `.retryFailed` option bypasses it). Only failures another request right away would repeat are kept: 10000 (not an
/// image), 10003 (transport), 10004 (HTTP status), 10005 (too large); never a cancel, a cache-only miss, a cache
/// failure or an invalid URL. A success removes the key's entry.
///
/// Thread safety: one ``DWLock`` (a leaf: taken inside the manager's `state` lock, never the other way round).
final class FailedURLs: Sendable {
    private struct Entry {
        let error: DWWebImageError
        let expires: UInt64
    }
    private let entries = DWLock([String: Entry]())

    /// The codes kept.
    static let kept: Set<DWWebImageError.Code> = [.notAnImage, .transport, .httpStatus, .tooLarge]

    /// Records how the download of `key` ended, for `ttl` seconds (0 or less keeps nothing).
    func record(_ ending: Result<Void, DWWebImageError>, forKey key: String, ttl: Double) {
        switch ending {
        case .success:
            entries.withLock { _ = $0.removeValue(forKey: key) }
        case .failure(var error):
            guard ttl > 0, Self.kept.contains(error.code) else { return }
            error.isRemembered = true
            let expires = DispatchTime.now().uptimeNanoseconds &+ UInt64(min(ttl, 1e9) * 1e9)
            entries.withLock { table in
                if table.count >= 10_000 { Self.dropExpired(&table) }
                if table.count >= 10_000 { table.removeAll(keepingCapacity: true) }  // bounded, whatever comes
                table[key] = Entry(error: error, expires: expires)
            }
        }
    }

    /// The failure `key` is answered with now, or nil when it has none or it expired.
    func failure(forKey key: String) -> DWWebImageError? {
        entries.withLock { table in
            guard let entry = table[key] else { return nil }
            guard entry.expires > DispatchTime.now().uptimeNanoseconds else {
                table[key] = nil
                return nil
            }
            return entry.error
        }
    }

    private static func dropExpired(_ table: inout [String: Entry]) {
        let now = DispatchTime.now().uptimeNanoseconds
        table = table.filter { $0.value.expires > now }
    }
}
