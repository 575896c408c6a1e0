// DWWebImageManager + alternative sources: the next URL when one fails (Kingfisher's `alternativeSources`).
import DWLocking

extension DWWebImageManager {
    /// ``downloadImage(withURL:options:progress:completion:)`` for options with
    /// ``DWWebImageOptions/alternativeSources(_:)``: `url`, then each alternative in order while the previous one
    /// failed with anything but 10007. The returned token stands for the whole chain: cancelling it cancels the
    /// attempt running (its 10007 is delivered) and starts no other; its priority is passed to each attempt. The
    /// next attempt starts on the callback queue, where the previous one completed.
    func downloadTryingAlternatives(
        _ url: String, options: DWWebImageOptions, progress: (@Sendable (Int64, Int64) -> Void)?,
        completion: @escaping @Sendable (Result<DWImage, DWWebImageError>) -> Void
    ) -> DWWebImageToken {
        struct Chain {
            var attempt: DWWebImageToken?
            var cancelled = false
        }
        let chain = DWLock(Chain())
        let outer = DWLock<DWWebImageToken?>(nil)
        let id = state.withLock { s -> UInt64 in
            s.nextTokenID += 1
            return s.nextTokenID
        }
        let token = DWWebImageToken(
            url: url, id: id, priority: options.priority,
            canceller: { _ in
                let running = chain.withLock { c -> DWWebImageToken? in
                    c.cancelled = true
                    return c.attempt
                }
                running?.cancel()
            },
            reprioritize: {
                guard let level = outer.value?.priority else { return }
                chain.value.attempt?.priority = level
            })
        outer.withLock { $0 = token }
        let single = options.withoutAlternatives

        @Sendable func attempt(_ url: String, then remaining: ArraySlice<String>) {
            let level = outer.value?.priority ?? options.priority
            let started = downloadImage(withURL: url, options: single, progress: progress) { result in
                if case .failure(let error) = result, error.code != .cancelled, let next = remaining.first {
                    if chain.value.cancelled { return completion(.failure(.cancelled(url))) }
                    return attempt(next, then: remaining.dropFirst())
                }
                completion(result)
            }
            started.priority = level
            let cancelledMeanwhile = chain.withLock { c -> Bool in
                c.attempt = started
                return c.cancelled
            }
            if cancelledMeanwhile { started.cancel() }
        }
        attempt(url, then: options.alternativeSources[...])
        return token
    }
}
