// SignalWatch: SIGINT, SIGTERM and SIGHUP delivered to a handler on a dispatch queue instead of killing the process,
// so a dwfetch run stops the same way whichever of them arrives, and serve drains (docs/operations.md, "Logs, metrics,
// shutdown").
import DWLocking
import Foundation

/// Watches signals while a run is under way; the handler runs on the watch's own serial queue, once per delivery.
/// ``cancel()`` gives the signals back their default action. By default the signals are also blocked on the thread
/// that makes the watch until ``cancel()``, so make and cancel it on the same thread (dwfetch: the main thread); an
/// async caller, which may resume on another thread, passes `blockingOnThisThread: false` (serve).
///
/// On Linux, libdispatch receives a watched signal through a signalfd read by its manager thread, and installs a
/// handler of its own (once per process per signal, when it registers the first source, on that thread) that hands
/// a signal landing on any other thread to it. Two consequences shape this type:
/// - The watch is armed only once that handler is in place; `init` waits for it (typically well under a
///   millisecond; at most ``armingDeadline``). Until then a signal had the process's disposition: with the
///   `SIG_IGN` set here before, a SIGTERM in that window was discarded and the run went on (a preview playing
///   forever never stopped); now `init` returns armed, and a signal before that keeps its default action.
/// - libdispatch never installs its handler twice, so ``cancel()`` keeps it before restoring `SIG_DFL`, and a later
///   watch in the same process (the demo runs two) puts it back itself; ``cancel()`` also waits until the sources
///   are unregistered, so a signal for the next watch is not read for a source already cancelled.
package final class SignalWatch: Sendable {
    /// The signals that stop a fetch: Ctrl-C, a service manager's stop, a closed terminal.
    package static let interrupting: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// How long `init` waits for libdispatch to install its handler before giving up (the watch still works once
    /// it does).
    static let armingDeadline: TimeInterval = 2

    /// libdispatch's handler for each signal, kept by ``cancel()`` for the next watch.
    private static let dispatchHandlers = DWLock<[Int32: sigaction]>([:])

    private let signals: [Int32]
    private let blocksOnThisThread: Bool
    // DispatchSourceSignal is thread-safe but not declared Sendable; the sources are only resumed and cancelled.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]
    /// Left by each source's cancel handler, once libdispatch has unregistered it.
    private let unregistered = DispatchGroup()

    /// Starts watching `signals` and returns once every one of them reaches `handler` (or after
    /// ``armingDeadline``).
    package init(signals: [Int32], blockingOnThisThread: Bool = true, handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "dwfetch.signals")
        self.signals = signals
        self.blocksOnThisThread = blockingOnThisThread
        // Blocked on this thread too (libdispatch's threads block them already, and threads started from here
        // inherit it): a signal no thread takes stays pending for the signalfd, without a detour through a
        // handler — which ThreadSanitizer defers while the thread waits in `done.wait()`, until the run is over.
        var set = Self.set(signals)
        if blockingOnThisThread { pthread_sigmask(SIG_BLOCK, &set, nil) }
        let kept = Self.dispatchHandlers.value
        let unregistered = self.unregistered
        sources = signals.map { number in
            if var action = kept[number] { sigaction(number, &action, nil) }  // an earlier watch's: armed at once
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            unregistered.enter()
            source.setCancelHandler { [unregistered] in unregistered.leave() }
            source.resume()
            return source
        }
        let deadline = Date().addingTimeInterval(Self.armingDeadline)
        while !signals.allSatisfy(Self.hasHandler), Date() < deadline { usleep(100) }
    }

    /// Stops watching; the signals kill the process again. Returns once libdispatch has let go of the sources (at
    /// most ``armingDeadline``): a source still registered would read, and drop, a signal meant for the next watch.
    package func cancel() {
        for source in sources { source.cancel() }
        _ = unregistered.wait(timeout: .now() + Self.armingDeadline)
        for number in signals {
            var current = sigaction()
            var byDefault = sigaction()
            sigaction(number, nil, &current)
            if Self.isHandler(current) { Self.dispatchHandlers.withLock { $0[number] = current } }
            byDefault.__sigaction_handler.sa_handler = SIG_DFL
            sigaction(number, &byDefault, nil)
        }
        guard blocksOnThisThread else { return }
        var set = Self.set(signals)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)  // a signal pending since the sources went away acts now
    }

    private static func set(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }

    /// Whether `number` has a handler installed (libdispatch's), not `SIG_DFL` or `SIG_IGN`.
    private static func hasHandler(_ number: Int32) -> Bool {
        var current = sigaction()
        sigaction(number, nil, &current)
        return isHandler(current)
    }

    private static func isHandler(_ action: sigaction) -> Bool {
        let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        return handler != unsafeBitCast(SIG_DFL, to: Int.self) && handler != unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
