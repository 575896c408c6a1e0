// DWWebImageOperation: the DW Operation subclass — one per download, finished when its downloader ends.
import Foundation
import DWLocking

/// An asynchronous `Operation` that runs one ``DWWebImageDownloader`` and occupies one of the manager's
/// ``DWWebImageManager/maxConcurrentDownloads`` slots until the download has ended.
///
/// Newest-first: when it starts, it fires its ``startMarker``, which lets the next-older waiting operation become
/// ready. Cancelling it before it starts makes it finish at once; cancelling while it runs stops the transfer.
public final class DWWebImageOperation: Operation, @unchecked Sendable {
    // @unchecked: Operation is not Sendable. This subclass's own mutable state is `state`, a Mutex;
    // `downloader` and the hooks are immutable.

    /// The download this operation runs (the DW original's `donwloader`).
    public let downloader: DWWebImageDownloader
    /// Fired when this operation starts; the previously queued operation of the same priority depends on it.
    let startMarker = StartMarker()
    /// Priority level (lane of the newest-first chain).
    let lane: Int
    private let willStart: @Sendable (DWWebImageOperation) -> Void

    private struct State {
        var executing = false
        var finished = false
    }
    private let state = DWLock(State())

    init(downloader: DWWebImageDownloader, lane: Int, willStart: @escaping @Sendable (DWWebImageOperation) -> Void) {
        self.downloader = downloader
        self.lane = lane
        self.willStart = willStart
        super.init()
        name = "DWWebImageOperation \(downloader.url)"
    }

    /// Always asynchronous: it finishes when the download ends, not when `start()` returns.
    public override var isAsynchronous: Bool { true }
    /// True while the download runs.
    public override var isExecuting: Bool { state.withLock { $0.executing } }
    /// True once the download has ended (or the operation was cancelled before starting).
    public override var isFinished: Bool { state.withLock { $0.finished } }

    /// Called by the queue: fires the start marker, then starts the download (or finishes if cancelled).
    public override func start() {
        willStart(self)
        startMarker.fire()
        if isCancelled {
            finish()
            return
        }
        state.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        downloader.begin { [self] in finish() }
    }

    /// Cancels the operation; a running download is stopped by its downloader.
    public override func cancel() {
        super.cancel()
        if isExecuting { downloader.stopTransfer() }
    }

    /// Marks the operation finished (once) and tells the queue, which frees the slot.
    func finish() {
        let changed = state.withLock { s -> (wasExecuting: Bool, changed: Bool) in
            guard !s.finished else { return (false, false) }
            let was = s.executing
            s.executing = false
            s.finished = true
            return (was, true)
        }
        guard changed.changed else { return }
        if changed.wasExecuting { didChangeValue(forKey: "isExecuting") }
        didChangeValue(forKey: "isFinished")
    }
}
