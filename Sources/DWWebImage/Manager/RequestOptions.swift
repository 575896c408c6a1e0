// RequestOptions: one request's DWWebImageOptions, interpreted once.
import Foundation

/// What one request's ``DWWebImageOptions`` mean, worked out once when the request is made (against the cache's
/// policy at that moment) and used everywhere after: lookup, coalescing, scheduling, the transfer, the store.
struct RequestOptions: Sendable {
    /// Cache layers read before going to the network (none with `.noCache` or `.refreshCached`).
    let readPolicy: DWWebImageCachePolicy
    /// Cache layers the result is written to (none with `.noCache`, memory only with `.cacheMemoryOnly`).
    let storePolicy: DWWebImageCachePolicy
    /// A miss is 10006 instead of a download.
    let fromCacheOnly: Bool
    /// The priority the caller asked for (its token can change it later).
    let priority: DWWebImagePriority
    /// The prefetcher's request (counts against the prefetch cap until someone else asks).
    let isPrefetch: Bool
    /// Extra request headers.
    let headers: [String: String]
    /// Processors to apply to the original, in order; empty for the original itself.
    let processors: [any DWImageProcessor]
    /// The processors' joined identifiers ("" for the original).
    let variant: String
    /// The request's own modifier and redirect handler (after the manager's).
    let requestModifier: DWRequestModifier?
    let redirectHandler: DWRedirectHandler?
    /// The request's own cache key (``DWWebImageOptions/cacheKey(_:)``).
    let explicitKey: String?
    /// Goes to the network even when the key failed recently (``DWWebImageOptions/retryFailed``).
    let retriesFailed: Bool
    /// Revalidates (or refetches) the cached original even when fresh (``DWWebImageOptions/revalidate``); with
    /// ``fromCacheOnly``, takes it as it is and stores nothing.
    let revalidates: Bool
    /// The cache tiers asked before this request went to the network (``DWDownloadMetrics/tierLookups``).
    var tierLookups: [DWCacheTierLookup] = []

    init(_ options: DWWebImageOptions, cachePolicy: DWWebImageCachePolicy) {
        let noCache = options.contains(.noCache)
        revalidates = options.contains(.revalidate)
        var read = noCache || options.contains(.refreshCached) ? [] : cachePolicy
        if revalidates { read.remove(.memory) }  // the disk entry holds the validators
        readPolicy = read
        var store = noCache ? [] : cachePolicy
        if options.contains(.cacheMemoryOnly) { store.remove(.disk) }
        if revalidates && options.contains(.fromCacheOnly) { store = [] }  // a stale copy: kept nowhere
        storePolicy = store
        fromCacheOnly = options.contains(.fromCacheOnly)
        priority = options.priority
        isPrefetch = options.contains(.prefetch)
        headers = options.requestHeaders
        processors = options.processors
        variant = DWImageProcessors.identifier(of: options.processors)
        requestModifier = options.requestModifier
        redirectHandler = options.redirectHandler
        explicitKey = options.cacheKey
        retriesFailed = options.contains(.retryFailed)
    }

    /// Whether processors turn the original into a variant.
    var isVariant: Bool { !processors.isEmpty }

    /// The key the original is cached and coalesced under: ``DWWebImageOptions/cacheKey(_:)``, else the URL
    /// through the manager's filter, else the URL.
    func originalKey(url: String, filter: DWCacheKeyFilter?) -> String {
        explicitKey ?? filter?.key(for: url) ?? url
    }

    /// The cache key of what this request delivers: `base` (``originalKey(url:filter:)``), or
    /// ``DWImageProcessors/cacheKey(url:processors:)`` over `base` for a variant (length-prefixed: unambiguous).
    func cacheKey(base: String) -> String {
        isVariant ? DWImageProcessors.cacheKey(url: base, processors: processors) : base
    }
}
