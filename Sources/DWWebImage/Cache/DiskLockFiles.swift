// DiskLockFiles: a cache's open lock files, one per space directory it writes to, kept open between writes, with
// the room in each space's ledger the cache has taken ahead of its writes.
import Foundation
import DWLocking

/// The lock file (``DiskBudget/lockName``, which holds the ledger) of each space directory a cache writes to, opened
/// once and kept open, so a write locks and unlocks it (`flock` twice) instead of opening and closing it each time.
/// `flock` locks belong to the open file, so other caches and processes, with their own, still exclude each other.
/// The cache never deletes a lock file (clearing a space keeps it); should the directory vanish, the write that
/// recreates it calls ``forget(_:)`` and the next one opens the new lock file.
///
/// Beside each descriptor: the bytes this cache has counted in that space's ledger ahead of its writes and not yet
/// written (``DiskBudget/commit(dir:final:size:limit:lockFile:reserved:publishIfAbsent:publish:)``), given back by
/// ``releaseReservations()``.
///
/// Thread safety: the table is behind one `DWLock` (a leaf, never held across a system call that waits). A
/// descriptor and its reservation are used by the cache's disk writes, which `writeSemaphore` runs one at a time
/// (``releaseReservations()`` takes it too). Closed when the cache goes away.
final class DiskLockFiles: Sendable {
    /// One space's lock file and the room taken ahead in its ledger.
    struct Space {
        let fd: Int32
        var reserved: Int64 = 0
    }

    /// The spaces by directory; one cache writes to one space at a time (see ``LastUsedTable``).
    private let spaces = DWLock(LastUsedTable<Space>())

    deinit {
        for space in spaces.withLock({ $0.values }) {
            DiskBudget.release(space.reserved, lockFile: space.fd)
            close(space.fd)
        }
    }

    /// The open lock file of `dir` (opened, and created, on first use) and the room this cache holds ahead in its
    /// ledger; fd -1 if it cannot be opened.
    func space(for dir: String) -> Space {
        if let space = spaces.withLock({ $0[dir] }) { return space }
        let fd = Glibc.open(dir + "/" + DiskBudget.lockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return Space(fd: -1) }
        let kept = spaces.withLock { table -> Space in
            if let other = table[dir] { return other }
            table[dir] = Space(fd: fd)
            return Space(fd: fd)
        }
        if kept.fd != fd { close(fd) }
        return kept
    }

    /// Records the room this cache now holds ahead in `dir`'s ledger (after a write used or took some).
    func setReserved(_ reserved: Int64, in dir: String) {
        spaces.withLock { $0[dir]?.reserved = reserved }
    }

    /// Gives every space's unused room back to its ledger (the caller runs no write meanwhile).
    func releaseReservations() {
        let held = spaces.withLock { table -> [Space] in
            let held = table.values.filter { $0.reserved > 0 }
            table.modifyAll { $0.reserved = 0 }
            return held
        }
        for space in held { DiskBudget.release(space.reserved, lockFile: space.fd) }
    }

    /// Closes the lock file of `dir` (its directory was recreated: the next write opens the new one). The room it
    /// held went with the old ledger.
    func forget(_ dir: String) {
        let space = spaces.withLock { $0.removeValue(forKey: dir) }
        if let space { close(space.fd) }
    }
}
