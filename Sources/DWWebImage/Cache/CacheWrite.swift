// CacheWrite: one disk write of the pipeline as one value — taken once when the write is decided, consumed once.
import DWLocking
import Foundation

/// One announced disk write. ``DWWebImageCache/takeWrite(forKey:)`` (or ``DWWebImageCache/reserveWrite(forKey:)``,
/// which also takes a place in the write backlog, for a caller that must not wait for one) announces it to
/// ``DWWebImageCache/waitForPendingWrites(timeout:)``; exactly one of ``writeAndNotify(_:metadata:url:queue:)``,
/// ``writeHere(_:metadata:url:)``, ``writeVariant(_:)``, ``writeData(_:)`` or ``cancel()`` consumes it, and a value
/// dropped unconsumed cancels itself, so no announced write or backlog place is ever left open. A second
/// consumption does nothing (and stops a debug build).
///
/// Thread safety: any thread; its state is one `DWLock` (a leaf). The write itself runs on the cache's write queue,
/// or with ``writeHere(_:metadata:url:)`` on the caller's thread.
final class CacheWrite: Sendable {
    /// The key written.
    let key: String
    private let cache: DWWebImageCache
    private let state: DWLock<State>

    private struct State {
        var consumed = false
        /// A place in the write backlog is held (``DWWebImageCache/reserveWrite(forKey:)``).
        var reserved: Bool
        /// The downloaded image findable by key until written (``hold(_:)``).
        var ticket: UInt64?
    }

    /// Made by the cache, which has announced the write (and taken a backlog place when `reserved`).
    init(cache: DWWebImageCache, key: String, reserved: Bool) {
        self.cache = cache
        self.key = key
        state = DWLock(State(reserved: reserved))
    }

    deinit {
        if let s = consume() { end(s) }
    }

    /// Makes `image` findable by ``DWWebImageCache/memoryOrPendingImage(forKey:)`` until the write is done.
    func hold(_ image: DWImage) {
        let ticket = cache.pendingImages.withLock { $0.add(image, forKey: key) }
        state.withLock { $0.ticket = ticket }
    }

    /// Writes the downloaded `image` on the cache's write queue (waiting for a backlog place unless one is held),
    /// then posts ``Notification/Name/DWWebImageCacheComplete`` (with `"error"` on failure) on `queue`.
    func writeAndNotify(_ image: DWImage, metadata: DWCacheEntryMetadata, url: String, queue: DispatchQueue) {
        guard let s = consumeOnce() else { return }
        let (cache, key) = (cache, key)
        cache.enqueueWrite(reserved: s.reserved) {
            let error = cache.writeEntry(image, forKey: key, metadata: metadata, url: url).error
            if let ticket = s.ticket { cache.pendingImages.withLock { $0.remove(ticket, forKey: key) } }
            queue.async { cache.postCacheComplete(url: url, error: error) }
        }
    }

    /// Writes the downloaded `image` here, on the callback queue (the start of a download's callback block, with
    /// ``DWWebImageManager/writesCacheInCallbacks``). Returns `image` with its ``DWImage/entryFile`` when the
    /// entry is body-only, and what is left to do after the callers: posting
    /// ``Notification/Name/DWWebImageCacheComplete`` (when `notifies`) and ending the write (call it on the same
    /// thread).
    func writeHere(
        _ image: DWImage, metadata: DWCacheEntryMetadata, url: String, notifies: Bool = true
    ) -> (DWImage, @Sendable () -> Void) {
        guard let s = consumeOnce() else { return (image, {}) }
        let (cache, key) = (cache, key)
        var stamped = image
        // Kept open: the caller (dwfetch -o) links or copies its output from the file itself.
        let (error, file) = cache.writeEntry(image, forKey: key, metadata: metadata, url: url, keepsOpen: true)
        stamped.entryFile = file
        if let ticket = s.ticket { cache.pendingImages.withLock { $0.remove(ticket, forKey: key) } }
        if s.reserved { cache.writeBacklog.signal() }
        return (
            stamped,
            {
                if notifies { cache.postCacheComplete(url: url, error: error) }
                cache.pendingWrites.leave()
            }
        )
    }

    /// Writes a processed variant on the write queue (nil when making it failed: nothing to write). It carries no
    /// validators, so once expired it is a miss and is made again from the original (which is revalidated).
    /// Failures are logged; no notification is posted.
    func writeVariant(_ image: DWImage?) {
        guard let s = consumeOnce() else { return }
        guard let image else { return end(s) }
        let (cache, key) = (cache, key)
        cache.enqueueWrite(reserved: s.reserved) {
            cache.writeLogged(image.data, forKey: key, release: image.releasesWindows)
        }
    }

    /// Writes `data` (not an image: a small JSON answer, say) on the write queue, never waiting for a backlog
    /// place (the caller may be an async task). Failures are logged.
    func writeData(_ data: Data) {
        guard let s = consumeOnce() else { return }
        let (cache, key) = (cache, key)
        cache.enqueueWrite(reserved: s.reserved, backlog: false) {
            cache.writeLogged(data, forKey: key, release: false)
        }
    }

    /// Nothing will be written after all: ends the announced write and gives back its backlog place.
    func cancel() {
        if let s = consumeOnce() { end(s) }
    }

    private func consume() -> State? {
        state.withLock { s -> State? in
            guard !s.consumed else { return nil }
            s.consumed = true
            return s
        }
    }

    private func consumeOnce() -> State? {
        let s = consume()
        if s == nil { assertionFailure("cache write of \(key) consumed twice") }
        return s
    }

    private func end(_ s: State) {
        if let ticket = s.ticket { cache.pendingImages.withLock { $0.remove(ticket, forKey: key) } }
        if s.reserved { cache.writeBacklog.signal() }
        cache.pendingWrites.leave()
    }
}
