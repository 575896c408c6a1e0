// DiskLockFiles: a cache's open lock files, one per space directory it writes to, kept open between writes.
import Foundation
import DWLocking

/// The lock file (``DiskBudget/lockName``, which holds the ledger) of each space directory a cache writes to, opened
/// once and kept open, so a write locks and unlocks it (`flock` twice) instead of opening and closing it each time.
/// `flock` locks belong to the open file, so other caches and processes, with their own, still exclude each other.
/// The cache never deletes a lock file (clearing a space keeps it); should the directory vanish, the write that
/// recreates it calls ``forget(_:)`` and the next one opens the new lock file.
///
/// Thread safety: the table is behind one `DWLock` (a leaf). A descriptor is used by the cache's disk writes, which
/// `writeSemaphore` runs one at a time. Closed when the cache goes away.
final class DiskLockFiles: Sendable {
    private let open = DWLock([String: Int32]())

    deinit {
        for fd in open.withLock({ Array($0.values) }) { close(fd) }
    }

    /// The open lock file of `dir` (opened, and created, on first use); -1 if it cannot be opened.
    func descriptor(for dir: String) -> Int32 {
        if let fd = open.withLock({ $0[dir] }) { return fd }
        let fd = Glibc.open(dir + "/" + DiskBudget.lockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return -1 }
        let kept = open.withLock { table -> Int32 in
            if let other = table[dir] { return other }
            table[dir] = fd
            return fd
        }
        if kept != fd { close(fd) }
        return kept
    }

    /// Closes the lock file of `dir` (its directory was recreated: the next write opens the new one).
    func forget(_ dir: String) {
        if let fd = open.withLock({ $0.removeValue(forKey: dir) }) { close(fd) }
    }
}
