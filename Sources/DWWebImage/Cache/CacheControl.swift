// CacheControl: the Cache-Control response directives a private client cache acts on (RFC 9111 §5.2.2).
import Foundation

/// The directives of a response's `Cache-Control` value that a cache acts on with `configuration.honorsCacheControl`.
/// Others (`public`, `private`, `s-maxage`, `immutable`, `must-revalidate`, …) change nothing here: this is a
/// private cache, and a stale entry is always revalidated or refetched, never served stale while online.
struct CacheControl: Equatable {
    /// `no-store`: deliver the response, but do not write it to disk.
    var noStore = false
    /// `no-cache` (qualified with field names or not): store it, but revalidate before every use.
    var noCache = false
    /// `max-age` in seconds, the first one when repeated (RFC 9111 §4.2.1); an unparsable value is 0 (stale).
    var maxAge: TimeInterval?

    /// Parses a header value (several header lines joined with ", "); nil or empty means no directives.
    init(_ value: String?) {
        guard let value, !value.isEmpty else { return }
        for directive in Self.split(value) {
            let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            var argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
            if let a = argument, a.count >= 2, a.hasPrefix("\""), a.hasSuffix("\"") {
                argument = String(a.dropFirst().dropLast())  // quoted-string form (§5.2: senders should not use it)
            }
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "max-age" where maxAge == nil:
                // delta-seconds (§1.2.2): digits; too large for us means 2^31.
                if let a = argument, !a.isEmpty, a.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                    maxAge = a.count > 10 ? 2_147_483_648 : min(TimeInterval(a) ?? 0, 2_147_483_648)
                } else {
                    maxAge = 0
                }
            default: break
            }
        }
    }

    /// How long an entry stored with these directives stays fresh, given the cache's own `expirationTime`
    /// (which always caps it: max-age never keeps an entry longer than the cache would). An entry that says
    /// `no-store` (written while the header was ignored) is stale at once too.
    func freshnessLifetime(cappedAt expirationTime: TimeInterval) -> TimeInterval {
        if noCache || noStore { return 0 }
        if let maxAge { return min(maxAge, expirationTime) }
        return expirationTime
    }

    /// Splits at commas outside quoted strings.
    private static func split(_ value: String) -> [String] {
        var directives: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for ch in value {
            if escaped { escaped = false; current.append(ch); continue }
            switch ch {
            case "\\" where quoted: escaped = true; current.append(ch)
            case "\"": quoted.toggle(); current.append(ch)
            case "," where !quoted:
                if !current.trimmingCharacters(in: .whitespaces).isEmpty { directives.append(current) }
                current = ""
            default: current.append(ch)
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { directives.append(current) }
        return directives
    }
}
