// DWWebImageOperation: the DW Operation subclass — one per download, finished when its downloader ends.
import Foundation
import DWLocking

/// An asynchronous `Operation` that runs one ``DWWebImageDownloader``: it starts the transfer in `start()` and
/// becomes finished when the download ends (success, failure or cancellation).
///
/// It is the manager's slot token: the manager's scheduler decides when it may run, and the manager calls `start()`
/// on its one serial start queue (no `OperationQueue`: the scheduler holds the order and the count).
public final class DWWebImageOperation: Operation, @unchecked Sendable {
    // @unchecked: Operation is not Sendable. This subclass's own mutable state is `state`, behind one lock;
    // `downloader` and `group` are immutable.

    /// The download this operation runs.
    public let downloader: DWWebImageDownloader
    /// The manager's count of started, unfinished operations.
    private let group: DispatchGroup

    private struct State {
        var executing = false
        var finished = false
    }
    private let state = DWLock(State())

    init(downloader: DWWebImageDownloader, group: DispatchGroup) {
        self.downloader = downloader
        self.group = group
        super.init()
    }

    /// Always true: the work runs on libcurl's thread, not on the caller's.
    public override var isAsynchronous: Bool { true }
    /// True while the download runs.
    public override var isExecuting: Bool { state.withLock { $0.executing } }
    /// True once the download has ended.
    public override var isFinished: Bool { state.withLock { $0.finished } }

    /// Starts the download (or finishes at once if cancelled while waiting). Called by the manager once, on its
    /// start queue (see ``DWWebImageManager``'s `schedule()`).
    public override func start() {
        let first = state.withLock { s -> Bool in
            guard !s.executing && !s.finished else { return false }
            s.executing = true
            return true
        }
        guard first else { return }
        group.enter()
        if isCancelled {
            finish()
            return
        }
        downloader.begin { [self] in finish() }
    }

    /// Cancels the operation; a running download is stopped (its callers get 10007).
    public override func cancel() {
        super.cancel()
        if isExecuting { downloader.cancelAll() }
    }

    private func finish() {
        let changed = state.withLock { s -> Bool in
            guard !s.finished else { return false }
            s.executing = false
            s.finished = true
            return true
        }
        if changed { group.leave() }
    }
}
