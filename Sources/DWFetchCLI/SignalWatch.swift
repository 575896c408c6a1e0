// SignalWatch: SIGINT, SIGTERM and SIGHUP delivered to a handler on a dispatch queue instead of killing dwfetch, so
// a run stops the same way whichever of them arrives (README, Lifecycle).
import Foundation

/// Watches signals while a run is under way; the handler runs on the watch's own serial queue, once per delivery.
/// ``cancel()`` gives the signals back their default action.
package final class SignalWatch: Sendable {
    /// The signals that stop a fetch: Ctrl-C, a service manager's stop, a closed terminal.
    package static let interrupting: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private let signals: [Int32]
    // DispatchSourceSignal is thread-safe but not declared Sendable; the sources are only resumed and cancelled.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    /// Starts watching `signals` (their default action is off until ``cancel()``).
    package init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "dwfetch.signals")
        self.signals = signals
        sources = signals.map { number in
            signal(number, SIG_IGN)  // delivered to the dispatch source only
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Stops watching; the signals kill the process again.
    package func cancel() {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
}
