// DWWorkGate: at most `workers` image requests at once, at most `queue` waiting, oldest first; the rest refused at once.
import DWLocking

/// Admission for the server's image work (`--workers`, `--queue`): a request enters when fewer than `workers` are
/// running, else waits in a FIFO of at most `queue` (so the oldest waiting request is always the next served, whatever
/// order the pipeline fetches in), else is refused at once (the server answers 503 with `Retry-After`).
///
/// Thread-safe: one lock guards the counts and the waiters; continuations are resumed outside it.
final class DWWorkGate: Sendable {
    /// Why ``enter()`` did not admit the request.
    enum Refusal: Error {
        /// Every worker is busy and the queue is full.
        case full
        /// The waiting task was cancelled (its deadline ran out) before a worker was free.
        case cancelled
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private enum Admission {
        case admitted, queued, refused(Refusal)
    }

    private struct State {
        var running = 0
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
        /// Ids whose cancellation ran before they were queued.
        var cancelledEarly: Set<UInt64> = []
    }

    /// Requests processed at once.
    let workers: Int
    /// Requests waiting at most.
    let queue: Int
    private let state = DWLock(State())

    init(workers: Int, queue: Int) {
        self.workers = max(1, workers)
        self.queue = max(0, queue)
    }

    /// Requests running and waiting now (for /metrics and tests).
    var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    /// Takes a worker now when one is free (then nobody waits either); false otherwise, with nothing changed (the
    /// caller then waits in ``enter()``). A true must be paired with one ``leave()``.
    func tryEnter() -> Bool {
        state.withLock { s in
            guard s.running < workers, s.waiting.isEmpty else { return false }
            s.running += 1
            return true
        }
    }

    /// Waits for a worker (oldest first); every successful call must be paired with one ``leave()``.
    func enter() async throws(Refusal) {
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        // A cancellation that ran before the waiter was queued (or after it was admitted) leaves its id behind.
        defer { state.withLock { _ = $0.cancelledEarly.remove(id) } }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let outcome: Admission = state.withLock { s in
                        if s.cancelledEarly.remove(id) != nil { return .refused(.cancelled) }
                        if s.running < workers {
                            s.running += 1
                            return .admitted
                        }
                        if s.waiting.count >= queue { return .refused(.full) }
                        s.waiting.append(Waiter(id: id, continuation: continuation))
                        return .queued
                    }
                    switch outcome {
                    case .admitted: continuation.resume()
                    case .refused(let refusal): continuation.resume(throwing: refusal)
                    case .queued: break  // resumed by leave() or by the cancellation handler
                    }
                }
            } onCancel: {
                let waiter: Waiter? = state.withLock { s in
                    if let index = s.waiting.firstIndex(where: { $0.id == id }) { return s.waiting.remove(at: index) }
                    s.cancelledEarly.insert(id)
                    return nil
                }
                waiter?.continuation.resume(throwing: Refusal.cancelled)
            }
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw .cancelled
        }
    }

    /// Frees the caller's worker: the oldest waiting request takes it.
    func leave() {
        let next: Waiter? = state.withLock { s in
            if !s.waiting.isEmpty { return s.waiting.removeFirst() }  // the worker passes on; running stays
            s.running -= 1
            return nil
        }
        next?.continuation.resume()
    }
}
