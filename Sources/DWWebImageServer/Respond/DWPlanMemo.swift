// DWPlanMemo: the parsed, checked plan of recent image targets, so a hot URL is not parsed again on every request.
import DWLocking

/// Image jobs by request target and `Accept` header: what ``DWImageServer/imagePlan(for:target:)`` made for them.
/// A job is a function of those two and the server's configuration (fixed for the server's life) — except for a URL
/// with `exp:`, whose answer depends on the clock; those are never kept. Refusals are not kept either (they are cheap
/// to make again and not what a hot target is). At most ``capacity`` jobs; when full, the table starts over (a hot
/// target is back after its next request). One lock; any thread.
final class DWPlanMemo: Sendable {
    /// Jobs kept at most.
    let capacity: Int
    private let jobs = DWLock<[Key: DWImageJob]>([:])

    private struct Key: Hashable {
        let target: String
        let accept: String?
    }

    /// A memo of at most `capacity` jobs.
    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    /// The job planned for `target` with this `Accept` header, if kept.
    func job(target: String, accept: String?) -> DWImageJob? {
        jobs.withLock { $0[Key(target: target, accept: accept)] }
    }

    /// Keeps `job` for `target` and `accept` (not when its URL has `exp:`).
    func keep(_ job: DWImageJob, target: String, accept: String?) {
        guard job.url.options.expires == nil else { return }
        jobs.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[Key(target: target, accept: accept)] = job
        }
    }
}
