// PartialStore: partial bodies on disk, so a download killed at 90% costs 10% to finish — even in a new process.
import DWFileIO
import Foundation

/// The folder of partial downloads: `<cache root>/partial/<sha256(url) prefix>.part` (the bytes so far) and
/// `.meta` beside it (a small JSON record: URL, bytes, validator, Accept-Ranges, total).
///
/// Each `.part` file is held with an exclusive `flock` while a download uses it, so two processes (or two
/// downloads in one process) never write the same partial; the loser simply downloads in memory. Bytes are
/// written with `write(2)` as they arrive — a SIGKILL loses nothing the kernel already has; no fsync (a power
/// loss can leave a short or torn tail, which the next run's If-Range/length checks and the image validation
/// catch). The file length, not the record, says how many bytes are held.
struct PartialStore: Sendable {
    /// The folder's path, without a trailing slash (created on first use). A string: one store is made per
    /// download, and URL path operations cost microseconds each.
    let path: String
    /// The folder.
    var directory: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Data files 0600 and the folder 0700 (the cache's ``DWWebImageCache/Configuration/privateFiles``).
    let privateFiles: Bool

    init(directory: URL) { self.init(path: directory.path) }

    init(path: String, privateFiles: Bool = false) {
        self.path = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        self.privateFiles = privateFiles
    }

    /// The store beside the cache spaces, `<cacheRoot>/partial` (built as a string: URL.appendingPathComponent
    /// stats the path, and this is made per download).
    init(cacheRoot: URL) {
        var root = cacheRoot.path
        if !root.hasSuffix("/") { root += "/" }
        self.init(path: root + "partial")
    }

    /// What the `.meta` file says.
    struct Record: Codable, Equatable {
        var url: String
        var bytes: Int64
        var etag: String?
        var lastModified: String?
        var acceptRanges: Bool
        var total: Int64?
    }

    func paths(for url: String) -> (data: String, record: String) {
        let digest = DWDigest.sha256Hex(Data(url.utf8), bytes: 16)
        // A string, not URL.appendingPathComponent: that one stats the path to decide on a trailing slash.
        let base = path + "/" + digest
        return (base + ".part", base + ".meta")
    }

    /// An existing partial for `url`, locked for this caller; nil when there is none, it is in use elsewhere, or
    /// its record is missing, unreadable or for another URL (such files are removed). In a folder that held no
    /// partial a moment ago (``PartialFolders``) it does not look.
    func openExisting(url: String) -> PartialFile? {
        guard PartialFolders.shared.mayHoldPartials(path) else { return nil }
        let (dataPath, recordPath) = paths(for: url)
        let fd = open(dataPath, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        guard let recordData = FileManager.default.contents(atPath: recordPath),
            let record = try? JSONDecoder().decode(Record.self, from: recordData), record.url == url,
            record.etag != nil || record.lastModified != nil
        else {
            unlink(dataPath)
            unlink(recordPath)
            close(fd)
            return nil
        }
        var st = stat()
        guard fstat(fd, &st) == 0, lseek(fd, 0, SEEK_END) >= 0 else {
            close(fd)
            return nil
        }
        let validator = ResumeValidator(etag: record.etag, lastModified: record.lastModified)
        return PartialFile(
            fd: fd, dataPath: dataPath, recordPath: recordPath, length: Int64(st.st_size),
            url: url, validator: validator, total: record.total)
    }

    /// A new, empty partial for `url`, locked; nil when the folder is unwritable or the file is in use.
    func create(url: String) -> PartialFile? {
        let (dataPath, recordPath) = paths(for: url)
        let mode: mode_t = privateFiles ? 0o600 : 0o644
        var fd = open(dataPath, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        if fd < 0 && errno == ENOENT {
            DWWebImageCache.createDirectories(path, private: privateFiles)
            fd = open(dataPath, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        }
        guard fd >= 0 else { return nil }
        PartialFolders.shared.noteCreated(in: path)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, ftruncate(fd, 0) == 0 else {
            close(fd)
            return nil
        }
        return PartialFile(
            fd: fd, dataPath: dataPath, recordPath: recordPath, length: 0, url: url,
            validator: nil, total: nil)
    }

    /// Removes partials not written for `maxAge` seconds and not in use; returns how many.
    @discardableResult
    func removeExpired(maxAge: TimeInterval, now: Date = Date()) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return 0 }
        var removed = 0
        for name in names where name.hasSuffix(".part") {
            let dataPath = path + "/" + name
            let recordPath = String(dataPath.dropLast(5)) + ".meta"
            var st = stat()
            guard stat(dataPath, &st) == 0 else { continue }
            let age = now.timeIntervalSince1970 - TimeInterval(st.st_mtim.tv_sec)
            guard age > maxAge else { continue }
            let fd = open(dataPath, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                unlink(dataPath)
                unlink(recordPath)
                removed += 1
            }
            close(fd)
        }
        // Records whose data file is gone.
        for name in names where name.hasSuffix(".meta") {
            let recordPath = path + "/" + name
            if access(String(recordPath.dropLast(5)) + ".part", F_OK) != 0 { unlink(recordPath) }
        }
        return removed
    }
}

/// One open, locked partial file. Not thread-safe: owned by one ``PartialBody``, which serialises access.
final class PartialFile: @unchecked Sendable {
    // @unchecked: not thread-safe by itself. PartialStore hands each new one to exactly one owner; a PartialBody
    // touches it only inside its `state` lock, and tests use it from one thread.
    let fd: Int32
    let dataPath: String
    let recordPath: String
    let url: String
    private(set) var length: Int64
    var validator: ResumeValidator?
    var total: Int64?
    private var closed = false

    init(
        fd: Int32, dataPath: String, recordPath: String, length: Int64, url: String,
        validator: ResumeValidator?, total: Int64?
    ) {
        self.fd = fd
        self.dataPath = dataPath
        self.recordPath = recordPath
        self.length = length
        self.url = url
        self.validator = validator
        self.total = total
    }

    deinit { if !closed { Glibc.close(fd) } }

    /// Appends `bytes`; false on a write error (disk full…), after which the caller should stop using the file.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard writeFully(fd, bytes) == 0 else { return false }
        length += Int64(bytes.count)
        return true
    }

    /// Empties the file (a new representation is about to be written).
    func truncate() -> Bool {
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { return false }
        length = 0
        return true
    }

    /// Writes the record beside the data (temp + rename, so a reader never sees half of it).
    func writeRecord(acceptRanges: Bool) {
        let record = PartialStore.Record(
            url: url, bytes: length, etag: validator?.etag,
            lastModified: validator?.lastModified, acceptRanges: acceptRanges,
            total: total)
        guard let data = try? JSONEncoder().encode(record) else { return }
        let temp = recordPath + ".tmp-\(getpid())"
        let ok = data.withUnsafeBytes { raw -> Bool in
            let out = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard out >= 0 else { return false }
            defer { Glibc.close(out) }
            return write(out, raw.baseAddress!, raw.count) == raw.count
        }
        if !ok || rename(temp, recordPath) != 0 { unlink(temp) }
    }

    /// The bytes held, memory-mapped (no copy; the mapping outlives the file's removal).
    func mappedData() -> Data? {
        guard length > 0 else { return Data() }
        return FileBytes.map(fd: fd, length: Int(length))
    }

    /// Closes the file (releasing the lock); `remove` deletes it and its record first.
    func close(remove: Bool) {
        guard !closed else { return }
        if remove {
            unlink(dataPath)
            unlink(recordPath)
        }
        closed = true
        Glibc.close(fd)
    }
}
