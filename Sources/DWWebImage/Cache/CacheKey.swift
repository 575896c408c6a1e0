// CacheKey: file names for cache keys — MD5 of the UTF-8 bytes, or a raw key that can never escape its directory.
import Crypto
import Foundation

enum CacheKey {
    /// Hex MD5 of the key's UTF-8 bytes (the DW original's secure key, without its UTF-16-length quirk).
    static func md5(_ key: String) -> String {
        DWHex.encode(Insecure.MD5.hash(data: Data(key.utf8)))
    }

    /// The file name for `key`: its MD5 with `secure`, else the key itself with everything but
    /// `[A-Za-z0-9._-]` percent-encoded (so `/`, `..` and NUL cannot name another path), and names that would
    /// be too long (or are `.`-led) replaced by a readable prefix plus the MD5.
    static func fileName(for key: String, secure: Bool) -> String {
        if secure { return md5(key) }
        var name = ""
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                name.append(Character(Unicode.Scalar(byte)))
            default:
                name += String(format: "%%%02X", byte)
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
