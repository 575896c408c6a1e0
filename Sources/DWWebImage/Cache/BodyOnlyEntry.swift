// Body-only entries: the file is exactly the payload and the header lives in an extended attribute of the same file,
// so an output file can be that file (a hard link) or a kernel copy of it.
import DWFileIO
import Foundation

/// Where the cache entry an image was read from or written to lives, and which file it was: a body-only entry
/// (``DWWebImageCache/Configuration/bodyOnlyEntries``) whose bytes are exactly the image's. `dwfetch -o` links or
/// kernel-copies it instead of writing the bytes again: from the file itself when the writer kept it open, else after
/// checking that `path` still names this file (`identity`). A plain value: any thread.
package struct DWCacheEntryFile: Sendable, Equatable {
    /// How the file is known.
    package enum Identity: Sendable, Equatable {
        /// Its device and inode when it was validated or written: `path` must still name them.
        case inode(device: UInt64, inode: UInt64)
        /// The file itself, still open (an entry this process has just written and kept, see
        /// ``DWWebImageManager/writesCacheInCallbacks``): whatever `path` names by now, this is the file.
        case open(OpenedEntry)

        package static func == (a: Identity, b: Identity) -> Bool {
            switch (a, b) {
            case (.inode(let d1, let i1), .inode(let d2, let i2)): d1 == d2 && i1 == i2
            case (.open(let f1), .open(let f2)): f1 === f2
            default: false
            }
        }
    }

    /// The entry's path.
    package let path: String
    package let identity: Identity
    /// Its permission bits (an output file linked to it shares them).
    package let mode: UInt32
    /// Its size: the payload's.
    package let size: Int

    init(path: String, stat st: stat) {
        self.path = path
        identity = .inode(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        mode = UInt32(st.st_mode)
        size = Int(st.st_size)
    }

    /// A file just written and kept open: its mode as it was created, `size` as written.
    init(kept file: OpenedEntry, mode: UInt32, size: Int) {
        path = file.path
        identity = .open(file)
        self.mode = mode
        self.size = size
    }
}

extension DiskEntryCodec {
    /// The extended attribute that holds a body-only entry's header (the same bytes ``encodeHeader`` makes).
    static let headerAttribute = "user.dwwebimage.entry"

    /// The header in `fd`'s attribute; nil when there is none (or the file system keeps no user attributes).
    static func attributeHeader(_ fd: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1024)
        var n = buffer.withUnsafeMutableBytes { fileAttribute(fd, headerAttribute, into: $0) }
        if n < 0 && errno == ERANGE {  // a long key: ask for the size
            let size = fileAttribute(fd, headerAttribute, into: nil)
            guard size > 0, size <= 1 << 20 else { return nil }
            buffer = [UInt8](repeating: 0, count: size)
            n = buffer.withUnsafeMutableBytes { fileAttribute(fd, headerAttribute, into: $0) }
        }
        guard n >= fixedHeaderSize, n <= buffer.count else { return nil }
        buffer.removeLast(buffer.count - n)
        return buffer
    }

    /// Stores `header` in `fd`'s attribute; 0 or the errno (`EOPNOTSUPP` where the file system keeps none).
    static func setAttributeHeader(_ header: [UInt8], on fd: Int32) -> Int32 {
        header.withUnsafeBytes { setFileAttribute(fd, headerAttribute, to: $0) }
    }

    /// Reads a body-only entry whose first `n` bytes (all of them when `n` < ``firstReadSize``) are in `buffer`
    /// (from `malloc`, ``firstReadSize`` bytes; the payload takes it, or it is freed here). Nil when the file has no
    /// header attribute or does not match it (torn, truncated, bit-flipped, or not ours).
    static func readBodyOnly(fd: Int32, buffer: UnsafeMutableRawPointer, read n: Int) -> Entry? {
        guard let head = attributeHeader(fd) else {
            free(buffer)
            return nil
        }
        var size = n
        if n >= firstReadSize {
            var st = stat()
            guard fstat(fd, &st) == 0 else {
                free(buffer)
                return nil
            }
            size = Int(st.st_size)
        }
        guard let header = head.withUnsafeBytes({ parseHeader($0, fileSize: $0.count + size) }),
            header.flags & gzipFlag == 0, header.payloadLength == size
        else {
            free(buffer)
            return nil
        }
        if size >= FileBytes.mapThreshold {
            free(buffer)
            guard let payload = FileBytes.map(fd: fd, length: size) else { return nil }
            return bodyOnly(finish(header, payload: payload, mapped: true))
        }
        guard let owned = realloc(buffer, max(size, 1)) else {
            free(buffer)
            return nil
        }
        guard size <= n || preadFully(fd, owned + n, size - n, at: n) else {
            free(owned)
            return nil
        }
        let payload = Data(bytesNoCopy: owned, count: size, deallocator: .custom { _, _ in free(owned) })
        return bodyOnly(finish(header, payload: payload))
    }

    private static func bodyOnly(_ entry: Entry?) -> Entry? {
        guard var entry else { return nil }
        entry.bodyOnly = true
        return entry
    }
}
