// DWWebImageManager + variants: one transform per processed variant's cache key, its callers answered together.
import Foundation

extension DWWebImageManager {
    /// Makes the variant `waiters` asked for (they share one cache key) from `original`, keeps it in the cache
    /// under ``DWImageProcessors/cacheKey(url:processors:)`` and answers them; the variant reports the original's
    /// source and metrics. One transform per key at a time: callers asking meanwhile join it. The processors run on
    /// the work queue (off the engine thread and off the callback queue). A processor that throws fails these
    /// callers with its error; the original stays cached.
    func makeVariant(from original: DWImage, for waiters: [Waiter], callbacks: DispatchQueue) {
        guard let options = waiters.first?.options, let token = waiters.first?.token else { return }
        let url = token.url
        let key = options.cacheKey(base: token.cacheKey)
        enum Step { case start, joined, cached(DWImage) }
        let step = state.withLock { s -> Step in
            if s.transforms[key] != nil {
                s.transforms[key]! += waiters
                for waiter in waiters { s.transformWaiters[waiter.token.id] = waiter }
                return .joined
            }
            // A transform of this key may have finished since these callers missed it: it kept its result in
            // memory before it left `transforms`.
            if options.readPolicy.contains(.memory), let variant = cache.memoryImage(forKey: key) {
                return .cached(variant)
            }
            s.transforms[key] = waiters
            for waiter in waiters { s.transformWaiters[waiter.token.id] = waiter }
            return .start
        }
        switch step {
        case .joined:
            return
        case .cached(let variant):
            let result = Result<DWImage, DWWebImageError>.success(
                variant.from(original.source, metrics: original.metrics))
            for waiter in waiters { waiter.deliver(result, on: callbacks) }
            return
        case .start:
            break
        }
        let store = options.storePolicy
        if store.contains(.disk) { cache.willWrite() }
        workQueue.async { [self] in
            let result: Result<DWImage, DWWebImageError>
            do throws(DWWebImageError) {
                let variant = try DWImageProcessors.apply(options.processors, to: original)
                if store.contains(.memory) { cache.storeInMemory(variant, forKey: key) }
                result = .success(variant.from(original.source, metrics: original.metrics))
            } catch {
                DWLog.debug("\(key): \(error.message)")
                result = .failure(
                    error.url == nil
                        ? DWWebImageError(
                            error.code, error.message, url: url,
                            httpStatus: error.httpStatus, curlCode: error.curlCode,
                            size: error.size, limit: error.limit) : error)
            }
            let answered = state.withLock { s -> [Waiter] in
                let all = s.transforms.removeValue(forKey: key) ?? []
                for waiter in all { s.transformWaiters[waiter.token.id] = nil }
                return all
            }
            callbacks.async {
                for waiter in answered where waiter.claim() { waiter.callCompletion(result) }
            }
            if store.contains(.disk) { cache.writeVariant(try? result.get(), forKey: key) }
        }
    }
}
