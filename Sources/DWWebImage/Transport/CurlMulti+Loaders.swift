// CurlMulti+Loaders: a DWImageLoader runs in place of a libcurl transfer, with the transfer's callbacks.
import Foundation

extension CurlMulti {
    /// Runs `loader` for the transfer in a task: its bytes go through the transfer's callbacks (head, body,
    /// progress), then the transfer completes as a 200 would. A cancel cancels the task; the transfer completes
    /// with `.cancelled` once (the engine completes a transfer it does not hold at once).
    func load(_ transfer: CurlTransfer, with loader: any DWImageLoader) {
        let task = Task {
            let body = DWImageLoaderBody(transfer: transfer)
            let result: Result<TransferResult, TransferFailure>
            do {
                try Task.checkCancellation()
                try await loader.load(transfer.request.url, into: body)
                result = .success(try body.finish())
            } catch let error as DWWebImageError {
                switch error.code {
                case .cancelled: result = .failure(.cancelled)
                case .tooLarge: result = .failure(.tooLarge(size: error.size ?? 0, limit: error.limit ?? 0))
                default: result = .failure(.hook(error))
                }
            } catch is CancellationError {
                result = .failure(.cancelled)
            } catch {
                result = .failure(.hook(DWWebImageError(.transport, "the loader failed: \(error)")))
            }
            transfer.hookTask.value = nil
            transfer.complete(transfer.cancelRequested.value ? .failure(.cancelled) : result)
        }
        transfer.hookTask.value = task
        if transfer.cancelRequested.value { task.cancel() }
    }
}
