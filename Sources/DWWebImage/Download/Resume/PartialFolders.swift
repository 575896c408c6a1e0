// PartialFolders: which partial folders hold no partial at all, so a download there need not look for its own.
import Foundation
import DWLocking

/// Remembers, per partial folder, whether it held any `.part` file when it was last listed, so that a download
/// starting in an empty folder (the usual case: nothing was interrupted) skips looking for its partial — the
/// SHA-256 of its URL and an `openat` that finds nothing, per download.
///
/// A folder is listed again at most every ``relistInterval`` (one listing per second, however many downloads), and
/// a partial created by this process marks its folder at once. A partial another process leaves behind is therefore
/// seen within a second; one that process is still writing is locked and could not be resumed anyway.
///
/// Thread safety: one `DWLock` (a leaf) around the table; listing happens outside it.
final class PartialFolders: Sendable {
    /// The process-wide table (folders are shared by every store and manager of the process).
    static let shared = PartialFolders()

    /// How long a listing stands, in nanoseconds.
    let relistInterval: UInt64

    private struct Entry {
        var empty: Bool
        var listedAt: UInt64
        /// When this process last created a partial there (0: never).
        var createdAt: UInt64 = 0
    }

    /// By folder; downloads use one folder at a time (see ``LastUsedTable``).
    private let table = DWLock(LastUsedTable<Entry>())

    /// A table whose listings stand for `relistInterval` seconds.
    init(relistInterval: TimeInterval = 1) {
        self.relistInterval = UInt64(max(0, relistInterval) * 1e9)
    }

    /// Whether `folder` may hold a partial (false: it held none a moment ago, and this process made none since).
    func mayHoldPartials(_ folder: String) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        if let known = table.withLock({ $0[folder] }), now &- known.listedAt < relistInterval {
            return !known.empty
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let listedEmpty = !names.contains { $0.hasSuffix(".part") }
        return table.withLock { t -> Bool in
            // A partial this process created while the folder was being listed counts.
            let createdSince = (t[folder]?.createdAt ?? 0) >= now
            let empty = listedEmpty && !createdSince
            t[folder] = Entry(empty: empty, listedAt: now, createdAt: t[folder]?.createdAt ?? 0)
            return !empty
        }
    }

    /// This process created a partial in `folder` (or is about to).
    func noteCreated(in folder: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        table.withLock { t in
            var entry = t[folder] ?? Entry(empty: false, listedAt: 0)
            entry.empty = false
            entry.createdAt = now
            t[folder] = entry
        }
    }
}
