// DWWebImageDownloader: one download of one URL, with the callback array of everyone waiting for it.
import Foundation
import DWLocking

/// One download of one URL. It holds the *callback array* of every caller waiting for that URL; when the transfer
/// ends it validates the bytes, stores them in the cache, calls every callback exactly once and posts the
/// notifications (`object:` this downloader).
///
/// Created by ``DWWebImageManager``; run by a ``DWWebImageOperation``, which starts it on the manager's start
/// queue. A finished transfer is classified on the engine thread (a small body held whole in memory whose disk write
/// can be queued without waiting) or else on the manager's work queue: validated, kept in memory, the slot given
/// back (``DownloadOwner/downloadEnded(_:)``, once per downloader), then every caller answered in one block on the
/// callback queue, then the disk write queued on the cache's write queue.
///
/// Thread safety: all mutable state is in `state`, one `DWLock` (taken after the manager's, before a waiter's);
/// callbacks and notifications are dispatched to the manager's `callbackQueue` after the lock is released.
public final class DWWebImageDownloader: Sendable {
    /// The URL string callers asked for (also the cache key).
    public let url: String
    let context: DownloadContext

    /// `finishing`: the result is being made; callers may still join until the manager has been told.
    enum Phase: Sendable { case waiting, running, finishing, finished, cancelled }

    struct State {
        var phase: Phase = .waiting
        var waiters: [Waiter] = []
        var transfer: CurlTransfer?
        var finishOperation: (@Sendable () -> Void)?
        weak var operation: DWWebImageOperation?
        /// The manager has been told this download is over (``DownloadOwner/downloadEnded(_:)``; exactly once).
        var endReported = false
        var lastProgressReport: UInt64 = 0
        var lastProgressBytes: Int64 = 0
        /// Attempts made so far (a whole-body refetch after a failed resume is part of the same attempt).
        var attempts = 1
        /// Requests made without Range after a resume was refused, in this download.
        var wholeRefetches = 0
        /// The Range start of the request in flight (0 = whole body).
        var requestedOffset: Int64 = 0
        /// Where the body of the response in flight starts (after the server agreed to resume).
        var appendedFrom: Int64 = 0
        var bytesReceived: Int64 = 0
        var startedAt: UInt64 = 0
        var firstByteAt: UInt64?
        /// How the download ended, once it has (set before the manager is told): nil while running, after a cancel.
        var ending: Result<Void, DWWebImageError>?
    }
    /// When the download was created (a caller asked); the queue time runs from here to `begin`.
    let createdAt = DispatchTime.now().uptimeNanoseconds
    let state = DWLock(State())
    /// The body across attempts (memory, or a partial file on disk).
    let partial: PartialBody

    /// The key it is cached and coalesced under (the URL unless a cache key or key filter says otherwise).
    let key: String

    init(url: String, key: String? = nil, context: DownloadContext) {
        self.url = url
        self.key = key ?? url
        self.context = context
        self.partial = PartialBody(
            url: self.key, store: context.partialStore, spillThreshold: context.partialSpillThreshold)
    }

    /// Callers currently waiting (not yet completed).
    public var waiterCount: Int { state.withLock { $0.waiters.filter { !$0.isDelivered }.count } }

    /// The highest priority among the callers still waiting, and whether they are all the prefetcher;
    /// nil when nobody waits any more.
    var demand: DownloadDemand? {
        state.withLock { s in
            var best: DWWebImagePriority?
            var prefetchOnly = true
            for waiter in s.waiters where !waiter.isDelivered {
                best = max(best ?? waiter.priority, waiter.priority)
                if !waiter.isPrefetch { prefetchOnly = false }
            }
            return best.map { DownloadDemand(priority: $0, prefetchOnly: prefetchOnly) }
        }
    }

    func setOperation(_ operation: DWWebImageOperation) { state.withLock { $0.operation = operation } }

    /// Adds a caller to the callback array; false when this download has already ended (make a new one).
    func attach(_ waiter: Waiter) -> Bool {
        state.withLock { s in
            guard s.phase == .waiting || s.phase == .running || s.phase == .finishing else { return false }
            s.waiters.append(waiter)
            return true
        }
    }

    /// Tells the manager, once, that this download is over: it takes no new callers and its slot is free.
    func reportEnd() {
        let first = state.withLock { s -> Bool in
            defer { s.endReported = true }
            return !s.endReported
        }
        if first { context.owner?.downloadEnded(self) }
    }

    /// Posts `name` (Start, Stop: the URL is all they carry) on the callback queue, its userInfo made there.
    func post(_ name: Notification.Name) {
        guard let center = context.notificationCenter else { return }
        let post: @Sendable () -> Void = {
            center.post(name: name, object: self, userInfo: [DWWebImageNotificationKey.url: self.url])
        }
        context.callbackQueue.async(execute: post)
    }
}
