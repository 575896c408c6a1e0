// DWWebImageDownloader + completion: after a request's end, another attempt or the download's end — the image
// validated and kept, the slot freed, every caller answered once, the disk write queued.
import DWLocking
import Foundation

extension DWWebImageDownloader {
    /// What follows the end of one request.
    enum NextStep {
        /// Another request (for the whole body, or a retry), after `after` seconds.
        case again(whole: Bool, after: TimeInterval)
        /// The download was cancelled meanwhile; finish the operation (if still to be done) and stop.
        case abandoned((@Sendable () -> Void)?)
        /// The download is over: make its result, finish the operation, answer every caller.
        case over((@Sendable () -> Void)?, DWDownloadMetrics)
    }

    /// A request ended (on the engine thread for a small body in memory, else on the work queue).
    /// `write`: the cache write taken for this download with a place in the write backlog (cancelled if the
    /// download ends without a write).
    func transferEnded(_ result: Result<TransferResult, TransferFailure>, write: CacheWrite? = nil) {
        let (requestedOffset, appendedFrom) = state.withLock { ($0.requestedOffset, $0.appendedFrom) }
        let outcome = classify(result, requestedOffset: requestedOffset, appendedFrom: appendedFrom)
        if case .failed(.failure(.refetchWhole(let why))) = outcome {
            DWLog.debug("\(url): \(why); fetching the whole body")
            partial.discard()
        }
        var failure: Result<TransferResult, TransferFailure>?
        if case .failed(let r) = outcome { failure = r }
        let retryWait = failure.flatMap { retryDelay(for: $0) }
        switch nextStep(after: result, outcome: outcome, retryWait: retryWait) {
        case .again(let whole, let backoff):
            write?.cancel()
            let delay = max(backoff, context.retryToken?() ?? 0)
            if delay <= 0 {
                startAttempt(whole: whole)
            } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in startAttempt(whole: whole) }
            }
        case .abandoned(let finish):
            write?.cancel()
            partial.suspend()  // cancelled: keep what we have for the next time someone asks
            reportEnd()
            finish?()
        case .over(let finish, let metrics):
            complete(outcome, metrics: metrics, finishOperation: finish, write: write)
        }
    }

    /// Under the lock: records the request's end and decides whether another request follows. When the download
    /// is over it moves to `.finishing` and gathers its metrics.
    private func nextStep(
        after result: Result<TransferResult, TransferFailure>, outcome: AttemptOutcome,
        retryWait: TimeInterval?
    ) -> NextStep {
        state.withLock { s -> NextStep in
            s.transfer = nil
            if case .success(let r) = result { s.bytesReceived += r.bodyBytes }
            let finish = s.finishOperation
            guard s.phase == .running else {  // cancelled: every caller has been answered
                s.finishOperation = nil
                return .abandoned(finish)
            }
            if case .failed(.failure(.refetchWhole)) = outcome, s.wholeRefetches < 2 {
                s.wholeRefetches += 1
                return .again(whole: true, after: 0)
            }
            if let retryWait, s.attempts <= context.retryPolicy.maxRetries {
                s.attempts += 1
                return .again(whole: false, after: retryWait)
            }
            s.finishOperation = nil
            s.phase = .finishing
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds &- s.startedAt) / 1e9
            var status = 0
            if case .success(let r) = result { status = r.head.status }
            var resumedFrom = s.appendedFrom
            if case .complete = outcome, status == 416 { resumedFrom = s.requestedOffset }
            var metrics = DWDownloadMetrics(
                url: url, source: .network, attempts: s.attempts, resumedFrom: resumedFrom,
                bytesReceived: s.bytesReceived, httpStatus: status, elapsed: elapsed)
            metrics.queued = Double(s.startedAt &- createdAt) / 1e9
            metrics.timeToFirstByte = s.firstByteAt.map { Double($0 &- s.startedAt) / 1e9 }
            metrics.tierLookups = context.tierLookups
            return .over(finish, metrics)
        }
    }

    /// The download is over: validates the outcome, keeps the image in memory, frees the slot, finishes the
    /// operation, then answers every caller and queues the disk write (or, with `writesCacheInCallbacks`, writes it
    /// at the start of the callers' block, so they get the image with its entry file; CacheComplete still follows
    /// them).
    private func complete(
        _ outcome: AttemptOutcome, metrics: DWDownloadMetrics,
        finishOperation: (@Sendable () -> Void)?, write reserved: CacheWrite?
    ) {
        // Validate and keep the image in memory before the manager forgets this download: a caller who finds no
        // download for the URL from then on finds the image in the memory cache instead.
        let result = makeResult(outcome, metrics: metrics)
        var policy = context.storePolicy
        var write: CacheWrite?
        if case .success(let (image, head)) = result {
            partial.finish()  // the bytes live on in `image.data` (memory-mapped when they were on disk)
            if policy.contains(.disk) && !context.cache.mayStore(head) {  // no-store, honoured
                policy.remove(.disk)
                context.cache.removeDiskEntry(forKey: key)
            }
            if policy.contains(.memory) { context.cache.storeInMemory(image, forKey: key) }
            if policy.contains(.disk) {
                write = reserved ?? context.cache.takeWrite(forKey: key)
                write?.hold(image)  // findable until written
            }
        }
        if write == nil { reserved?.cancel() }  // nothing to write after all
        if case .failure(let error) = result, error.httpStatus == 304, context.revalidation != nil,
            policy.contains(.disk)
        {
            context.cache.removeDiskEntry(forKey: key)  // a 304 for another entity tag: this entry is out of date
        }
        state.withLock { s in
            switch result {
            case .success: s.ending = .success(())
            case .failure(let error): s.ending = .failure(error)
            }
        }
        reportEnd()  // the slot is free before the disk write
        finishOperation?()
        let waiters = state.withLock { s -> [Waiter] in
            s.phase = .finished
            return s.waiters
        }
        switch result {
        case .success(let (image, head)) where write != nil && context.writesCacheInCallbacks:
            let (write, url, metadata) = (write!, url, diskMetadata(for: head))
            let notifies = context.notificationCenter != nil
            deliver(image, metrics: metrics, to: waiters) {
                write.writeHere(image, metadata: metadata, url: url, notifies: notifies)
            }
        case .success(let (image, head)):
            deliver(image, metrics: metrics, to: waiters)
            write?.writeAndNotify(image, metadata: diskMetadata(for: head), url: url, queue: context.callbackQueue)
        case .failure(let error):
            deliver(error, metrics: metrics, to: waiters)
        }
    }

    /// Answers the callers of the original in one block on the callback queue, and hands the callers of variants to
    /// the manager. `writing`, if any, starts the block (the cache write: the callers get the image it returns, with
    /// its entry file) and what it returns to do after ends it; the variants' callers are then handed on in the
    /// block, after the write, so no variant is answered before its original's entry (and the origin's headers in
    /// it) is on disk.
    private func deliver(
        _ image: DWImage, metrics: DWDownloadMetrics, to waiters: [Waiter],
        writing: (@Sendable () -> (DWImage, @Sendable () -> Void))? = nil
    ) {
        let center = context.notificationCenter
        let handler = context.owner?.metricsHandler
        let total = Int64(image.data.count)
        // One final (total, total) call, unless the last progress report already said exactly that.
        let needsFinal = state.withLock { s -> Bool in
            defer { s.lastProgressBytes = max(s.lastProgressBytes, total) }
            return s.lastProgressBytes < total
        }
        // Callers of a variant get theirs once it is made (the manager runs one transform per variant).
        let anyVariant = waiters.contains { $0.options.isVariant }  // rarely: no arrays made when none is
        let originals = anyVariant ? waiters.filter { !$0.options.isVariant } : waiters
        let variants = anyVariant ? waiters.filter { $0.options.isVariant } : []
        let groups = anyVariant ? Array(Dictionary(grouping: variants) { $0.options.variant }.values) : []
        // One block: the metrics handler first (so it has seen the record when completions run), every
        // completion, then the Finish notification (its image is the original).
        let block: @Sendable () -> Void = { [self] in
            var image = image
            var then: (@Sendable () -> Void)?
            if let writing { (image, then) = writing() }
            if writing != nil, !groups.isEmpty {
                context.owner?.makeVariants(from: image, for: groups, callbacks: context.callbackQueue)
            }
            handler?(metrics)
            for waiter in originals where waiter.claim() {
                if needsFinal { waiter.progress?(total, total) }
                waiter.callCompletion(.success(image))
            }
            if needsFinal { for waiter in variants where !waiter.isDelivered { waiter.progress?(total, total) } }
            // userInfo made here, as the [AnyHashable: Any] post takes (a [String: any Sendable] made outside the
            // block was converted on every post: ~4 k instructions).
            if let center {
                let info: [AnyHashable: Any] = [
                    DWWebImageNotificationKey.url: url, DWWebImageNotificationKey.image: image,
                    DWWebImageNotificationKey.metrics: metrics
                ]
                center.post(name: .DWWebImageDownloadFinish, object: self, userInfo: info)
            }
            then?()
        }
        context.callbackQueue.async {
            if !originals.isEmpty { DWHopTrace.arrive("callback queue") }  // else the handler and notification
            block()
        }
        if writing == nil, !groups.isEmpty {
            context.owner?.makeVariants(from: image, for: groups, callbacks: context.callbackQueue)
        }
    }

    /// Keeps the partial body when the failure is worth resuming later, then answers every caller with `error`
    /// in one block on the callback queue.
    private func deliver(_ error: DWWebImageError, metrics: DWDownloadMetrics, to waiters: [Waiter]) {
        // Worth resuming later: transport failures and 5xx/408/429. Anything else is gone for good.
        if error.isTransient {
            partial.suspend()
        } else {
            partial.discard()
        }
        let center = context.notificationCenter
        let handler = context.owner?.metricsHandler
        let failed = {
            var m = metrics; m.errorCode = error.code; return m
        }()
        let block: @Sendable () -> Void = { [self] in
            handler?(failed)
            for waiter in waiters where waiter.claim() { waiter.callCompletion(.failure(error)) }
            guard let center else { return }
            let info: [AnyHashable: Any] = [
                DWWebImageNotificationKey.url: url, DWWebImageNotificationKey.error: error,
                DWWebImageNotificationKey.metrics: failed
            ]
            center.post(name: .DWWebImageDownloadFinish, object: self, userInfo: info)
        }
        context.callbackQueue.async {
            DWHopTrace.arrive("callback queue")
            block()
        }
    }

    /// The entry to store for a response: its validators, type, Cache-Control and Expires; after a 304, the old
    /// entry's type with the validators, Cache-Control and Expires the 304 updated (RFC 9111 §4.3.4), and new dates.
    private func diskMetadata(for head: DWResponseHead) -> DWCacheEntryMetadata {
        var metadata = DWCacheEntryMetadata(
            etag: head.etag, lastModified: head.lastModified,
            contentType: head.contentType, cacheControl: head.cacheControl, expires: head.expires)
        if head.status == 304, let old = context.revalidation?.metadata {
            metadata.etag = head.etag ?? old.etag
            metadata.lastModified = head.lastModified ?? old.lastModified
            metadata.contentType = old.contentType
            metadata.cacheControl = head.cacheControl ?? old.cacheControl
            metadata.expires = head.expires ?? old.expires
        }
        return metadata
    }

    /// Turns the download's last outcome into an image or the error a user should see.
    private func makeResult(_ outcome: AttemptOutcome, metrics: DWDownloadMetrics)
        -> Result<(DWImage, DWResponseHead), DWWebImageError>
    {
        switch outcome {
        case .failed(.failure(.refetchWhole(let why))):  // the whole body was asked for twice already
            return .failure(DWWebImageError(.transport, "resume failed: \(why)", url: url))
        case .failed(.failure(.cancelled)):
            return .failure(.cancelled(url))
        case .failed(.failure(.tooLarge(let size, let limit))):
            return .failure(.tooLarge(url, size: size, limit: limit))
        case .failed(.failure(.rejected(let why))):
            return .failure(DWWebImageError(.transport, "transfer aborted: \(why)", url: url))
        case .failed(.failure(.addressRefused(let address))):
            var error = DWWebImageError(
                .transport, "connection to \(address) refused by the connection policy",
                url: url, curlCode: CurlCode.couldNotConnect)
            error.refusedAddress = address
            return .failure(error)
        case .failed(.failure(.curl(let code, let message))):
            return .failure(.curl(code, message, url: url))
        case .failed(.failure(.hook(let error))):
            return .failure(error.about(url))
        case .failed(.success(let transfer)):
            return .failure(.http(transfer.head.status, url: url))
        case .notModified(let head):
            guard let revalidation = context.revalidation else { return .failure(.http(304, url: url)) }
            var image = revalidation.image.from(.revalidated, metrics: metrics)
            image.responseMetadata = ResponseMetadata(diskMetadata(for: head))
            return .success((image, head))
        case .complete(let head):
            let data = partial.data()
            do throws(DWWebImageError) {
                var image = try DWImage.validated(data: data, maxPixelCount: context.maxPixelCount)
                image.responseMetadata = ResponseMetadata(diskMetadata(for: head))
                return .success((image.from(.network, metrics: metrics), head))
            } catch {
                return .failure(
                    DWWebImageError(
                        error.code, error.message, url: url, httpStatus: head.status,
                        size: error.size, limit: error.limit))
            }
        }
    }
}
