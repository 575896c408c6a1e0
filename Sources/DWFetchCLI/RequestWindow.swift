// RequestWindow: how many URLs a dwfetch run keeps with the manager at once, refilled in batches, and how far
// ahead of the oldest unfinished URL it may feed.
import DWLocking
import Dispatch

/// At most `size` URLs with the manager at once (each queued request holds ~5 KB: waiter, downloader, operation,
/// token). A full window is refilled only once `refill` places are free again, so the thread that feeds it (the
/// main thread) is woken once per `refill` results rather than once per result — each wake-up is a futex call on
/// both sides and a context switch.
///
/// `span` bounds how far the feed runs ahead of the oldest URL not finished yet: the manager starts waiting URLs
/// newest first, so without a bound a URL that found every slot taken would wait until the feed ran dry, and every
/// result after it — kept until its line's turn comes — would be held for the whole run (peak RSS growing with the
/// number of URLs). With the bound, the feed pauses once the `index`-th URL would be `span` past the oldest
/// unfinished one, the waiting URLs drain (oldest last), and the results held never number more than `span`.
///
/// Thread safety: the state lives behind one `DWLock` (a leaf); ``enter()`` is called by one feeding thread,
/// ``leave(_:)`` from any thread.
final class RequestWindow: Sendable {
    private struct State {
        var inFlight = 0
        /// URLs entered so far (the next one's index).
        var entered = 0
        /// The lowest index not left yet.
        var oldest = 0
        /// Indexes left while an older one was still in flight (fewer than `span`).
        var leftAhead = Set<Int>()
        var feederWaits = false

        /// Whether one more URL may enter a window of `size` places with `span`.
        func hasRoom(size: Int, span: Int, free: Int) -> Bool {
            inFlight <= size - free && entered - oldest <= span - free
        }
    }

    let size: Int
    let refill: Int
    let span: Int
    private let state = DWLock(State())
    private let wake = DispatchSemaphore(value: 0)

    /// A window of `size` places (at least 1) refilled `refill` at a time (clamped to 1…size), feeding at most
    /// `span` URLs past the oldest unfinished one (at least `size`; nil: no bound).
    init(size: Int, refill: Int, span: Int? = nil) {
        self.size = max(1, size)
        self.refill = min(max(1, refill), self.size)
        self.span = max(span ?? Int.max / 2, self.size)
    }

    /// Takes a place for the next URL, waiting while the window is full or the URL would pass ``span`` (until
    /// `refill` places are free and the span has room for `refill` more). The caller numbers URLs in `enter` order
    /// (0, 1, 2, …) and passes that number to ``leave(_:)``.
    func enter() {
        while true {
            let full = state.withLock { s -> Bool in
                if s.hasRoom(size: size, span: span, free: 1) {
                    s.inFlight += 1
                    s.entered += 1
                    return false
                }
                s.feederWaits = true
                return true
            }
            guard full else { return }
            wake.wait()
        }
    }

    /// Gives back the place of the `index`-th URL entered; wakes the feeder once it may enter `refill` more.
    func leave(_ index: Int) {
        let wakeFeeder = state.withLock { s -> Bool in
            s.inFlight -= 1
            if index == s.oldest {
                s.oldest += 1
                while s.leftAhead.remove(s.oldest) != nil { s.oldest += 1 }
            } else {
                s.leftAhead.insert(index)
            }
            guard s.feederWaits, s.hasRoom(size: size, span: span, free: refill) else { return false }
            s.feederWaits = false
            return true
        }
        if wakeFeeder { wake.signal() }
    }
}
