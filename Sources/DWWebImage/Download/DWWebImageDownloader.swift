// DWWebImageDownloader: one download of one URL, with the callback array of everyone waiting for it.
import Foundation
import DWLocking

/// One download of one URL. It holds the *callback array* of every caller waiting for that URL; when the transfer
/// ends it validates the bytes, stores them in the cache, calls every callback exactly once and posts the
/// notifications (`object:` this downloader).
///
/// Created by ``DWWebImageManager``; run by a ``DWWebImageOperation``. Thread safety: all mutable state is in
/// `state`, one Mutex; callbacks and notifications are dispatched to the manager's `callbackQueue` after the lock
/// is released.
public final class DWWebImageDownloader: Sendable {
    /// The URL string callers asked for (also the cache key).
    public let url: String
    let context: DownloadContext

    enum Phase: Sendable { case waiting, running, finished, cancelled }

    private struct State {
        var phase: Phase = .waiting
        var waiters: [Waiter] = []
        var transfer: CurlTransfer?
        var finishOperation: (@Sendable () -> Void)?
        weak var operation: DWWebImageOperation?
        var lastProgressReport: UInt64 = 0
        var lastProgressBytes: Int64 = 0
        var attempts = 1
        var bytesReceived: Int64 = 0
        var startedAt: UInt64 = 0
    }
    private let state = DWLock(State())
    private let body = BodyBuffer()

    init(url: String, context: DownloadContext) {
        self.url = url
        self.context = context
    }

    /// Callers currently waiting (not yet completed).
    public var waiterCount: Int { state.withLock { $0.waiters.filter { !$0.isDelivered }.count } }

    var phase: Phase { state.withLock { $0.phase } }

    func setOperation(_ operation: DWWebImageOperation) { state.withLock { $0.operation = operation } }

    /// Adds a caller to the callback array; false when this download has already ended (make a new one).
    func attach(_ waiter: Waiter) -> Bool {
        state.withLock { s in
            guard s.phase == .waiting || s.phase == .running else { return false }
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
        post(.DWWebImageDownloadStart, [DWWebImageNotificationKey.url: url])
        startAttempt()
    }

    /// Starts one attempt: a fresh transfer whose body replaces any earlier attempt's.
    private func startAttempt() {
        body.reset()
        let transfer = CurlTransfer(
            request: context.request,
            onData: { [body] chunk in body.append(chunk); return true },
            onProgress: { [weak self] received, expected in self?.reportProgress(received, expected) },
            onComplete: { [weak self] result in
                guard let self else { return }
                self.context.processingQueue.async { self.transferEnded(result) }
            })
        let live = state.withLock { s -> Bool in
            guard s.phase == .running else { return false }
            s.transfer = transfer
            return true
        }
        if live { context.engine.submit(transfer) }
    }

    /// Stops a running transfer (the operation was cancelled directly); waiters get 10007.
    func stopTransfer() { cancelAll() }

    private func reportProgress(_ received: Int64, _ expected: Int64) {
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

    private func transferEnded(_ result: Result<TransferResult, TransferFailure>) {
        enum Next { case retry(after: TimeInterval), finish([Waiter], (@Sendable () -> Void)?, DWDownloadMetrics) }
        let retryable = Self.shouldRetry(result)
        let next = state.withLock { s -> Next in
            s.transfer = nil
            if case .success(let r) = result { s.bytesReceived += r.bodyBytes }
            if s.phase == .running, retryable, s.attempts <= context.retryCount {
                s.attempts += 1
                return .retry(after: context.retryDelay)
            }
            let finish = s.finishOperation
            s.finishOperation = nil
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds &- s.startedAt) / 1e9
            var status = 0
            if case .success(let r) = result { status = r.head.status }
            let metrics = DWDownloadMetrics(attempts: s.attempts, resumedFrom: 0, bytesReceived: s.bytesReceived,
                                            httpStatus: status, elapsed: elapsed)
            guard s.phase == .running else { return .finish([], finish, metrics) }  // cancelled: already answered
            s.phase = .finished
            return .finish(s.waiters, finish, metrics)
        }
        let claimed: (waiters: [Waiter], finish: (@Sendable () -> Void)?)
        let metrics: DWDownloadMetrics
        switch next {
        case .retry(let delay):
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in startAttempt() }
            return
        case .finish(let waiters, let finish, let m):
            claimed = (waiters, finish)
            metrics = m
        }
        defer { claimed.finish?() }
        guard !claimed.waiters.isEmpty else { return }
        context.didEnd(self)

        let outcome = evaluate(result, metrics: metrics)
        let queue = context.callbackQueue
        switch outcome {
        case .success(let (image, head)):
            let policy = context.storePolicy
            if policy.contains(.memory) { context.cache.storeInMemory(image, forKey: url) }
            let total = Int64(image.data.count)
            let waiters = claimed.waiters
            if policy.contains(.disk) { context.cache.willWrite() }
            queue.async {
                for waiter in waiters where waiter.claim() {
                    waiter.progress?(total, total)
                    waiter.callCompletion(.success(image))
                }
            }
            post(.DWWebImageDownloadFinish, [DWWebImageNotificationKey.url: url, DWWebImageNotificationKey.image: image])
            if policy.contains(.disk) {
                let metadata = DWCacheEntryMetadata(etag: head.etag, lastModified: head.lastModified,
                                                    contentType: head.contentType)
                context.cache.writeAndNotify(image.data, forKey: url, metadata: metadata, url: url, queue: queue)
            }
        case .failure(let error):
            for waiter in claimed.waiters { waiter.deliver(.failure(error), on: queue) }
            post(.DWWebImageDownloadFinish, [DWWebImageNotificationKey.url: url, DWWebImageNotificationKey.error: error])
        }
    }

    /// Turns the transfer's outcome into an image or the error a user should see.
    private func evaluate(_ result: Result<TransferResult, TransferFailure>, metrics: DWDownloadMetrics)
        -> Result<(DWImage, DWResponseHead), DWWebImageError> {
        switch result {
        case .failure(.cancelled):
            return .failure(.cancelled(url))
        case .failure(.tooLarge(let size, let limit)):
            return .failure(.tooLarge(url, size: size, limit: limit))
        case .failure(.rejected(let why)):
            return .failure(DWWebImageError(.transport, "transfer aborted: \(why)", url: url))
        case .failure(.curl(let code, let message)):
            return .failure(DWWebImageError(.transport, "curl error \(code): \(message)", url: url, curlCode: code))
        case .success(let transfer):
            let status = transfer.head.status
            guard (200..<300).contains(status) else { return .failure(.http(status, url: url)) }
            let data = body.take()
            do throws(DWWebImageError) {
                let image = try DWImage(data: data, maxPixelCount: context.maxPixelCount)
                return .success((image.from(.network, metrics: metrics), transfer.head))
            } catch {
                return .failure(DWWebImageError(error.code, error.message, url: url, httpStatus: status,
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
            // 1 unsupported protocol, 3 malformed URL, 47 too many redirects, 60 bad peer certificate.
            return ![1, 3, 47, 60].contains(code)
        case .failure(.cancelled), .failure(.tooLarge), .failure(.rejected):
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

    /// Effects of entering `.cancelled`: forget the download, stop its transfer or its waiting operation, post Stop.
    private func cancelled() {
        context.didEnd(self)
        let (transfer, operation, finish) = state.withLock { s in
            // Between attempts (no transfer in flight) the operation is finished here; with a transfer, by its end.
            let finish = s.transfer == nil ? s.finishOperation : nil
            if s.transfer == nil { s.finishOperation = nil }
            return (s.transfer, s.operation, finish)
        }
        if let transfer {
            context.engine.cancel(transfer)  // its completion finishes the operation
        } else if let finish {
            finish()
        } else if let operation, !operation.isExecuting {
            operation.cancel()  // a waiting operation starts at once and finishes
        }
        post(.DWWebImageDownloadStop, [DWWebImageNotificationKey.url: url])
    }

    private func post(_ name: Notification.Name, _ info: [String: any Sendable]) {
        let center = context.notificationCenter
        context.callbackQueue.async { center.post(name: name, object: self, userInfo: info) }
    }
}

/// What a downloader needs from its manager.
struct DownloadContext: Sendable {
    let engine: CurlMulti
    let cache: DWWebImageCache
    let notificationCenter: NotificationCenter
    let callbackQueue: DispatchQueue
    let processingQueue: DispatchQueue
    let request: TransferRequest
    let storePolicy: DWWebImageCachePolicy
    let maxPixelCount: Int
    /// Retries after a failed attempt, and the delay between attempts.
    let retryCount: Int
    let retryDelay: TimeInterval
    /// Minimum time between progress reports, in nanoseconds.
    let progressInterval: UInt64
    /// Tells the manager this downloader no longer takes new callers.
    let didEnd: @Sendable (DWWebImageDownloader) -> Void
}

/// The body as it arrives.
final class BodyBuffer: @unchecked Sendable {
    // @unchecked: `append` runs only on the engine thread during the transfer, and `take` only after the
    // transfer's completion has been handed to another queue (a happens-before edge through Dispatch).
    private var data = Data()
    func append(_ chunk: UnsafeRawBufferPointer) { data.append(contentsOf: chunk) }
    func reset() { data = Data() }
    func take() -> Data {
        defer { data = Data() }
        return data
    }
}
