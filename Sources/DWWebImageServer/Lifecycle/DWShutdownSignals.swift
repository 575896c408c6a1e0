// DWShutdownSignals: SIGTERM/SIGINT once → graceful shutdown; a second one → exit at once.
import DWLocking
import DWSignals
import Foundation
import Logging

/// Watches SIGTERM and SIGINT while a server runs (a ``SignalWatch``: armed when `init` returns, so a signal at any
/// moment of the start-up either kills the process, as before any server, or starts the shutdown — never vanishes;
/// default actions restored by ``cancel()``). The first one calls `onFirst` on the watch's serial queue; a second
/// one logs and ends the process at once with 128 + the signal's number (143 for SIGTERM, 130 for SIGINT), without
/// waiting for anything. Made and cancelled by one task, possibly on different threads (so nothing is blocked on
/// the thread that makes it).
final class DWShutdownSignals {
    private let watch: SignalWatch

    init(logger: Logger, onFirst: @escaping @Sendable () -> Void) {
        let received = DWLock(0)
        watch = SignalWatch(signals: [SIGTERM, SIGINT], blockingOnThisThread: false) { number in
            if received.withLock({ count in
                count += 1; return count
            }) == 1 {
                onFirst()
            } else {
                logger.error("second signal (\(number)) during shutdown: exiting now with \(128 + number)")
                _exit(128 + number)
            }
        }
    }

    /// Stops watching and gives SIGTERM and SIGINT their default actions back.
    func cancel() { watch.cancel() }
}
