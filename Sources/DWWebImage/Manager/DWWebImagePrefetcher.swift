// DWWebImagePrefetcher: fetch a list ahead of time, with a callback per image and one when all are done.
import Foundation
import DWLocking

/// Warms the cache with images someone will probably want soon (SDWebImage's `SDWebImagePrefetcher`,
/// Imaginary's `MultipleImageFetcher`).
///
/// Prefetches go through the manager like any request — cache first, coalesced with other callers — at
/// ``priority`` (low by default) and marked as prefetches, so at most ``DWWebImageManager/maxConcurrentPrefetches``
/// of them run at once. When someone calls `downloadImage` for a URL that is being prefetched or still waits
/// in the prefetch list, they join that download and lift it to their own priority at once.
///
/// ```swift
/// DWWebImagePrefetcher.shared.prefetchURLs(urls, each: { url, result in … }) { finished, failed, skipped in … }
/// ```
///
/// Thread safety: the tokens of the current prefetches are in `tokens`, one lock.
public final class DWWebImagePrefetcher: Sendable {
    /// The process-wide prefetcher, over ``DWWebImageManager/shared``.
    public static let shared = DWWebImagePrefetcher()

    /// The manager prefetches go through.
    public let manager: DWWebImageManager
    /// The priority prefetches ask for (default `.low`).
    public let priority: DWWebImagePriority
    private let tokens = DWLock<[UInt64: [DWWebImageToken]]>([:])
    private let batches = DWLock<UInt64>(0)

    /// A prefetcher over `manager`.
    public init(manager: DWWebImageManager = .shared, priority: DWWebImagePriority = .low) {
        self.manager = manager
        self.priority = priority
    }

    /// How many prefetch-only downloads run at once (the manager's ``DWWebImageManager/maxConcurrentPrefetches``).
    public var maxConcurrentPrefetches: Int {
        get { manager.maxConcurrentPrefetches }
        set { manager.maxConcurrentPrefetches = newValue }
    }

    /// Fetches `urls` into the cache.
    ///
    /// - Parameters:
    ///   - each: called once per URL (duplicates included) with its result, on the manager's callback queue.
    ///   - completion: called once, after every `each`, with the counts: `finished` = fetched from the network,
    ///     `failed` = errors (cancellation included), `skipped` = already cached.
    public func prefetchURLs(
        _ urls: [String],
        each: (@Sendable (String, Result<DWImage, DWWebImageError>) -> Void)? = nil,
        completion: (@Sendable (_ finished: Int, _ failed: Int, _ skipped: Int) -> Void)? = nil
    ) {
        let batch = batches.withLock { n -> UInt64 in
            n += 1
            return n
        }
        guard !urls.isEmpty else {
            if let completion { manager.callbackQueue.async { completion(0, 0, 0) } }
            return
        }
        let counts = DWLock((finished: 0, failed: 0, skipped: 0, pending: urls.count))
        var issued: [DWWebImageToken] = []
        tokens.withLock { $0[batch] = [] }
        for url in urls {
            let token = manager.downloadImage(withURL: url, options: [.prefetch, .priority(priority)]) {
                [tokens] result in
                each?(url, result)
                let done = counts.withLock { c -> (Int, Int, Int)? in
                    switch result {
                    case .success(let image) where image.source == .network || image.source == .revalidated:
                        c.finished += 1
                    case .success: c.skipped += 1
                    case .failure: c.failed += 1
                    }
                    c.pending -= 1
                    return c.pending == 0 ? (c.finished, c.failed, c.skipped) : nil
                }
                if let done {
                    tokens.withLock { _ = $0.removeValue(forKey: batch) }
                    completion?(done.0, done.1, done.2)
                }
            }
            issued.append(token)
        }
        tokens.withLock { all in
            if all[batch] != nil { all[batch] = issued }
        }
    }

    /// Cancels every prefetch still waiting or running (each gets 10007, counted as failed). Downloads that
    /// someone else also waits for go on for them.
    public func cancelPrefetching() {
        let all = tokens.withLock { t -> [DWWebImageToken] in
            defer { t.removeAll() }
            return t.values.flatMap { $0 }
        }
        for token in all { manager.cancel(token) }
    }
}
