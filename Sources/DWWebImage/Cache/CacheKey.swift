// CacheKey: file names for cache keys — a digest of the UTF-8 bytes (MD5, SHA-1 or SHA-256, as the cache is
// configured), or a raw key that can never escape its directory.
import Crypto
import Foundation

/// The digest that names files when ``DWWebImageCache/useSecureKey`` is on.
public enum DWCacheKeyDigest: String, Sendable, CaseIterable {
    /// MD5 of the key's UTF-8 bytes, as DW (default).
    case md5
    /// SHA-1, as ImageX.
    case sha1
    /// SHA-256, as Kingfisher 8.
    case sha256
}

enum CacheKey {
    /// The key of a processed variant: `"<n>:<url>@<m>:<identifier>|…"`, the URL and each identifier prefixed with
    /// their UTF-8 byte counts. Unambiguous for every caller: no other (URL, chain) pair spells the same key (a URL
    /// may contain "@" and "|", e.g. `a.png@resize(10x,fit)`), and no URL spells a variant key, since a URL's scheme
    /// starts with a letter and a variant key with a digit.
    static func variant(url: String, identifiers: [String]) -> String {
        var key = "\(url.utf8.count):\(url)@"
        for (index, identifier) in identifiers.enumerated() {
            if index > 0 { key += "|" }
            key += "\(identifier.utf8.count):\(identifier)"
        }
        return key
    }

    /// Hex MD5 of the key's UTF-8 bytes (the DW original's secure key, without its UTF-16-length quirk).
    static func md5(_ key: String) -> String { digest(key, .md5) }

    /// Hex digest of the key's UTF-8 bytes, hashed in place (no copy of the key, no generic hex loop: this
    /// runs on every lookup).
    static func digest(_ key: String, _ kind: DWCacheKeyDigest) -> String {
        var key = key
        return key.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            switch kind {
            case .md5: return hex(Insecure.MD5.self, bytes)
            case .sha1: return hex(Insecure.SHA1.self, bytes)
            case .sha256: return hex(SHA256.self, bytes)
            }
        }
    }

    private static func hex<H: HashFunction>(_: H.Type, _ bytes: UnsafeRawBufferPointer) -> String {
        var hasher = H()
        hasher.update(bufferPointer: bytes)
        return hasher.finalize().withUnsafeBytes { DWHex.encode($0) }
    }

    /// The file name for `key`: its MD5 with `secure`, else the key itself with everything but
    /// `[A-Za-z0-9._-]` percent-encoded (so `/`, `..` and NUL cannot name another path), and names that would
    /// be too long (or are `.`-led) replaced by a readable prefix plus the MD5.
    static func fileName(for key: String, secure: Bool, digest: DWCacheKeyDigest = .md5) -> String {
        if secure { return self.digest(key, digest) }
        var name = PercentEncoding.encode(key) { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                true
            default: false
            }
        }
        if name.isEmpty || name.hasPrefix(".") || name.utf8.count > 200 {
            name = "k_" + String(name.replacingOccurrences(of: ".", with: "%2E").prefix(100)) + "_" + md5(key)
        }
        return name
    }

    /// A cache space name safe as one directory component.
    static func directoryName(forSpace space: String) -> String {
        let name = fileName(for: space.isEmpty ? "defaultCacheSpace" : space, secure: false)
        return name
    }
}
