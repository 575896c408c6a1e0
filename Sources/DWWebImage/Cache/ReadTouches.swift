// ReadTouches: which entries this process has marked as read lately, so a hit pays for the atime update at most
// once a minute per entry.
import DWLocking
import Foundation

/// Remembers, per entry path, when this process last set the entry's atime (the "last read" that LRU eviction
/// orders by). A hit on an entry touched less than ``granularity`` ago skips the `futimens`, a tenth of a small
/// hit's cost. What it trades: recency is known to within a minute, and only a first read after that is seen.
/// Nothing it remembers can make an entry look older than it is: a write or another process's touch only moves
/// an atime later.
///
/// Thread safety: the table lives behind one `DWLock`.
final class ReadTouches: Sendable {
    /// How stale an entry's atime may be before a hit refreshes it (seconds).
    static let granularity: Int64 = 60
    /// The table is emptied past this many paths (it is a shortcut, not a record).
    private static let capacity = 8192

    /// Touch times by a 64-bit hash of the path (hashing and comparing ~100-byte path strings cost more than the
    /// touch saved). Two paths sharing a hash would only mean one touch too few, once a minute.
    private let table = DWLock([UInt64: Int64]())

    /// Whether a hit on `path` should set its atime now; when it returns true the touch is recorded as done.
    /// Nothing needs forgetting when files go: a file written later has a later atime than anything recorded.
    func shouldTouch(_ path: String) -> Bool {
        let now = Self.now()
        let key = Self.hash(path)
        return table.withLock { table in
            if let last = table[key], now - last < Self.granularity { return false }
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[key] = now
            return true
        }
    }

    /// A fast 64-bit hash of the path's UTF-8 bytes, eight at a time (multiply-rotate mixing, then a finaliser).
    static func hash(_ path: String) -> UInt64 {
        var path = path
        return path.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            var h: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(raw.count)
            var i = 0
            while i + 8 <= raw.count {
                h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                h = (h << 31) | (h >> 33)
                i += 8
            }
            while i < raw.count {
                h = (h ^ UInt64(raw[i])) &* 0x9E37_79B9_7F4A_7C15
                i += 1
            }
            h ^= h >> 33
            h &*= 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 33
            return h
        }
    }

    /// Seconds on a coarse monotonic clock (a vDSO read, no syscall).
    private static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
        return Int64(ts.tv_sec)
    }
}
