// OpenedEntry: an entry file held open — by a lookup until it is read, or by the writer that has just published it —
// and closed when its last reference goes, on any thread.
import Foundation
import Synchronization

/// A cache entry file held open, closed when the last reference goes.
///
/// - A lookup opens it read-only, as every disk lookup does: a caller that may not read the disk where it asks can
///   probe here (an absent file is a miss at once) and hand the open file to another queue to read and validate
///   (``DiskEntryCodec/read(_:touches:)``), without a second path lookup.
/// - A writer that has just published a body-only entry can keep it open (``adopting(_:path:)``): `dwfetch -o` then
///   links or copies the output from the file itself, with no second look at the path (which by then may name a
///   newer entry of another process).
///
/// Thread safety: immutable; the descriptor is used by one thread at a time (the lookup, or the output's writer).
/// The count of kept writers' descriptors is an atomic.
package final class OpenedEntry: Sendable {
    package let fd: Int32
    package let path: String
    /// Whether this is a writer's kept descriptor, counted in ``kept``.
    private let counted: Bool

    /// Opens `path` without updating its atime where the file is ours (the cache sets atimes itself, see
    /// ``ReadTouches``); nil when it cannot be opened (absent, most often).
    init?(path: String) {
        var fd = open(path, O_RDONLY | O_CLOEXEC | DiskEntryCodec.noAtime)
        if fd < 0 && errno == EPERM { fd = open(path, O_RDONLY | O_CLOEXEC) }  // not the file's owner
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.path = path
        counted = false
    }

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        counted = true
    }

    /// Takes over `fd`, a file just published as `path`, when fewer than ``keptLimit`` are kept; nil otherwise (the
    /// caller closes `fd`). Bounded so that results waiting in a caller's queues never hold enough descriptors to run
    /// the process out of them.
    static func adopting(_ fd: Int32, path: String) -> OpenedEntry? {
        guard kept.wrappingAdd(1, ordering: .relaxed).newValue <= keptLimit else {
            kept.wrappingSubtract(1, ordering: .relaxed)
            return nil
        }
        return OpenedEntry(fd: fd, path: path)
    }

    /// At most this many writers' descriptors are kept open at once, process-wide.
    static let keptLimit = 256
    private static let kept = Atomic<Int>(0)

    deinit {
        close(fd)
        if counted { Self.kept.wrappingSubtract(1, ordering: .relaxed) }
    }
}
