// DWImageLoader: another source of bytes (files, data: URLs, an app's store, s3://) behind the same pipeline.
import Foundation
import DWLocking

/// A source of image bytes for URLs that are not fetched over HTTP: the manager asks each of its
/// ``DWWebImageManager/Configuration/loaders`` in order whether it can load a URL, and the first that says yes
/// loads it *in place of the transfer*, so everything around the transfer stays as it is: the cache (under the
/// URL as given, or ``DWWebImageOptions/cacheKey(_:)``), coalescing (10 callers, one load), priorities and slots,
/// validation, progress, notifications and cancellation.
///
/// ```swift
/// struct StoreLoader: DWImageLoader {
///     func canLoad(_ url: String) -> Bool { url.hasPrefix("store:") }
///     func load(_ url: String, into body: DWImageLoaderBody) async throws {
///         let blob = try await store.blob(named: String(url.dropFirst(6)))
///         body.expect(length: Int64(blob.count))
///         try body.append(blob)                 // any number of chunks; throws once cancelled
///     }
/// }
/// configuration.loaders.insert(StoreLoader(), at: 0)
/// ```
public protocol DWImageLoader: Sendable {
    /// Whether this loader takes `url` (the string the caller gave). Called on the caller's thread for every
    /// request: keep it a quick look at the string.
    func canLoad(_ url: String) -> Bool

    /// Loads `url`, streaming its bytes into `body`; returns when all were appended. Runs in a `Task` once the
    /// request holds a download slot (off the transfer thread and off the callback queue); the task is
    /// cancelled when every caller has cancelled, and `body.append` then throws 10007.
    ///
    /// A thrown ``DWWebImageError`` reaches the callers as it is (URL filled in); any other error becomes 10003
    /// naming it. Loads are not retried (a loader that wants retries makes them).
    func load(_ url: String, into body: DWImageLoaderBody) async throws
}

/// Where a ``DWImageLoader`` puts the bytes it loads. Safe to call from any thread, one call at a time.
public final class DWImageLoaderBody: Sendable {
    private let transfer: CurlTransfer
    private struct State {
        var headSent = false
        var expected: Int64 = -1
        var received: Int64 = 0
        var head = DWResponseHead()
    }
    private let state = DWLock(State())

    init(transfer: CurlTransfer) { self.transfer = transfer }

    /// Announces the total size, when known, before the first ``append(_:)`` (progress shows it; a size over the
    /// manager's ``DWWebImageManager/Configuration/maxBodySize`` fails at once with 10005).
    public func expect(length: Int64) {
        state.withLock { $0.expected = length }
    }

    /// Adds the next bytes. Throws 10007 once the request is cancelled, 10005 past the size limit: stop loading then.
    public func append(_ bytes: Data) throws(DWWebImageError) {
        try sendHead()
        let (received, expected) = state.withLock { s -> (Int64, Int64) in
            s.received += Int64(bytes.count)
            return (s.received, s.expected)
        }
        if let limit = transfer.request.maxBodySize, received > limit {
            throw .tooLarge(transfer.request.url, size: received, limit: limit)
        }
        let accepted = transfer.whileLive {
            bytes.withUnsafeBytes { transfer.onData($0) }
        }
        guard let accepted else { throw .cancelled(transfer.request.url) }
        guard accepted else {
            throw DWWebImageError(.transport, "the body could not be stored", url: transfer.request.url)
        }
        transfer.onProgress(received, expected)
    }

    /// The 200 head a loaded body is judged by (sent once, before the first bytes).
    private func sendHead() throws(DWWebImageError) {
        let (first, expected) = state.withLock { s -> (Bool, Int64) in
            defer { s.headSent = true }
            return (!s.headSent, s.expected)
        }
        guard first else { return }
        if let limit = transfer.request.maxBodySize, expected > limit {
            throw .tooLarge(transfer.request.url, size: expected, limit: limit)
        }
        var head = DWResponseHead()
        head.status = 200
        if expected >= 0 { head.contentLength = expected }
        state.withLock { $0.head = head }
        let decision = transfer.whileLive { transfer.onHead(head) }
        switch decision {
        case nil: throw .cancelled(transfer.request.url)
        case .refetchWhole?: throw DWWebImageError(.transport, "the body was refused", url: transfer.request.url)
        case .append?, .replace?, .noBody?: break
        }
    }

    /// After the loader returned: the head (sent now if nothing was appended) and the byte count.
    func finish() throws(DWWebImageError) -> TransferResult {
        try sendHead()
        return state.withLock { TransferResult(head: $0.head, bodyBytes: $0.received) }
    }
}
