// DWHopTrace: where a request's work goes — each hand-off to another thread, queue or task, noted by name, so a test
// can count the hops of one request. Off (one relaxed atomic load, no lock, nothing kept) unless a test records.
import Synchronization

/// The hand-offs of the work in flight while ``record(_:)`` runs: every place the pipeline or the server continues a
/// request's work on another thread, queue or task calls ``arrive(_:)`` first thing there. A test runs one request
/// inside ``record(_:)`` and reads the path. One lock for the path, taken only while recording; any thread.
package enum DWHopTrace {
    private static let path = DWLock<[String]?>(nil)
    /// Whether a test records: checked before the lock, so production requests never take it.
    private static let recording = Atomic<Bool>(false)

    /// Notes that work arrived at `place` (a queue, thread or task name); nothing unless recording.
    package static func arrive(_ place: StaticString) {
        guard recording.load(ordering: .relaxed) else { return }
        path.withLock { $0?.append(place.description) }
    }

    /// The places `body`'s work arrived at, in order (only one recording at a time: the trace is process-wide).
    package static func record(_ body: () async throws -> Void) async rethrows -> [String] {
        path.withLock { $0 = [] }
        recording.store(true, ordering: .relaxed)
        defer {
            recording.store(false, ordering: .relaxed)
            path.withLock { $0 = nil }
        }
        try await body()
        return path.withLock { $0 ?? [] }
    }
}
