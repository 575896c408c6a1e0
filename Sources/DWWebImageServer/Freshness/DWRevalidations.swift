// DWRevalidations: when each source's original was last known to be current, for `--revalidate-after`.
import DWLocking
import Foundation

/// When each source was last checked with its origin (or its original stored), so that a request learns at the cost
/// of one lock whether its source is due for a revalidation. Bounded: past ``limit`` sources the map is emptied, and
/// each source's next request reads its original's date from the disk entry again. Thread-safe: one ``DWLock`` (a
/// leaf, held for a dictionary access only).
final class DWRevalidations: Sendable {
    private let checked = DWLock([String: Date]())
    /// Most sources remembered.
    static let limit = 65_536

    /// An empty record.
    init() {}

    /// When `source` was last known current; nil when this server has not seen it (or forgot it).
    func lastChecked(_ source: String) -> Date? {
        checked.withLock { $0[source] }
    }

    /// Records that `source` was current at `date`.
    func markChecked(_ source: String, at date: Date) {
        checked.withLock { map in
            if map.count >= Self.limit, map[source] == nil { map.removeAll(keepingCapacity: true) }
            map[source] = date
        }
    }
}
