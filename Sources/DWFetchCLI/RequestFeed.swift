// RequestFeed: hands a run's URLs to the manager, a bounded number at a time, from whichever thread frees a place.
import DWLocking

/// Feeds the URLs `0..<count` to `issue`, at most `size` of them unfinished at once and never more than `span` past
/// the oldest one not finished, `refill` at a time.
///
/// The calling thread issues the first `size` (``start()``); after that, the request whose end frees the `refill`-th
/// place issues the next ones on the thread where it ends — for a download, the transfer engine's — so the objects
/// of a download are made and freed on one thread (no malloc arena shared across threads), no thread is woken to
/// feed, and the manager starts the new download right there rather than on its start queue. A run of 2,000 images
/// fed from the main thread made ~1,100 futex calls (malloc's arena lock, the start queue's wake-ups, the feeder's
/// semaphore); fed this way, ~40. Refilling in batches keeps the manager's own hand-offs (a cold run's disk lookups
/// go to its I/O queue) one wake-up per batch rather than one per URL.
///
/// `size` bounds the memory of queued requests (each ~5 KB: waiter, downloader, operation, token). `span` bounds
/// the results held for their line: the manager starts waiting URLs newest first, so without it a URL that found
/// every slot taken would wait until the feed ran dry, and every result after it — kept until its line's turn comes —
/// would be held for the whole run (peak RSS growing with the number of URLs). With it, the feed pauses once the
/// next URL would be `span` past the oldest unfinished one, the waiting URLs drain (oldest last), and the results held
/// never number more than `span`.
///
/// Thread safety: the state lives behind one `DWLock` (a leaf: `issue` is called without it). One thread issues at a
/// time (`pumping`): a request that ends while another thread issues only frees its place, which that thread sees
/// before it stops. `issue` may call the request's `done` before returning (an answer made at once).
final class RequestFeed: Sendable {
    private struct State {
        /// The next URL to issue.
        var next = 0
        var inFlight = 0
        /// The lowest index not finished yet.
        var oldest = 0
        /// Indexes finished while an older one was still in flight (fewer than `span`).
        var finishedAhead = Set<Int>()
        /// A thread is in ``pump()``'s loop.
        var pumping = false
        var allIssuedReported = false
    }

    let count: Int
    let size: Int
    let refill: Int
    let span: Int
    private let state = DWLock(State())
    private let issue: @Sendable (_ index: Int, _ done: @escaping @Sendable () -> Void) -> Void
    private let allIssued: @Sendable () -> Void

    /// A feed of `count` URLs, `size` at once (at least 1), refilled `refill` at a time (clamped to 1…size), at most
    /// `span` past the oldest unfinished one (at least `size`; nil: no bound). `issue` starts the `index`-th request
    /// and arranges for `done` to be called once when it has ended; `allIssued` is called once, after the last one
    /// has been issued (at once when `count` is 0).
    init(
        count: Int, size: Int, refill: Int = 1, span: Int? = nil,
        issue: @escaping @Sendable (_ index: Int, _ done: @escaping @Sendable () -> Void) -> Void,
        allIssued: @escaping @Sendable () -> Void
    ) {
        self.count = count
        self.size = max(1, size)
        self.refill = min(max(1, refill), self.size)
        self.span = max(span ?? Int.max / 2, self.size)
        self.issue = issue
        self.allIssued = allIssued
    }

    /// Issues the first requests on the calling thread; the rest follow as requests end.
    func start() { pump() }

    /// Issues requests while there are places; stops when the window is full, the span is reached or every URL has
    /// been issued. Returns at once when another thread is issuing.
    private func pump() {
        let starts = state.withLock { s -> Bool in
            if s.pumping { return false }
            s.pumping = true
            return true
        }
        guard starts else { return }
        while true {
            let (index, reportAllIssued) = state.withLock { s -> (Int?, Bool) in
                guard s.next < count, s.inFlight < size, s.next - s.oldest < span else {
                    s.pumping = false
                    let report = s.next == count && !s.allIssuedReported
                    if report { s.allIssuedReported = true }
                    return (nil, report)
                }
                s.inFlight += 1
                s.next += 1
                return (s.next - 1, false)
            }
            guard let index else {
                if reportAllIssued { allIssued() }
                return
            }
            issue(index) { [self] in finished(index) }
        }
    }

    /// The `index`-th request has ended: its place is free, and once `refill` places are, the feed goes on from here.
    private func finished(_ index: Int) {
        let batch = state.withLock { s -> Bool in
            s.inFlight -= 1
            if index == s.oldest {
                s.oldest += 1
                while s.finishedAhead.remove(s.oldest) != nil { s.oldest += 1 }
            } else {
                s.finishedAhead.insert(index)
            }
            return s.next < count && s.inFlight <= size - refill && s.next - s.oldest <= span - refill
        }
        if batch { pump() }
    }
}
