// RequestWindow: how many URLs a dwfetch run keeps with the manager at once, refilled in batches.
import DWLocking
import Dispatch

/// At most `size` URLs with the manager at once (each queued request holds ~5 KB: waiter, downloader, operation,
/// token). A full window is refilled only once `refill` places are free again, so the thread that feeds it (the
/// main thread) is woken once per `refill` results rather than once per result — each wake-up is a futex call on
/// both sides and a context switch.
///
/// Thread safety: the count lives behind one `DWLock` (a leaf); ``enter()`` is called by one feeding thread,
/// ``leave()`` from any thread.
final class RequestWindow: Sendable {
    private struct State {
        var inFlight = 0
        var feederWaits = false
    }

    let size: Int
    let refill: Int
    private let state = DWLock(State())
    private let wake = DispatchSemaphore(value: 0)

    /// A window of `size` places (at least 1) refilled `refill` at a time (clamped to 1…size).
    init(size: Int, refill: Int) {
        self.size = max(1, size)
        self.refill = min(max(1, refill), self.size)
    }

    /// Takes a place, waiting while the window is full (until `refill` places are free).
    func enter() {
        while true {
            let full = state.withLock { s -> Bool in
                if s.inFlight < size {
                    s.inFlight += 1
                    return false
                }
                s.feederWaits = true
                return true
            }
            guard full else { return }
            wake.wait()
        }
    }

    /// Gives a place back; wakes the feeder once `refill` places are free.
    func leave() {
        let wakeFeeder = state.withLock { s -> Bool in
            s.inFlight -= 1
            guard s.feederWaits, s.inFlight <= size - refill else { return false }
            s.feederWaits = false
            return true
        }
        if wakeFeeder { wake.signal() }
    }
}
