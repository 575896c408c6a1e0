// async/await on top of the callback API (memory hits answered on the caller's task; anything else resumes the
// task where its result is made); task cancellation, or the caller's cancellation scope, cancels this caller's token.
import DWLocking

extension DWWebImageManager {
    /// Fetches an image (see ``downloadImage(withURL:options:progress:completion:)``). A memory hit is answered
    /// right here (without ``Configuration/cacheTiers``), on the caller's task (``imageFromMemory(withURL:options:)``);
    /// anything else resumes the waiting task from the thread its result is made on (a disk lookup, the engine thread,
    /// a transform's worker), not via the callback queue. Cancelling the task cancels this caller (error 10007); others
    /// waiting for the same URL are unaffected.
    public func image(withURL url: String, options: DWWebImageOptions = []) async throws(DWWebImageError) -> DWImage {
        // With cache tiers the memory tier is asked in order with the others (and counted in tierLookups).
        if configuration.tiers(of: cache) == nil, let image = imageFromMemory(withURL: url, options: options) {
            return image
        }
        let box = TokenBox()
        let cancelCaller: @Sendable () -> Void = { [self] in if let token = box.markCancelled() { cancel(token) } }
        let result: Result<DWImage, DWWebImageError> = await DWCancellationScope.withCancellationHandler {
            await withCheckedContinuation { continuation in
                let token = download(url, options: options, progress: nil, resumesInline: true) {
                    continuation.resume(returning: $0)
                }
                if box.store(token) { cancel(token) }  // the task was cancelled before the token existed
            }
        } onCancel: {
            cancelCaller()
        }
        DWHopTrace.arrive("caller task")
        return try result.get()
    }
}

/// Hands a token from the request to a cancellation handler that may run first, on another thread.
private final class TokenBox: Sendable {
    private let state = DWLock<(token: DWWebImageToken?, cancelled: Bool)>((nil, false))

    /// Stores the token; true when cancellation already happened.
    func store(_ token: DWWebImageToken) -> Bool {
        state.withLock { s in
            s.token = token
            return s.cancelled
        }
    }

    /// Marks cancelled; returns the token if it is already known.
    func markCancelled() -> DWWebImageToken? {
        state.withLock { s in
            s.cancelled = true
            return s.token
        }
    }
}
