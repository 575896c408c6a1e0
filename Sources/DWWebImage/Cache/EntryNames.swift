// EntryNames: the paths of the keys a cache named last, so the write after a lookup does not digest the key again.
import DWLocking
import Foundation

/// The entry file paths (a space's directory and ``CacheKey/fileName(for:secure:digest:)``) of the keys most recently
/// named, one per slot of a small direct-mapped table. A download looks its key up on disk when it is asked for and
/// writes the entry when the body arrives, and both need the path: the second finds it here instead of hashing the
/// key again (an MD5 and its hex, ~2.6 k instructions, and the path's concatenation, against ~0.4 k here). A key
/// whose slot another key took since is simply named again.
///
/// Thread safety: the table is behind one `DWLock` (a leaf); digests are computed outside it.
final class EntryNames: Sendable {
    private struct Slot {
        let key: String
        let directory: String
        let secure: Bool
        let digest: DWCacheKeyDigest
        let path: String
    }

    /// A power of two, above the downloads a caller usually has between a lookup and its write.
    private static let slotCount = 512
    private let slots = DWLock([Slot?](repeating: nil, count: slotCount))

    /// `key`'s file in `directory` (a space's path, ending in a slash) under these naming settings: remembered, or
    /// made and remembered.
    func path(for key: String, in directory: String, secure: Bool, digest: DWCacheKeyDigest) -> String {
        let index = Self.slot(of: key)
        if let slot = slots.withLock({ $0[index] }), slot.key == key, slot.directory == directory,
            slot.secure == secure, slot.digest == digest
        {
            return slot.path
        }
        let path = directory + CacheKey.fileName(for: key, secure: secure, digest: digest)
        slots.withLock { $0[index] = Slot(key: key, directory: directory, secure: secure, digest: digest, path: path) }
        return path
    }

    /// FNV-1a over the key's length and its last 16 bytes (URLs differ at their end more than anywhere else).
    private static func slot(of key: String) -> Int {
        var key = key
        return key.withUTF8 { bytes in
            var hash: UInt32 = 2_166_136_261 ^ UInt32(truncatingIfNeeded: bytes.count)
            for byte in bytes.suffix(16) { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
            return Int(hash & UInt32(slotCount - 1))
        }
    }
}
