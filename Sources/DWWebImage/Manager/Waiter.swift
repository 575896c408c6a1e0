// Waiter: one caller waiting for a result, delivered exactly once.
import DWLocking
import Dispatch

/// One caller waiting for a result: its closures and a flag that makes delivery happen exactly once.
final class Waiter: Sendable {
    let token: DWWebImageToken
    let options: RequestOptions
    let progress: (@Sendable (Int64, Int64) -> Void)?
    /// The completion only resumes an awaiting task (the async API): it is called where the result is made, never
    /// queued on the callback queue first (Kingfisher's `CallbackQueue.untouch`).
    let resumesInline: Bool
    /// The phases' observer of the task that asked (``DWFetchPhases/current`` when the waiter was made).
    let phases: (any DWFetchPhaseObserver)? = DWFetchPhases.current
    private let completion: @Sendable (Result<DWImage, DWWebImageError>) -> Void
    private let delivered = DWLock(false)

    init(
        token: DWWebImageToken, options: RequestOptions, progress: (@Sendable (Int64, Int64) -> Void)?,
        resumesInline: Bool = false, completion: @escaping @Sendable (Result<DWImage, DWWebImageError>) -> Void
    ) {
        self.token = token
        self.options = options
        self.progress = progress
        self.resumesInline = resumesInline
        self.completion = completion
    }

    var isDelivered: Bool { delivered.withLock { $0 } }

    /// The caller's current priority (its token's).
    var priority: DWWebImagePriority { token.priority }

    /// Whether this caller is the prefetcher (prefetch-only downloads count against the prefetch cap).
    var isPrefetch: Bool { options.isPrefetch }

    /// Claims the one delivery; true for the first caller only.
    func claim() -> Bool {
        delivered.withLock { done in
            defer { done = true }
            return !done
        }
    }

    /// Calls the completion on the current thread (after a successful ``claim()``).
    func callCompletion(_ result: Result<DWImage, DWWebImageError>) { completion(result) }

    /// Claims and, if this is the first delivery, calls the completion asynchronously on `queue` (right here for
    /// ``resumesInline``).
    @discardableResult
    func deliver(
        _ result: Result<DWImage, DWWebImageError>, on queue: DispatchQueue,
        then: (@Sendable () -> Void)? = nil
    ) -> Bool {
        guard claim() else {
            then?()
            return false
        }
        if resumesInline {
            completion(result)
            then?()
            return true
        }
        queue.async {
            DWHopTrace.arrive("callback queue")
            self.completion(result)
            then?()
        }
        return true
    }
}
