// TransferResult / TransferFailure: what the transfer engine reports when a transfer ends.
import Foundation

/// A finished transfer.
struct TransferResult: Sendable {
    /// The final response's head.
    var head: DWResponseHead
    /// Body bytes received (for any status).
    var bodyBytes: Int64
}

/// Why a transfer did not finish.
enum TransferFailure: Error, Sendable, Equatable {
    /// It was cancelled before it finished.
    case cancelled
    /// The body is larger than ``TransferRequest/maxBodySize``; `size` is what was announced or seen so far.
    case tooLarge(size: Int64, limit: Int64)
    /// The body consumer refused the data (e.g. the sink could not store it).
    case rejected(String)
    /// libcurl failed: its `CURLcode` and message.
    case curl(code: Int, message: String)
    /// The response cannot continue the partial body (wrong range, changed encoding…): fetch the whole resource.
    case refetchWhole(String)
    /// The connection policy refused the address about to be connected (text form); nothing was sent there.
    case addressRefused(String)
    /// A request hook failed the request (a modifier threw, a redirect handler refused, a rewritten URL is not
    /// http(s)): this error, delivered as it is and never retried.
    case hook(DWWebImageError)
}
