// DWWebImageDownloader + attempts: starting requests (resuming where possible), progress, classifying a
// request's end by the resume rules, and when to retry.
import DWLocking
import Foundation

extension DWWebImageDownloader {
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
        post(.DWWebImageDownloadStart)
        startAttempt()
    }

    /// Starts one request: resuming from the bytes held when they can be resumed, else for the whole body.
    func startAttempt(whole: Bool = false) {
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
        // The callbacks hold the downloader (not weakly: a weak reference gives each downloader a side table and
        // every retain of it the slow path). The cycle downloader → `state.transfer` → callbacks → downloader is
        // broken when the transfer ends: `onComplete` is called exactly once for a submitted transfer and clears
        // `state.transfer` (`nextStep`); a transfer never submitted is freed when this function returns.
        let transfer = CurlTransfer(
            request: request,
            onHead: { [self] head in
                // Decided before a single body byte is written (libcurl's own resume logic is never used).
                state.withLock { s in
                    if s.firstByteAt == nil { s.firstByteAt = DispatchTime.now().uptimeNanoseconds }
                }
                let outcome = ResumeProtocol.decide(
                    head: head, requestedOffset: requestedOffset,
                    validator: sentValidator)
                switch outcome {
                case .append(let base): state.withLock { $0.appendedFrom = base }
                case .replace: partial.begin(.replace, head: head)
                case .refetchWhole, .noBody: break
                }
                return outcome
            },
            onData: { chunk in partial.append(chunk) },
            onProgress: { [self] received, expected in reportProgress(received, expected) },
            onComplete: { [self] result in
                // A small body that arrived whole in memory is classified right here on the engine thread (a
                // header sniff and a few locks: cheaper than waking a thread for it), when its cache write can be
                // queued without waiting; everything else (retries, partial files, big bodies, a busy disk) goes
                // to the work queue.
                // (A write that runs in the callback block needs no place in the write backlog.)
                let queuesWrite = self.context.storePolicy.contains(.disk) && !self.context.writesCacheInCallbacks
                if case .success(let r) = result, (200..<300).contains(r.head.status), self.context.revalidation == nil,
                    self.partial.isSmallInMemory(atMost: Self.engineThreadLimit)
                {
                    if !queuesWrite { return self.transferEnded(result) }
                    if let write = self.context.cache.reserveWrite(forKey: self.key) {
                        return self.transferEnded(result, write: write)
                    }
                }
                self.context.workQueue.async {
                    DWHopTrace.arrive("work queue")
                    self.transferEnded(result)
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
    enum AttemptOutcome {
        /// The whole body is held: validate it.
        case complete(DWResponseHead)
        /// 304 to a revalidation: the cached entry is current.
        case notModified(DWResponseHead)
        /// This attempt failed with this result: ask for the whole body again now (`.refetchWhole`), retry, or
        /// give up.
        case failed(Result<TransferResult, TransferFailure>)
    }

    /// Classifies a finished request by the resume rules.
    func classify(
        _ result: Result<TransferResult, TransferFailure>, requestedOffset: Int64,
        appendedFrom: Int64
    ) -> AttemptOutcome {
        switch result {
        case .failure:
            return .failed(result)
        case .success(let r):
            let head = r.head
            if head.status == 304, let sent = context.revalidation?.metadata.etag {
                // A 304 naming another entity tag confirms another entry, not this one (RFC 9111 §4.3.4): a failure,
                // never the stale bytes kept under the new tag.
                return head.etag.map { EntityTag.matches($0, sent) } ?? true ? .notModified(head) : .failed(result)
            }
            if head.status == 304, context.revalidation != nil { return .notModified(head) }
            if head.status == 416 && requestedOffset > 0 {
                let point = partial.resumePoint
                if ResumeProtocol.unsatisfiedRangeMeansComplete(
                    head: head, partialLength: point.offset,
                    validator: point.validator)
                {
                    var complete = head
                    complete.status = 200
                    return .complete(complete)
                }
                let why = "416 for bytes=\(requestedOffset)- does not confirm the partial"
                return .failed(.failure(.refetchWhole(why)))
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

    /// Bodies up to this size (in memory) may be classified and validated on the engine thread.
    static let engineThreadLimit: Int64 = 256 * 1024

    /// Seconds to wait before retrying after `result`; nil when it must not be retried (or Retry-After asks for
    /// longer than the policy's cap).
    func retryDelay(for result: Result<TransferResult, TransferFailure>) -> TimeInterval? {
        guard Self.shouldRetry(result) else { return nil }
        let policy = context.retryPolicy
        let attempt = state.withLock { $0.attempts }
        var delay = policy.delay(beforeRetry: attempt)
        if case .success(let r) = result, r.head.status == 429 || r.head.status == 503,
            let asked = DWRetryPolicy.retryAfterSeconds(r.head.retryAfter)
        {
            guard asked <= policy.maxRetryAfter else { return nil }
            delay = max(delay, asked)
        }
        return delay
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
}

/// Entity-tag comparison for a 304's answer to `If-None-Match`.
enum EntityTag {
    /// Whether two entity tags name the same entry, weakly (RFC 9110 §8.8.3.2: `W/` ignored).
    static func matches(_ a: String, _ b: String) -> Bool {
        func opaque(_ tag: String) -> Substring {
            let t = tag.trimmingCharacters(in: .whitespaces)
            return t.hasPrefix("W/") ? t.dropFirst(2) : Substring(t)
        }
        return opaque(a) == opaque(b)
    }
}
