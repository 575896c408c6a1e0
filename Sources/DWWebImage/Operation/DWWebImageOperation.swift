// DWWebImageOperation: the DW Operation subclass — one per download, finished when its downloader ends.
import Foundation
import DWLocking

/// An asynchronous `Operation` that runs one ``DWWebImageDownloader``: it starts the transfer in `start()` and
/// becomes finished when the download ends (success, failure or cancellation).
///
/// The manager's scheduler adds it to the `OperationQueue` when it has a slot.
public final class DWWebImageOperation: Operation, @unchecked Sendable {
    // @unchecked: Operation is not Sendable. This subclass's own mutable state is `state`, behind one lock;
    // `downloader` and the hook are immutable.

    /// The download this operation runs.
    public let downloader: DWWebImageDownloader
    private let didFinish: @Sendable (DWWebImageOperation) -> Void

    private struct State {
        var executing = false
        var finished = false
    }
    private let state = DWLock(State())

    init(downloader: DWWebImageDownloader, didFinish: @escaping @Sendable (DWWebImageOperation) -> Void) {
        self.downloader = downloader
        self.didFinish = didFinish
        super.init()
        name = "DWWebImageOperation \(downloader.url)"
    }

    /// Always true: the work runs on libcurl's thread, not on the queue's.
    public override var isAsynchronous: Bool { true }
    /// True while the download runs.
    public override var isExecuting: Bool { state.withLock { $0.executing } }
    /// True once the download has ended.
    public override var isFinished: Bool { state.withLock { $0.finished } }

    /// Starts the download (or finishes at once if cancelled while waiting).
    public override func start() {
        if isCancelled {
            finish()
            return
        }
        state.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        downloader.begin { [self] in finish() }
    }

    /// Cancels the operation; a running download is stopped (its callers get 10007).
    public override func cancel() {
        super.cancel()
        if isExecuting { downloader.stopTransfer() }
    }

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
        didFinish(self)
    }
}
