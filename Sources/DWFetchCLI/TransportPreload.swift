// TransportPreload: libcurl opened on a helper thread while the main thread does other start-up work.
import DWWebImage
import Foundation

/// Loads libcurl (``DWWebImageManager/loadTransport()``) on a thread of its own from the moment it is made. A
/// transfer that needs libcurl before the load is done waits for it inside libcurl's one-time set-up. Thread-safe.
final class TransportPreload: Sendable {
    private let done = DispatchSemaphore(value: 0)

    init() {
        Thread.detachNewThread { [done] in
            DWWebImageManager.loadTransport()
            done.signal()
        }
    }

    /// Blocks until the load has finished (at once if it has).
    func wait() {
        done.wait()
        done.signal()
    }
}
