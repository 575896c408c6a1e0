// OpenedEntry: an entry file opened for reading, owned until it is read (or dropped) on any thread.
import Foundation

/// A cache entry file opened read-only, as every disk lookup opens it, and closed when the last reference goes.
/// A caller that may not read the disk where it asks can probe here (an absent file is a miss at once) and hand
/// the open file to another queue to read and validate (``DiskEntryCodec/read(_:touches:)``), without a second
/// path lookup.
///
/// Thread safety: immutable; the descriptor is read by one thread at a time (the lookup that owns it).
final class OpenedEntry: Sendable {
    let fd: Int32
    let path: String

    /// Opens `path` without updating its atime where the file is ours (the cache sets atimes itself, see
    /// ``ReadTouches``); nil when it cannot be opened (absent, most often).
    init?(path: String) {
        var fd = open(path, O_RDONLY | O_CLOEXEC | DiskEntryCodec.noAtime)
        if fd < 0 && errno == EPERM { fd = open(path, O_RDONLY | O_CLOEXEC) }  // not the file's owner
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }
}
