// DiskBudget: a cache space's size, kept under its limit at write time, across processes.
import Foundation

/// Byte accounting for one cache-space directory, shared by every process that writes there.
///
/// The ledger (total bytes of the entries, 8 bytes little-endian, kept in the lock file itself so a write costs
/// one `pread` and one `pwrite`, not a file of its own) and the renames that add entries change only under an
/// exclusive `flock` on `.lock`, so two processes never both think there is room. When a write would pass the
/// limit, the directory is rescanned (fixing any drift, e.g. from a writer that died between ledger and rename) and
/// the least recently *read* entries (by atime, which reads set explicitly — `noatime` mounts don't matter) are
/// removed down to 70 % of the limit. Removals outside a write drop the ledger; the next write rescans.
enum DiskBudget {
    static let lockName = ".lock"

    /// One entry file.
    struct File {
        let name: String
        let size: Int64
        let lastRead: Int64  // atime, nanoseconds
        let written: Int64  // mtime, seconds
    }

    /// The entry files of `dir` (dot files — the lock file with its ledger, the sweep marker, temp files — excluded).
    static func scan(_ dir: String) -> [File] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        var files: [File] = []
        files.reserveCapacity(names.count)
        for name in names where !name.hasPrefix(".") {
            var st = stat()
            guard lstat(dir + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            files.append(
                File(
                    name: name, size: Int64(st.st_size),
                    lastRead: Int64(st.st_atim.tv_sec) * 1_000_000_000 + Int64(st.st_atim.tv_nsec),
                    written: Int64(st.st_mtim.tv_sec)))
        }
        return files
    }

    /// Publishes a new entry of `size` bytes as `final` (`publish` names the written file, replacing what is there,
    /// and returns 0 or an errno) under the space lock, first evicting least recently read entries when the space
    /// would pass `limit` (0 = no limit). Returns publish's result and the keys of the evicted entries.
    ///
    /// `lockFile`: the space's lock file, kept open by the caller (``DiskLockFiles``; it is locked and unlocked
    /// here), or -1 to open and close it now. `publishIfAbsent`: names the file only if the name is free (0, EEXIST
    /// or an errno; nil when it cannot tell): when the ledger shows room for the entry whatever it replaces, that
    /// is tried first, which spares the `stat` of `final` that a replacement needs.
    static func commit(
        dir: String, final: String, size: Int64, limit: Int64, lockFile: Int32 = -1,
        publishIfAbsent: () -> Int32? = { nil }, publish: () -> Int32
    ) -> (Int32, [String]) {
        let kept = lockFile >= 0
        let lock = kept ? lockFile : open(dir + "/" + lockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if lock >= 0 { while flock(lock, LOCK_EX) != 0 && errno == EINTR {} }
        defer {
            if kept { _ = flock(lock, LOCK_UN) } else if lock >= 0 { close(lock) }  // closing releases the flock
        }
        let ledger = lock >= 0 ? readLedger(lock) : nil
        if let ledger, limit == 0 || ledger + size <= limit, let code = publishIfAbsent() {
            // No eviction either way; a name already taken is replaced after all (its size known from `stat`).
            var total = ledger + (code == 0 ? size : 0)
            var result = code
            if code == EEXIST {
                var old = stat()
                let replaced: Int64 = stat(final, &old) == 0 ? Int64(old.st_size) : 0
                result = publish()
                if result == 0 { total += size - replaced }
            }
            writeLedger(lock, max(0, total))
            return (result, [])
        }
        var old = stat()
        let replaced: Int64 = stat(final, &old) == 0 ? Int64(old.st_size) : 0
        var total = (ledger ?? scan(dir).reduce(0) { $0 + $1.size }) + size - replaced
        var evicted: [String] = []
        if limit > 0 && total > limit {
            let finalName = (final as NSString).lastPathComponent
            var files = scan(dir).filter { $0.name != finalName }
            total = files.reduce(size) { $0 + $1.size }
            files.sort { $0.lastRead < $1.lastRead }
            let lowWater = limit / 10 * 7
            for file in files where total > lowWater {
                let path = dir + "/" + file.name
                let key = entryKey(path)
                if unlink(path) == 0 {
                    total -= file.size
                    if let key { evicted.append(key) }
                }
            }
        }
        let renamed = publish()
        if renamed != 0 { total -= size - replaced }
        if lock >= 0 { writeLedger(lock, max(0, total)) }
        return (renamed, evicted)
    }

    /// Forgets the ledger after removals (the next write rescans).
    static func invalidate(_ dir: String) {
        let lock = open(dir + "/" + lockName, O_RDWR | O_CLOEXEC)
        guard lock >= 0 else { return }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 && errno == EINTR {}
        _ = ftruncate(lock, 0)
    }

    /// Marks an entry as just read (its atime), for LRU eviction.
    static func touch(_ fd: Int32) {
        // UTIME_NOW and UTIME_OMIT (macros Swift does not import): set atime to now, leave mtime (the write time).
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
        _ = futimens(fd, &times)
    }

    /// The key stored in an entry's header (without reading its payload); nil if it is not an entry.
    static func entryKey(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return DiskEntryCodec.readKey(fd: fd)
    }

    /// The ledger in the (locked) lock file; nil when it has been invalidated or was never written.
    private static func readLedger(_ lock: Int32) -> Int64? {
        var value: Int64 = 0
        guard pread(lock, &value, 8, 0) == 8 else { return nil }
        let total = Int64(littleEndian: value)
        return total >= 0 ? total : nil
    }

    private static func writeLedger(_ lock: Int32, _ total: Int64) {
        var value = total.littleEndian
        _ = pwrite(lock, &value, 8, 0)
    }
}
