// DWWebImageDownloader: one download of one URL, with the callback array of everyone waiting for it.
import Foundation
import DWLocking

/// One download of one URL. It holds the *callback array* of every caller waiting for that URL; when the transfer
/// ends it validates the bytes, stores them in the cache, calls every callback exactly once and posts the
/// notifications (`object:` this downloader).
///
/// Created by ``DWWebImageManager``; run by a ``DWWebImageOperation``. A finished transfer is judged on the
/// manager's work queue: validated, kept in memory, the slot given back (``DownloadContext/didEnd``, once per
/// downloader), then every caller answered in one block on the callback queue, then the disk write.
///
/// Thread safety: all mutable state is in `state`, one `DWLock` (taken after the manager's, before a waiter's);
/// callbacks and notifications are dispatched to the manager's `callbackQueue` after the lock is released.
public final class DWWebImageDownloader: Sendable {
    /// The URL string callers asked for (also the cache key).
    public let url: String
    let context: DownloadContext

    /// `finishing`: the outcome is being evaluated; callers may still join until the manager has been told.
    enum Phase: Sendable { case waiting, running, finishing, finished, cancelled }

    private struct State {
        var phase: Phase = .waiting
        var waiters: [Waiter] = []
        var transfer: CurlTransfer?
        var finishOperation: (@Sendable () -> Void)?
        weak var operation: DWWebImageOperation?
        /// The manager has been told this download is over (``DownloadContext/didEnd``; exactly once).
        var endReported = false
        var lastProgressReport: UInt64 = 0
        var lastProgressBytes: Int64 = 0
        /// Attempts made so far (a whole-body refetch after a failed resume is part of the same attempt).
        var attempts = 1
        /// Requests made without Range after a resume was refused, in this download.
        var wholeRefetches = 0
        /// The Range start of the request in flight (0 = whole body).
        var requestedOffset: Int64 = 0
        /// Where the body of the response in flight starts (after the server agreed to resume).
        var appendedFrom: Int64 = 0
        var bytesReceived: Int64 = 0
        var startedAt: UInt64 = 0
        var firstByteAt: UInt64?
    }
    /// When the download was created (a caller asked); the queue time runs from here to `begin`.
    private let createdAt = DispatchTime.now().uptimeNanoseconds
    private let state = DWLock(State())
    /// The body across attempts (memory, or a partial file on disk).
    private let partial: PartialBody

    init(url: String, context: DownloadContext) {
        self.url = url
        self.context = context
        self.partial = PartialBody(url: url, store: context.partialStore)
    }

    /// Callers currently waiting (not yet completed).
    public var waiterCount: Int { state.withLock { $0.waiters.filter { !$0.isDelivered }.count } }

    /// The highest priority among the callers still waiting, and whether they are all the prefetcher;
    /// nil when nobody waits any more.
    var demand: DownloadDemand? {
        state.withLock { s in
            var best: DWWebImagePriority?
            var prefetchOnly = true
            for waiter in s.waiters where !waiter.isDelivered {
                best = max(best ?? waiter.priority, waiter.priority)
                if !waiter.isPrefetch { prefetchOnly = false }
            }
            return best.map { DownloadDemand(priority: $0, prefetchOnly: prefetchOnly) }
        }
    }

    func setOperation(_ operation: DWWebImageOperation) { state.withLock { $0.operation = operation } }

    /// Adds a caller to the callback array; false when this download has already ended (make a new one).
    func attach(_ waiter: Waiter) -> Bool {
        state.withLock { s in
            guard s.phase == .waiting || s.phase == .running || s.phase == .finishing else { return false }
            s.waiters.append(waiter)
            return true
        }
    }

    // MARK: - Running

    /// Starts the transfer (called by the operation); `finish` is called once the download has ended.
    func begin(finish: @escaping @Sendable () -> Void) {
        let started = state.withLock { s -> Bool in
            guard s.phase == .waiting else { return false }
            s.phase = .running
            s.finishOperation = finish
            s.startedAt = DispatchTime.now().uptimeNanoseconds
            return true
        }
        guard started else {
            finish()  // cancelled while it waited
            return
        }
        partial.loadExisting()
        post(.DWWebImageDownloadStart, [DWWebImageNotificationKey.url: url])
        startAttempt()
    }

    /// Starts one request: resuming from the bytes held when they can be resumed, else for the whole body.
    private func startAttempt(whole: Bool = false) {
        var request = context.request
        var offset: Int64 = 0
        var validator: ResumeValidator?
        if !whole && context.revalidation == nil {
            let point = partial.resumePoint
            if let extra = ResumeProtocol.requestHeaders(offset: point.offset, validator: point.validator) {
                request.headers += extra
                request.acceptEncoding = "identity"
                offset = point.offset
                validator = point.validator
            }
        }
        let partial = self.partial
        let requestedOffset = offset
        let sentValidator = validator
        let transfer = CurlTransfer(
            request: request,
            onHead: { [weak self] head in
                // Decided before a single body byte is written (libcurl's own resume logic is never used).
                self?.state.withLock { s in
                    if s.firstByteAt == nil { s.firstByteAt = DispatchTime.now().uptimeNanoseconds }
                }
                let outcome = ResumeProtocol.decide(head: head, requestedOffset: requestedOffset,
                                                    validator: sentValidator)
                switch outcome {
                case .append(let base):
                    self?.state.withLock { $0.appendedFrom = base }
                    return .accept(baseOffset: base)
                case .replace:
                    partial.begin(.replace, head: head)
                    return .accept(baseOffset: 0)
                case .refetchWhole(let why):
                    return .refuse(.refetchWhole(why))
                case .noBody:
                    return .accept(baseOffset: 0)
                }
            },
            onData: { chunk in partial.append(chunk) },
            onProgress: { [weak self] received, expected in self?.reportProgress(received, expected) },
            onComplete: { [weak self] result in
                guard let self else { return }
                // A small body that arrived whole in memory is judged right here on the engine thread (a
                // header sniff and a few locks: cheaper than waking a thread for it), when its cache write can be
                // queued without waiting; everything else (retries, partial files, big bodies, a busy disk) goes
                // to the work queue.
                if case .success(let r) = result, (200..<300).contains(r.head.status), self.context.revalidation == nil,
                   self.partial.isSmallInMemory(atMost: Self.engineThreadLimit),
                   !self.context.storePolicy.contains(.disk) || self.context.cache.reserveWrite() {
                    self.transferEnded(result, writeReserved: self.context.storePolicy.contains(.disk))
                } else {
                    self.context.workQueue.async { self.transferEnded(result) }
                }
            })
        let live = state.withLock { s -> Bool in
            guard s.phase == .running else { return false }
            s.transfer = transfer
            s.requestedOffset = offset
            s.appendedFrom = 0
            return true
        }
        if live { context.engine.submit(transfer) }
    }

    private func reportProgress(_ received: Int64, _ expected: Int64) {
        // The last chunk: the final (total, total) call goes with the completions, in their block (a small image
        // arrives in one chunk, and a block of its own on the callback queue would cost as much as the answer).
        if received == expected { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let interval = context.progressInterval
        let waiters = state.withLock { s -> [Waiter] in
            // Monotonic across retries: a new attempt reports nothing until it passes the bytes already shown.
            guard now &- s.lastProgressReport >= interval, received > s.lastProgressBytes else { return [] }
            s.lastProgressReport = now
            s.lastProgressBytes = received
            return s.waiters.filter { $0.progress != nil }
        }
        guard !waiters.isEmpty else { return }
        context.callbackQueue.async {
            for waiter in waiters where !waiter.isDelivered { waiter.progress?(received, expected) }
        }
    }

    /// What one request's end means for the download.
    private enum AttemptOutcome {
        /// The whole body is held: validate it.
        case complete(DWResponseHead)
        /// 304 to a revalidation: the cached entry is current.
        case notModified(DWResponseHead)
        /// The held bytes cannot be continued: ask for the whole body again, now.
        case refetchWhole(String)
        /// This attempt failed with this result (retry or give up).
        case failed(Result<TransferResult, TransferFailure>)
    }

    /// Applies the resume rules to a finished request.
    private func judge(_ result: Result<TransferResult, TransferFailure>, requestedOffset: Int64,
                       appendedFrom: Int64) -> AttemptOutcome {
        switch result {
        case .failure(.refetchWhole(let why)):
            return .refetchWhole(why)
        case .failure:
            return .failed(result)
        case .success(let r):
            let head = r.head
            if head.status == 304, context.revalidation != nil { return .notModified(head) }
            if head.status == 416 && requestedOffset > 0 {
                let point = partial.resumePoint
                if ResumeProtocol.unsatisfiedRangeMeansComplete(head: head, partialLength: point.offset,
                                                                validator: point.validator) {
                    var complete = head
                    complete.status = 200
                    return .complete(complete)
                }
                return .refetchWhole("416 for bytes=\(requestedOffset)- does not confirm the partial")
            }
            guard (200..<300).contains(head.status) else { return .failed(result) }
            let held = partial.length
            if let total = ResumeProtocol.expectedTotal(head: head, offset: appendedFrom), total != held {
                if held > total { partial.discard() }
                let message = "body ended at \(held) bytes of \(total) announced"
                return .failed(.failure(.curl(code: CurlCode.partialFile, message: message)))
            }
            return .complete(head)
        }
    }

    /// Bodies up to this size (in memory) may be judged on the engine thread.
    static let engineThreadLimit: Int64 = 256 * 1024

    /// `writeReserved`: a place in the cache's write backlog was taken for this download (it is given back if the
    /// download ends without a write).
    private func transferEnded(_ result: Result<TransferResult, TransferFailure>, writeReserved: Bool = false) {
        enum Next {
            case again(whole: Bool, after: TimeInterval)
            case abandoned((@Sendable () -> Void)?)
            case evaluate((@Sendable () -> Void)?, DWDownloadMetrics)
        }
        let (requestedOffset, appendedFrom) = state.withLock { ($0.requestedOffset, $0.appendedFrom) }
        let outcome = judge(result, requestedOffset: requestedOffset, appendedFrom: appendedFrom)
        if case .refetchWhole(let why) = outcome {
            DWLog.debug("\(url): \(why); fetching the whole body")
            partial.discard()
        }
        var failure: Result<TransferResult, TransferFailure>?
        if case .failed(let r) = outcome { failure = r }
        let retryWait = failure.flatMap { retryDelay(for: $0) }
        let next = state.withLock { s -> Next in
            s.transfer = nil
            if case .success(let r) = result { s.bytesReceived += r.bodyBytes }
            let finish = s.finishOperation
            guard s.phase == .running else {  // cancelled: every caller has been answered
                s.finishOperation = nil
                return .abandoned(finish)
            }
            if case .refetchWhole = outcome, s.wholeRefetches < 2 {
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
            var metrics = DWDownloadMetrics(url: url, source: .network, attempts: s.attempts, resumedFrom: resumedFrom,
                                            bytesReceived: s.bytesReceived, httpStatus: status, elapsed: elapsed)
            metrics.queued = Double(s.startedAt &- createdAt) / 1e9
            metrics.timeToFirstByte = s.firstByteAt.map { Double($0 &- s.startedAt) / 1e9 }
            return .evaluate(finish, metrics)
        }
        let finishOperation: (@Sendable () -> Void)?
        let metrics: DWDownloadMetrics
        switch next {
        case .again(let whole, let delay):
            if writeReserved { context.cache.unreserveWrite() }
            if delay <= 0 {
                startAttempt(whole: whole)
            } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in startAttempt(whole: whole) }
            }
            return
        case .abandoned(let finish):
            if writeReserved { context.cache.unreserveWrite() }
            partial.suspend()  // cancelled: keep what we have for the next time someone asks
            reportEnd()
            finish?()
            return
        case .evaluate(let finish, let m):
            finishOperation = finish
            metrics = m
        }

        // Validate and keep the image in memory before the manager forgets this download: a caller who finds no
        // download for the URL from then on finds the image in the memory cache instead.
        let evaluated = evaluate(outcome, metrics: metrics)
        var policy = context.storePolicy
        if case .success(let (image, head)) = evaluated {
            partial.finish()  // the bytes live on in `image.data` (memory-mapped when they were on disk)
            if policy.contains(.disk) && !context.cache.mayStore(head) {  // no-store, honoured
                policy.remove(.disk)
                context.cache.removeDiskEntry(forKey: url)
            }
            if policy.contains(.memory) { context.cache.storeInMemory(image, forKey: url) }
            if policy.contains(.disk) { context.cache.willWrite() }
        }
        let writes: Bool
        if case .success = evaluated { writes = policy.contains(.disk) } else { writes = false }
        if writeReserved && !writes { context.cache.unreserveWrite() }
        reportEnd()  // the slot is free before the disk write
        finishOperation?()
        let waiters = state.withLock { s -> [Waiter] in
            s.phase = .finished
            return s.waiters
        }
        let queue = context.callbackQueue
        let center = context.notificationCenter
        let handler = context.metricsHandler()
        switch evaluated {
        case .success(let (image, head)):
            let total = Int64(image.data.count)
            // One final (total, total) call, unless the last progress report already said exactly that.
            let needsFinal = state.withLock { s -> Bool in
                defer { s.lastProgressBytes = max(s.lastProgressBytes, total) }
                return s.lastProgressBytes < total
            }
            let info: [String: any Sendable] = [DWWebImageNotificationKey.url: url,
                                                DWWebImageNotificationKey.image: image,
                                                DWWebImageNotificationKey.metrics: metrics]
            // Callers of a variant get theirs once it is made (the manager runs one transform per variant).
            let originals = waiters.filter { !$0.options.isVariant }
            let variants = waiters.filter { $0.options.isVariant }
            // One block: the metrics handler first (so it has seen the record when completions run), every
            // completion, then the Finish notification (its image is the original).
            queue.async { [self] in
                handler?(metrics)
                for waiter in originals where waiter.claim() {
                    if needsFinal { waiter.progress?(total, total) }
                    waiter.callCompletion(.success(image))
                }
                if needsFinal { for waiter in variants where !waiter.isDelivered { waiter.progress?(total, total) } }
                center.post(name: .DWWebImageDownloadFinish, object: self, userInfo: info)
            }
            if !variants.isEmpty {
                context.makeVariants(image, Array(Dictionary(grouping: variants) { $0.options.variant }.values))
            }
            if policy.contains(.disk) {
                var metadata = DWCacheEntryMetadata(etag: head.etag, lastModified: head.lastModified,
                                                    contentType: head.contentType, cacheControl: head.cacheControl)
                if head.status == 304, let old = context.revalidation?.metadata {
                    // Current again: new dates, validators and Cache-Control as updated by the 304
                    // (RFC 9111 §4.3.4), old type.
                    metadata.etag = head.etag ?? old.etag
                    metadata.lastModified = head.lastModified ?? old.lastModified
                    metadata.contentType = old.contentType
                    metadata.cacheControl = head.cacheControl ?? old.cacheControl
                }
                context.cache.writeAndNotify(image, forKey: url, metadata: metadata, url: url, queue: queue,
                                             reserved: writeReserved)
            }
        case .failure(let error):
            // Worth resuming later: transport failures and 5xx/408/429. Anything else is gone for good.
            if error.code == .transport || (error.httpStatus.map { $0 >= 500 || $0 == 408 || $0 == 429 } ?? false) {
                partial.suspend()
            } else {
                partial.discard()
            }
            let failed = { var m = metrics; m.errorCode = error.code; return m }()
            let info: [String: any Sendable] = [DWWebImageNotificationKey.url: url,
                                                DWWebImageNotificationKey.error: error,
                                                DWWebImageNotificationKey.metrics: failed]
            queue.async { [self] in
                handler?(failed)
                for waiter in waiters where waiter.claim() { waiter.callCompletion(.failure(error)) }
                center.post(name: .DWWebImageDownloadFinish, object: self, userInfo: info)
            }
        }
    }

    /// Tells the manager, once, that this download is over: it takes no new callers and its slot is free.
    private func reportEnd() {
        let first = state.withLock { s -> Bool in
            defer { s.endReported = true }
            return !s.endReported
        }
        if first { context.didEnd(self) }
    }

    /// Seconds to wait before retrying after `result`; nil when it must not be retried (or Retry-After asks for
    /// longer than the policy's cap).
    private func retryDelay(for result: Result<TransferResult, TransferFailure>) -> TimeInterval? {
        guard Self.shouldRetry(result) else { return nil }
        let policy = context.retryPolicy
        let attempt = state.withLock { $0.attempts }
        var delay = policy.delay(beforeRetry: attempt)
        if case .success(let r) = result, r.head.status == 429 || r.head.status == 503,
           let asked = DWRetryPolicy.retryAfterSeconds(r.head.retryAfter) {
            guard asked <= policy.maxRetryAfter else { return nil }
            delay = max(delay, asked)
        }
        return delay
    }

    /// Turns the download's outcome into an image or the error a user should see.
    private func evaluate(_ outcome: AttemptOutcome, metrics: DWDownloadMetrics)
        -> Result<(DWImage, DWResponseHead), DWWebImageError> {
        switch outcome {
        case .refetchWhole(let why), .failed(.failure(.refetchWhole(let why))):  // the second: judge() maps it
            return .failure(DWWebImageError(.transport, "resume failed: \(why)", url: url))
        case .failed(.failure(.cancelled)):
            return .failure(.cancelled(url))
        case .failed(.failure(.tooLarge(let size, let limit))):
            return .failure(.tooLarge(url, size: size, limit: limit))
        case .failed(.failure(.rejected(let why))):
            return .failure(DWWebImageError(.transport, "transfer aborted: \(why)", url: url))
        case .failed(.failure(.addressRefused(let address))):
            var error = DWWebImageError(.transport, "connection to \(address) refused by the connection policy",
                                        url: url, curlCode: CurlCode.couldNotConnect)
            error.refusedAddress = address
            return .failure(error)
        case .failed(.failure(.curl(let code, let message))):
            return .failure(DWWebImageError(.transport, "curl error \(code): \(message)", url: url, curlCode: code))
        case .failed(.failure(.hook(let error))):
            return .failure(error.about(url))
        case .failed(.success(let transfer)):
            return .failure(.http(transfer.head.status, url: url))
        case .notModified(let head):
            guard let revalidation = context.revalidation else { return .failure(.http(304, url: url)) }
            return .success((revalidation.image.from(.revalidated, metrics: metrics), head))
        case .complete(let head):
            let data = partial.data()
            do throws(DWWebImageError) {
                let image = try DWImage.pipeline(data: data, maxPixelCount: context.maxPixelCount)
                return .success((image.from(.network, metrics: metrics), head))
            } catch {
                return .failure(DWWebImageError(error.code, error.message, url: url, httpStatus: head.status,
                                                size: error.size, limit: error.limit))
            }
        }
    }

    /// Transport failures, 5xx, 408 and 429 are worth another attempt; cancellation, size limits, other 4xx,
    /// redirect loops and refused protocols are not.
    static func shouldRetry(_ result: Result<TransferResult, TransferFailure>) -> Bool {
        switch result {
        case .success(let r):
            let status = r.head.status
            return status >= 500 || status == 408 || status == 429
        case .failure(.curl(let code, _)):
            return !CurlCode.permanent.contains(code)
        case .failure(.cancelled), .failure(.tooLarge), .failure(.rejected), .failure(.refetchWhole),
             .failure(.addressRefused), .failure(.hook):
            return false
        }
    }

    // MARK: - Cancelling

    /// Cancels one caller (10007 at once); the download goes on for the others, or stops if nobody is left.
    func cancelWaiter(_ token: DWWebImageToken) {
        let waiter = state.withLock { s in s.waiters.first { $0.token == token } }
        guard let waiter, waiter.deliver(.failure(.cancelled(url)), on: context.callbackQueue) else { return }
        cancelIfAbandoned()
    }

    /// After a caller cancelled: if nobody is left waiting, cancels the whole download. Returns whether it did.
    @discardableResult
    func cancelIfAbandoned() -> Bool {
        let abandoned = state.withLock { s -> Bool in
            guard s.phase == .waiting || s.phase == .running else { return false }
            guard s.waiters.allSatisfy({ $0.isDelivered }) else { return false }
            s.phase = .cancelled
            return true
        }
        if abandoned { cancelled() }
        return abandoned
    }

    /// Cancels the download for every caller (each gets 10007) — `removeOperation(byURL:)`.
    func cancelAll() {
        let waiters = state.withLock { s -> [Waiter]? in
            guard s.phase == .waiting || s.phase == .running else { return nil }
            s.phase = .cancelled
            return s.waiters
        }
        guard let waiters else { return }
        let error = DWWebImageError.cancelled(url)
        for waiter in waiters { waiter.deliver(.failure(error), on: context.callbackQueue) }
        cancelled()
    }

    /// Effects of entering `.cancelled`: stop the transfer, post Stop. With a transfer in flight its end finishes
    /// the operation and frees the slot (``transferEnded(_:)``); without one (still waiting, or between attempts)
    /// both happen now.
    private func cancelled() {
        let (transfer, operation, finish) = state.withLock { s in
            let finish = s.transfer == nil ? s.finishOperation : nil
            if s.transfer == nil { s.finishOperation = nil }
            return (s.transfer, s.operation, finish)
        }
        if let transfer {
            context.engine.cancel(transfer)
        } else {
            if finish != nil { partial.suspend() }  // between attempts: release the partial now
            reportEnd()
            finish?()
            operation?.cancel()  // marks a waiting operation cancelled; it is never started
        }
        post(.DWWebImageDownloadStop, [DWWebImageNotificationKey.url: url])
    }

    private func post(_ name: Notification.Name, _ info: [String: any Sendable]) {
        let center = context.notificationCenter
        context.callbackQueue.async { center.post(name: name, object: self, userInfo: info) }
    }
}

/// An expired disk entry being revalidated.
struct Revalidation: Sendable {
    let image: DWImage
    let metadata: DWCacheEntryMetadata
}

/// What a downloader needs from its manager.
struct DownloadContext: Sendable {
    let engine: CurlMulti
    let cache: DWWebImageCache
    let notificationCenter: NotificationCenter
    let callbackQueue: DispatchQueue
    /// Where finished transfers are evaluated and written to disk (concurrent; off the engine and callback queue).
    let workQueue: DispatchQueue
    let request: TransferRequest
    let storePolicy: DWWebImageCachePolicy
    let maxPixelCount: Int
    /// The expired cache entry this download revalidates (conditional request; a 304 serves it).
    let revalidation: Revalidation?
    /// When to try again after a failed attempt.
    let retryPolicy: DWRetryPolicy
    /// Where partial bodies persist between attempts and processes; nil = memory only.
    let partialStore: PartialStore?
    /// Minimum time between progress reports, in nanoseconds.
    let progressInterval: UInt64
    /// Tells the manager, once per downloader, that it takes no new callers and holds no slot.
    let didEnd: @Sendable (DWWebImageDownloader) -> Void
    /// Hands the downloaded original and the callers of each variant (grouped by variant) to the manager.
    let makeVariants: @Sendable (DWImage, [[Waiter]]) -> Void
    /// The manager's metrics handler, read when a download ends.
    let metricsHandler: @Sendable () -> (@Sendable (DWDownloadMetrics) -> Void)?
    /// `host:port`, for the per-host connection cap.
    let hostKey: String
}
