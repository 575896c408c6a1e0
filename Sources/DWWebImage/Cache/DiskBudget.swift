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
///
/// A locked write that leaves room enough also counts ``reservation(limit:)`` bytes more in the ledger: room its
/// cache then fills without the lock, so an entry that fits in it and takes a free name costs no `flock`, `pread`
/// or `pwrite`. What is left of it goes back at the cache's next locked write, at ``release(_:lockFile:)`` (once its
/// writes are done) or when it goes away. A process killed with room held leaves the ledger that much high (it
/// evicts early) until the next rescan; room held while another process rescans is not in the rescanned ledger, so
/// the space can pass the limit by at most what each writing cache holds (1/64 of the limit, 4 MiB at most).
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
    /// is tried first, which spares the `stat` of `final` that a replacement needs. `reserved`: the room the
    /// caller holds ahead in the ledger (with a kept lock file): an entry that fits in it is published if absent
    /// without the lock; else it is given back, and taken again when the ledger shows plenty of room.
    static func commit(
        dir: String, final: String, size: Int64, limit: Int64, lockFile: Int32 = -1, reserved: inout Int64,
        publishIfAbsent: () -> Int32? = { nil }, publish: () -> Int32
    ) -> (Int32, [String]) {
        let kept = lockFile >= 0
        var taken: Int32?  // publishIfAbsent's answer when it was tried outside the lock and found the name taken
        if kept && size <= reserved, let code = publishIfAbsent() {
            guard code == EEXIST else {
                if code == 0 { reserved -= size }
                return (code, [])
            }
            taken = code
        }
        let lock = kept ? lockFile : open(dir + "/" + lockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if lock >= 0 { while flock(lock, LOCK_EX) != 0 && errno == EINTR {} }
        defer {
            if kept { _ = flock(lock, LOCK_UN) } else if lock >= 0 { close(lock) }  // closing releases the flock
        }
        // What is left of the room held ahead goes back first (with an invalidated ledger it went already).
        let ledger = lock >= 0 ? readLedger(lock).map { max(0, $0 - reserved) } : nil
        reserved = 0
        if let ledger, limit == 0 || ledger + size <= limit, let code = taken ?? publishIfAbsent() {
            // No eviction either way; a name already taken is replaced after all (its size known from `stat`).
            var total = ledger + (code == 0 ? size : 0)
            var result = code
            if code == EEXIST {
                var old = stat()
                let replaced: Int64 = stat(final, &old) == 0 ? Int64(old.st_size) : 0
                result = publish()
                if result == 0 { total += size - replaced }
            }
            if kept { reserved = takeAhead(&total, limit: limit) }
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
        if kept { reserved = takeAhead(&total, limit: limit) }
        if lock >= 0 { writeLedger(lock, max(0, total)) }
        return (renamed, evicted)
    }

    /// Adds ``reservation(limit:)`` to `total` when it still fits under `limit`; returns the room taken (or 0).
    private static func takeAhead(_ total: inout Int64, limit: Int64) -> Int64 {
        let ahead = reservation(limit: limit)
        guard limit == 0 || max(0, total) + ahead <= limit else { return 0 }
        total = max(0, total) + ahead
        return ahead
    }

    /// The room a write takes ahead in the ledger when there is plenty: 1/64 of `limit`, at most 4 MiB (4 MiB with
    /// no limit). An entry larger than what is left of it takes the lock as before.
    static func reservation(limit: Int64) -> Int64 {
        limit > 0 ? min(limit / 64, 4 << 20) : 4 << 20
    }

    /// Gives `reserved` bytes of room held ahead back to the ledger of the (open) lock file `lockFile`.
    static func release(_ reserved: Int64, lockFile: Int32) {
        guard reserved > 0, lockFile >= 0 else { return }
        while flock(lockFile, LOCK_EX) != 0 && errno == EINTR {}
        defer { _ = flock(lockFile, LOCK_UN) }
        if let ledger = readLedger(lockFile) { writeLedger(lockFile, max(0, ledger - reserved)) }
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
