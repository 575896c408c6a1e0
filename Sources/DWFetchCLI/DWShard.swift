// DWShard: `--shard K/N` — the URLs whose digest falls in shard K of N, so N machines split a list uncoordinated.
import ArgumentParser
import Crypto
import Foundation

/// Shard K of N (1 ≤ K ≤ N). A URL belongs to shard 1 + (the first 8 bytes of SHA-256(URL), big-endian) mod N: the
/// same on every machine and every run, so N runs with K = 1…N together take every URL of a list exactly once.
package struct DWShard: ExpressibleByArgument, Sendable, Equatable {
    package let index: Int
    package let count: Int

    package init?(argument: String) {
        let parts = argument.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else {
            return nil
        }
        (index, count) = (k, n)
    }

    /// Whether `url` (as written) is in this shard.
    package func contains(_ url: String) -> Bool {
        Self.shard(of: url, count: count) == index
    }

    /// The shard (1…count) `url` falls in.
    static func shard(of url: String, count: Int) -> Int {
        let digest = SHA256.hash(data: Data(url.utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(prefix % UInt64(count)) + 1
    }
}
