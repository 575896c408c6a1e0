// CurlMulti+Hooks: request modifiers before a transfer, redirect handlers between its hops (see RequestHooks).
import Foundation

extension CurlMulti {
    /// Runs the transfer's request modifiers in a task, then hands the modified request to the engine. A failure
    /// completes the transfer with `.hook`; a cancel meanwhile cancels the task and completes it with `.cancelled`.
    func modifyThenEnqueue(_ transfer: CurlTransfer) {
        let task = Task { [self] in
            let outcome = await transfer.request.hooks.modify(transfer.request)
            resume(transfer, with: outcome)
        }
        transfer.hookTask.value = task
        if transfer.cancelRequested.value { task.cancel() }
    }

    /// Engine thread: the hop ended with a redirect the pipeline follows itself. Asks the redirect handlers in a
    /// task, then sends the next hop, or completes the transfer (too many redirects, refused, unusable target).
    func followRedirect(_ transfer: CurlTransfer, head: DWResponseHead) {
        let from = transfer.current
        guard transfer.hops < from.maxRedirects else {
            let message = "Maximum (\(from.maxRedirects)) redirects followed"
            transfer.complete(.failure(.curl(code: CurlCode.tooManyRedirects, message: message)))
            return
        }
        let location = head.location ?? ""
        guard let next = RequestHooks.nextRequest(from: from, location: location) else {
            transfer.complete(
                .failure(.hook(.invalidURL(location, "redirect from \(from.url) to an unusable Location"))))
            return
        }
        transfer.hops += 1
        let redirect = DWRedirect(
            from: from.url, status: head.status, location: location, next: next, hop: transfer.hops)
        let task = Task { [self] in
            let outcome = await from.hooks.decide(redirect, base: from)
            resume(transfer, with: outcome)
        }
        transfer.hookTask.value = task
    }

    /// After a hook: the next hop goes to the engine, or the transfer completes (failure, or cancelled meanwhile).
    private func resume(_ transfer: CurlTransfer, with outcome: Result<TransferRequest, DWWebImageError>) {
        transfer.hookTask.value = nil
        if Task.isCancelled || transfer.cancelRequested.value {
            transfer.complete(.failure(.cancelled))
            return
        }
        switch outcome {
        case .success(let request):
            enqueue(transfer, request)
        case .failure(let error) where error.code == .cancelled:
            transfer.complete(.failure(.cancelled))
        case .failure(let error):
            transfer.complete(.failure(.hook(error)))
        }
    }
}
