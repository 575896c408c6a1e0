// DWShutdownSignals: SIGTERM/SIGINT once → graceful shutdown; a second one → exit at once.
import Dispatch
import DWLocking
import Foundation
import Logging

/// Watches SIGTERM and SIGINT while a server runs (a DispatchSource on its own serial queue; the signals'
/// default actions are ignored meanwhile and restored by ``cancel()``). The first one calls `onFirst` on that
/// queue; a second one logs and ends the process at once with 128 + the signal's number (143 for SIGTERM, 130 for
/// SIGINT), without waiting for anything. Made and cancelled by one task (not Sendable: it holds the sources).
final class DWShutdownSignals {
    private let sources: [any DispatchSourceSignal]
    private let queue = DispatchQueue(label: "dwfetch.serve.signals")

    init(logger: Logger, onFirst: @escaping @Sendable () -> Void) {
        let received = DWLock(0)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if received.withLock({ count in count += 1; return count }) == 1 {
                    onFirst()
                } else {
                    logger.error("second signal (\(number)) during shutdown: exiting now with \(128 + number)")
                    _exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// Stops watching and gives SIGTERM and SIGINT their default actions back.
    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
    }
}
