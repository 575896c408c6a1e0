// DWWebImageDownloader + cancelling: one caller, every caller, and what entering `.cancelled` does.
import Foundation

extension DWWebImageDownloader {
    /// Cancels one caller (10007 at once); the download goes on for the others, or stops if nobody is left.
    func cancelWaiter(_ token: DWWebImageToken) {
        let waiter = state.withLock { s in s.waiters.first { $0.token == token } }
        guard let waiter, waiter.deliver(.failure(.cancelled(url)), on: context.callbackQueue) else { return }
        cancelIfAbandoned()
    }

    /// After a caller cancelled: if nobody is left waiting, cancels the whole download.
    func cancelIfAbandoned() {
        let abandoned = state.withLock { s -> Bool in
            guard s.phase == .waiting || s.phase == .running else { return false }
            guard s.waiters.allSatisfy({ $0.isDelivered }) else { return false }
            s.phase = .cancelled
            return true
        }
        if abandoned { cancelled() }
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
        post(.DWWebImageDownloadStop)
    }
}
