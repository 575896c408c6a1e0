// DWCoalescer: identical concurrent requests share one piece of work (e.g. /info's fetch and measurement).
import DWLocking
import DWWebImage

/// Concurrent callers of ``value(for:make:)`` with the same key share one run of `make` (the first caller's), in an
/// unstructured task of its own. A caller whose task is cancelled gets 10007 at once; when the last caller of a key
/// has gone, that run's task is cancelled (and a new caller starts a new run).
///
/// Thread-safe: one lock guards the runs; continuations are resumed outside it.
final class DWCoalescer<Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Result<Value, DWWebImageError>, Never>

    private struct Flight {
        let id: UInt64
        var waiters: [UInt64: Waiter] = [:]
        var task: Task<Void, Never>?
    }

    private struct State {
        var flights: [String: Flight] = [:]
        var nextID: UInt64 = 0
    }

    private let state = DWLock(State())

    /// What a new caller does: answer cancelled at once, join a run, or start one.
    private enum CoalescerStep { case cancelled, joined, start(UInt64) }

    /// An empty coalescer.
    init() {}

    /// Callers waiting now, over every key (tests).
    var waiting: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters.count } } }

    /// `make`'s value for `key`, shared with every caller asking for `key` while it runs. Awaited in the caller's
    /// task; `make` runs in a task of its own.
    func value(for key: String, make: @escaping @Sendable () async throws(DWWebImageError) -> Value)
        async throws(DWWebImageError) -> Value
    {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        let result = await DWCancellationScope.withCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let step = state.withLock { s -> CoalescerStep in
                    if Task.isCancelled || DWCancellationScope.current?.isCancelled == true { return .cancelled }
                    if s.flights[key] != nil {
                        s.flights[key]!.waiters[id] = continuation
                        return .joined
                    }
                    s.flights[key] = Flight(id: id, waiters: [id: continuation])
                    return .start(id)
                }
                switch step {
                case .cancelled: continuation.resume(returning: .failure(DWWorkCancellation.stopped))
                case .joined: break
                case .start(let flight): start(flight, key: key, make: make)
                }
            }
        } onCancel: { [self] in
            let (waiter, task) = state.withLock { s -> (Waiter?, Task<Void, Never>?) in
                guard var flight = s.flights[key], let waiter = flight.waiters.removeValue(forKey: id) else {
                    return (nil, nil)
                }
                if flight.waiters.isEmpty {
                    s.flights[key] = nil
                    return (waiter, flight.task)
                }
                s.flights[key] = flight
                return (waiter, nil)
            }
            waiter?.resume(returning: .failure(DWWorkCancellation.stopped))
            task?.cancel()
        }
        return try result.get()
    }

    /// Runs `make` for the flight `flight` of `key` and answers its callers.
    private func start(
        _ flight: UInt64, key: String, make: @escaping @Sendable () async throws(DWWebImageError) -> Value
    ) {
        // The flight serves every caller: no caller's deadline scope (a task-local, which `Task` copies) may end it.
        let task = DWCancellationScope.$current.withValue(nil) {
            Task {
                let result: Result<Value, DWWebImageError>
                do throws(DWWebImageError) { result = .success(try await make()) } catch { result = .failure(error) }
                let waiters = state.withLock { s -> [Waiter] in
                    guard s.flights[key]?.id == flight, let done = s.flights.removeValue(forKey: key) else {
                        return []  // every caller gone
                    }
                    return Array(done.waiters.values)
                }
                for waiter in waiters { waiter.resume(returning: result) }
            }
        }
        let orphaned = state.withLock { s -> Bool in
            guard s.flights[key]?.id == flight else { return true }
            s.flights[key]!.task = task
            return false
        }
        if orphaned { task.cancel() }
    }
}
