// DWWebImageManager + variants: one transform per processed variant's cache key, its callers answered together; a
// transform whose callers have all gone is skipped or stopped.
import DWLocking
import Foundation

/// One variant being made: its callers and the stop flag of its transform.
struct TransformJob {
    var waiters: [Waiter]
    let cancellation: DWWorkCancellation
}

extension DWWebImageManager {
    /// Makes the variant `waiters` asked for (they share one cache key) from `original`, keeps it in the cache
    /// under ``DWImageProcessors/cacheKey(url:processors:)`` and answers them; the variant reports the original's
    /// source and metrics. One transform per key at a time: callers asking meanwhile join it. The processors run on
    /// the ``transformExecutor`` (else the work queue), under the job's ``DWWorkCancellation/current``: when every
    /// caller has cancelled, a transform still queued is skipped and a running one is told to stop. An executor
    /// that refuses the work fails these callers with ``DWWebImageError/busy(_:)``. A processor that throws fails
    /// these callers with its error; the original stays cached. Each caller's ``Waiter/phases`` hears of the
    /// original's arrival and of the transform's start and end.
    ///
    /// `runsHere`: with no executor, a caller already on the work queue runs the transform itself rather than
    /// queueing it there again (no hop for nothing); the downloader's owner asks it of the first variant only, so the
    /// others still run in parallel.
    func makeVariant(from original: DWImage, for waiters: [Waiter], callbacks: DispatchQueue, runsHere: Bool = false) {
        guard let options = waiters.first?.options, let token = waiters.first?.token else { return }
        let url = token.url
        let key = options.cacheKey(base: token.cacheKey)
        for waiter in waiters { waiter.phases?.sourceArrived(original.source) }
        let cancellation = DWWorkCancellation()
        enum Step { case start(DWTransformExecutor?), joined, cached(DWImage) }
        let step = state.withLock { s -> Step in
            if s.transforms[key] != nil {
                s.transforms[key]!.waiters += waiters
                for waiter in waiters { s.transformWaiters[waiter.token.id] = waiter }
                return .joined
            }
            // A transform of this key may have finished since these callers missed it: it kept its result in
            // memory before it left `transforms`.
            if options.readPolicy.contains(.memory), let variant = cache.memoryImage(forKey: key) {
                return .cached(variant)
            }
            s.transforms[key] = TransformJob(waiters: waiters, cancellation: cancellation)
            for waiter in waiters { s.transformWaiters[waiter.token.id] = waiter }
            return .start(s.transformExecutor)
        }
        let executor: DWTransformExecutor?
        switch step {
        case .joined:
            return waiters.forEach { $0.phases?.processingStarted() }  // the transform under way is theirs too
        case .cached(let variant):
            let result = Result<DWImage, DWWebImageError>.success(
                variant.from(original.source, metrics: original.metrics))
            for waiter in waiters { waiter.deliver(result, on: callbacks) }
            return
        case .start(let chosen):
            executor = chosen
        }
        let store = options.storePolicy
        let write = store.contains(.disk) ? cache.takeWrite(forKey: key) : nil
        let finish: @Sendable (Result<DWImage, DWWebImageError>) -> Void = { [self] result in
            let answered = state.withLock { s -> [Waiter] in
                guard s.transforms[key]?.cancellation === cancellation else { return [] }  // orphaned: all gone
                let all = s.transforms.removeValue(forKey: key)?.waiters ?? []
                for waiter in all { s.transformWaiters[waiter.token.id] = nil }
                return all
            }
            for waiter in answered { waiter.phases?.processingEnded(result.phaseError) }
            // An awaiting task is resumed right here, where its result was made; other callers on the callback queue.
            for waiter in answered where waiter.resumesInline && waiter.claim() { waiter.callCompletion(result) }
            if answered.contains(where: { !$0.resumesInline }) {
                callbacks.async {
                    DWHopTrace.arrive("callback queue")
                    for waiter in answered where waiter.claim() { waiter.callCompletion(result) }
                }
            }
            write?.writeVariant(try? result.get())
        }
        let render: @Sendable () -> Void = { [self] in
            guard !cancellation.isCancelled else { return finish(.failure(DWWorkCancellation.stopped)) }
            for waiter in waiters { waiter.phases?.processingStarted() }
            let result = DWWorkCancellation.$current.withValue(cancellation) { () -> Result<DWImage, DWWebImageError> in
                do throws(DWWebImageError) {
                    let variant = try DWImageProcessors.apply(options.processors, to: original)
                    if store.contains(.memory) { cache.storeInMemory(variant, forKey: key) }
                    return .success(variant.from(original.source, metrics: original.metrics).rendered(from: original))
                } catch {
                    DWLog.debug("\(key): \(error.message)")
                    return .failure(error.url == nil ? error.about(url) : error)
                }
            }
            finish(result)
        }
        let work: @Sendable () -> Void = {
            DWHopTrace.arrive("transform worker")
            render()
        }
        guard let executor else {
            if runsHere && DispatchQueue.getSpecific(key: Self.onWorkQueue) == true { return render() }
            return workQueue.async(execute: work)
        }
        if !executor.submit(work) { finish(.failure(.busy(url))) }
    }

    /// Set on ``workQueue`` (true): tells code running there from code on any other thread.
    static let onWorkQueue = DispatchSpecificKey<Bool>()

    /// Takes a cancelled caller out of the variant it waits for (under the manager's lock); the job's stop flag when
    /// it was the last caller (the job is then forgotten: a new caller starts a new transform).
    static func dropTransformWaiter(_ waiter: Waiter, from s: inout State) -> DWWorkCancellation? {
        let key = waiter.options.cacheKey(base: waiter.token.cacheKey)
        guard var job = s.transforms[key] else { return nil }
        job.waiters.removeAll { $0.token.id == waiter.token.id }
        guard job.waiters.isEmpty else {
            s.transforms[key] = job
            return nil
        }
        s.transforms[key] = nil
        return job.cancellation
    }

    /// Where variant transforms run: a server's own threads (fed by its admission), or nil for the manager's
    /// concurrent work queue. Set it before the first request.
    public var transformExecutor: (any DWTransformExecutor)? {
        get { state.withLock { $0.transformExecutor } }
        set { state.withLock { $0.transformExecutor = newValue } }
    }
}
