// DWWorkerPool: `--workers` dedicated threads that run every transform, fed by a FIFO of at most `--queue` blocks;
// the rest is refused at once (the server answers 503).
import DWLocking
import DWWebImage
import Foundation

/// The server's admission for CPU work (`--workers`, `--queue`): `workers` threads of its own (Foundation
/// `Thread`s, not libdispatch's pool nor Swift's cooperative pool, so request handling and deadline timers keep
/// their threads however long a transform runs), taking blocks oldest first from a queue of at most `queue`
/// waiting; a block submitted when every thread is busy and the queue is full is refused at once. A block holds
/// its thread until it returns, so a stopped transform frees its worker only when it has really stopped.
///
/// The manager's variant transforms come here (``DWTransformExecutor``), and so does `/info`'s work
/// (``run(_:)``). Thread-safe: one lock guards the queue and the counts; a semaphore counts queued blocks.
final class DWWorkerPool: DWTransformExecutor {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
        var running = 0
    }

    /// Threads, each running one block at a time.
    let workers: Int
    /// Blocks waiting at most.
    let queue: Int
    private let state = DWLock(State())
    private let queued = DispatchSemaphore(value: 0)
    /// Broadcast when a block ends with a worker idle and nothing queued (``waitForIdleWorker(unless:)``).
    private let idled = NSCondition()
    /// Told, on the worker thread, how long each block waited from its submission to its start.
    private let waited: @Sendable (Duration) -> Void

    /// Starts `workers` threads (at least one), which live as long as the process. `waited` hears each block's wait
    /// for a thread (imgproxy's `queue` span), on the thread that then runs it.
    /// `name`: the threads' name prefix (`name.0`, `name.1`, …).
    init(
        workers: Int, queue: Int, name: String = "dwworker", waited: @escaping @Sendable (Duration) -> Void = { _ in }
    ) {
        self.workers = max(1, workers)
        self.queue = max(0, queue)
        self.waited = waited
        for index in 0..<self.workers {
            let thread = Thread { [self] in
                Thread.current.name = "\(name).\(index)"  // best effort, for top -H (set from the thread itself)
                runLoop()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Blocks running and waiting now (for /metrics and tests).
    var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    /// Whether a worker is idle with no block waiting for one: a block submitted now would start at once.
    var hasIdleWorker: Bool { state.withLock { $0.running < workers && $0.waiting.isEmpty } }

    /// Blocks the calling thread (never one of this pool's) until a worker is idle with no block waiting
    /// (``hasIdleWorker``), or `stop` says true (asked again every 50 ms). Returns at once when one already is.
    func waitForIdleWorker(unless stop: () -> Bool) {
        idled.lock()
        defer { idled.unlock() }
        // `idled` is held from the check to the wait, and broadcast under it: a block ending in between is seen.
        while !hasIdleWorker, !stop() { _ = idled.wait(until: Date(timeIntervalSinceNow: 0.05)) }
    }

    /// Queues `work` for the next free thread; false (nothing queued) when every thread is busy and `queue` blocks
    /// already wait. Any thread.
    func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        let (submitted, waited) = (ContinuousClock.now, waited)
        let timed: @Sendable () -> Void = {
            waited(ContinuousClock.now - submitted)
            work()
        }
        let accepted = state.withLock { s -> Bool in
            guard s.running + s.waiting.count < workers + queue else { return false }
            s.waiting.append(timed)
            return true
        }
        if accepted { queued.signal() }
        return accepted
    }

    /// `body` run on a worker thread under a ``DWWorkCancellation`` of its own, awaited by the caller's task:
    /// ``DWWebImageError/busy(_:)`` at once when the pool refuses it; when the task is cancelled the caller gets
    /// 10007 at once (so does a cancelled ``DWCancellationScope``), and `body`'s work is stopped (skipped if still
    /// queued; libvips evaluation killed if running), its thread freed when it returns.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws(DWWebImageError) -> T) async throws(DWWebImageError)
        -> T
    {
        let cancellation = DWWorkCancellation()
        let answered = DWLock(false)
        let result: Result<T, DWWebImageError> = await DWCancellationScope.withCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, DWWebImageError>, Never>) in
                let answer: @Sendable (Result<T, DWWebImageError>) -> Void = { result in
                    let first = answered.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(returning: result) }
                }
                let accepted = submit {
                    guard !cancellation.isCancelled else { return answer(.failure(DWWorkCancellation.stopped)) }
                    answer(
                        DWWorkCancellation.$current.withValue(cancellation) { () -> Result<T, DWWebImageError> in
                            do throws(DWWebImageError) { return .success(try body()) } catch { return .failure(error) }
                        })
                }
                if !accepted { answer(.failure(.busy(nil))) }
                _ = cancellation.register { answer(.failure(DWWorkCancellation.stopped)) }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }

    /// One worker thread: waits for a block, runs it, forever.
    private func runLoop() {
        while true {
            queued.wait()
            let work = state.withLock { s -> (@Sendable () -> Void)? in
                guard !s.waiting.isEmpty else { return nil }
                s.running += 1
                return s.waiting.removeFirst()
            }
            guard let work else { continue }
            work()
            let idle = state.withLock { s -> Bool in
                s.running -= 1
                return s.waiting.isEmpty
            }
            if idle {
                idled.lock()
                idled.broadcast()
                idled.unlock()
            }
        }
    }
}
