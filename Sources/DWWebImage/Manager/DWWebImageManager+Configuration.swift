// DWWebImageManager.Configuration: transfer limits and decoding limits for one manager.
import Foundation

/// Decides whether a connection may be opened: `address` is the IP in network byte order (4 bytes for IPv4,
/// 16 for IPv6, mapped forms as they are), `port` the TCP port. See
/// ``DWWebImageManager/Configuration/connectionPolicy``.
public typealias DWConnectionPolicy = @Sendable (_ address: [UInt8], _ port: Int) -> Bool

extension DWWebImageManager {
    /// Limits and defaults for the transfers a manager starts.
    public struct Configuration: Sendable {
        /// Whole-request limit in seconds (libcurl's `CURLOPT_TIMEOUT_MS`); DW's 15 s. 0 = none.
        public var timeout: TimeInterval = 15
        /// Connection set-up limit in seconds.
        public var connectTimeout: TimeInterval = 10
        /// Stall detection: a transfer that receives less than 1 byte/s for this many seconds fails. 0 = off.
        public var stallTimeout: TimeInterval = 10
        /// Largest body accepted (bytes), checked against Content-Length and while streaming; nil = no limit.
        /// Default 200 MiB (Nuke's cap).
        public var maxBodySize: Int64? = 200 * 1024 * 1024
        /// Largest pixel count (width × height of one frame) accepted, checked from the header before an image is
        /// kept; default 64 megapixels (``DWImage/defaultMaxPixelCount``). The processing engine's own bound is
        /// `DWProcessingLimits.maxPixelCount`, with the same default; `dwfetch serve` sets both from `--max-pixels`.
        public var maxPixelCount: Int = DWImage.defaultMaxPixelCount
        /// Redirects followed at most.
        public var maxRedirects: Int = 10
        /// Headers sent with every request (per-request headers from options win).
        public var requestHeaders: [String: String] = [:]
        /// User-Agent: "DWWebImage/0.1 (libcurl/VERSION)", libcurl's version as its headers give it (no library is
        /// opened to make a configuration).
        public var userAgent: String = "DWWebImage/0.1 (\(CurlGlobal.version))"
        /// When to try again after a failed attempt (transport failures, 5xx, 408, 429; never other 4xx,
        /// cancellation or size limits). Default ImageX's `.max3s`: 3 retries, 3 s apart. Each retry resumes.
        public var retryPolicy: DWRetryPolicy = .max3s
        /// Retries after a failed attempt (``retryPolicy``'s `maxRetries`).
        public var retryCount: Int {
            get { retryPolicy.maxRetries }
            set { retryPolicy.maxRetries = max(0, newValue) }
        }
        /// Seconds between attempts (``retryPolicy``'s `interval`).
        public var retryDelay: TimeInterval {
            get { retryPolicy.interval }
            set { retryPolicy.interval = max(0, newValue) }
        }
        /// Minimum interval between progress calls, seconds (ImageX's 0.02 s).
        public var progressInterval: TimeInterval = 0.02
        /// How HTTPS servers are trusted (CA file or directory, pinned key, insecure) and the client certificate.
        public var tls = TLS()
        /// A forward proxy for every request, `http://host:port` (https goes through it with CONNECT), as
        /// `CURLOPT_PROXY`; "" = no proxy even if the environment names one. nil: libcurl's environment rules
        /// (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`).
        public var proxy: String?
        /// Hosts reached without the proxy: comma-separated names, domains, addresses or CIDRs, `*` = all
        /// (`CURLOPT_NOPROXY`); nil: none when ``proxy`` names a proxy (an explicit proxy is never bypassed because
        /// of the environment), else the `no_proxy` environment variable.
        public var noProxy: String?
        /// Asked for every connection a transfer is about to open — the first and each redirect's — with the IP
        /// address actually about to be connected (after DNS, so rebinding cannot slip past it). Refused: no
        /// socket is opened, nothing is retried, and the request fails with 10003 whose
        /// ``DWWebImageError/refusedAddress`` is set. nil (the default) allows every address.
        /// Called on the transfer thread: keep it quick.
        public var connectionPolicy: DWConnectionPolicy?
        /// Whether the original an image was made from (a request with processors) is kept in the memory cache
        /// beside the variant. Default true. An image proxy says false: its clients ask for variants, and a 2K
        /// source is ~25 times the bytes of its 512 px variant, so originals would fill the memory cache's cost
        /// limit and leave little room for the variants that are asked again; originals stay on disk (and, while
        /// their disk write is queued, among the cache's pending writes, where the next variant finds them).
        public var memoryCachesVariantSources = true
        /// Which originals of variants (requests with processors) fetched from the network are written to the disk
        /// cache: nil (the default) writes every one; a ``DWDiskAdmission`` writes one from its Nth fetch on, so a
        /// source asked for once costs no disk write (the variant is written either way). Asked once per download,
        /// on the thread that starts it; never for a revalidation (its original is on disk already).
        public var variantSourceAdmission: DWDiskAdmission?
        /// Bytes of a resumable body held in memory before it moves to a partial file in the cache (where a later
        /// attempt or process resumes it). Default 256 KiB. Retries within one download resume from memory either
        /// way. A server fetching sources over a fast network says more: each spilled body is written twice (the
        /// partial, then the cache entry) for a resume it rarely needs.
        public var partialSpillThreshold: Int = PartialBody.defaultSpillThreshold
        /// Where `s3://bucket/key` URLs are fetched and how they are signed; default from the `AWS_*` environment
        /// variables (``DWS3Configuration/fromEnvironment(_:endpoint:)``). The cache key of an s3 source is its
        /// s3:// URL. The endpoint is the operator's choice, not a request's: ``connectionPolicy`` does not apply
        /// to it, and s3 requests follow no redirects.
        public var s3 = DWS3Configuration.fromEnvironment()

        /// Changes every request before it is sent (an auth token fetched asynchronously, a signature), once per
        /// attempt, before a request's own ``DWWebImageOptions/requestModifier(_:)``. See ``DWRequestModifier``.
        public var requestModifier: DWRequestModifier?
        /// Follows, refuses or rewrites each redirect hop, before a request's own
        /// ``DWWebImageOptions/redirectHandler(_:)``. With one set the pipeline follows redirects itself (each hop
        /// also passes ``connectionPolicy``); nil: libcurl follows them. See ``DWRedirectHandler``.
        public var redirectHandler: DWRedirectHandler?
        /// Sees each response head before any body byte is kept, and may accept it, fail it (10004, never retried)
        /// or follow another URL instead (a redirect hop). With one set the pipeline follows redirects itself. Runs
        /// synchronously on the transfer thread. nil (default): accept all. See ``DWResponseModifier``.
        public var responseModifier: DWResponseModifier?

        /// The cache's tiers, read in order until one has the key (the tiers before it are then filled from it) and
        /// each written after a download (Nuke's `DataCache` beside its `ImageCache`, SDWebImage's
        /// `additionalCache`). nil (default): the manager's ``DWWebImageManager/cache``, memory then disk, as before.
        /// Stale entries of the built-in tiers are revalidated as the cache's own are (docs/cache.md, "Tiers"); a
        /// tier of an app's own keeps bytes alone, always fresh. Memory → disk → S3:
        ///
        /// ```swift
        /// configuration.cacheTiers = [
        ///     DWMemoryCacheTier(cache: c), DWDiskCacheTier(cache: c), DWS3CacheTier(location: l),
        /// ]
        /// ```
        ///
        /// With tiers, the manager's own memory and disk layers are neither read nor written except as tiers.
        public var cacheTiers: [any DWCacheTier]?
        /// Before each store into each tier: transforms or refuses (nil) the bytes (nil, the default: store as is).
        /// With ``cacheTiers`` nil, setting it makes the manager's cache two tiers, memory then disk. See
        /// ``DWWillCacheHandler``.
        public var willCache: DWWillCacheHandler?

        /// The tiers requests go through: ``cacheTiers``, else memory and disk of `cache` when ``willCache`` is set,
        /// else nil (the pipeline's own cache path).
        func tiers(of cache: DWWebImageCache) -> [any DWCacheTier]? {
            if let cacheTiers { return cacheTiers }
            return willCache == nil ? nil : [DWMemoryCacheTier(cache: cache), DWDiskCacheTier(cache: cache)]
        }

        /// Sources other than HTTP, asked in order whether they take a URL (before it is checked as http/https):
        /// by default files (`file://` URLs and absolute paths) and `data:` URLs. Insert an app's own (an
        /// in-memory store, `s3://`) or remove these (a server passing users' URLs through). See ``DWImageLoader``.
        public var loaders: [any DWImageLoader] = [DWFileLoader(), DWDataURLLoader()]

        /// The key a URL's image is cached and coalesced under (e.g. without signature and expiry query items);
        /// nil: the URL itself. A request's ``DWWebImageOptions/cacheKey(_:)`` wins. See ``DWCacheKeyFilter``.
        public var cacheKeyFilter: DWCacheKeyFilter?

        /// Negative cache: for this long after a download of a key failed (10000, 10003, 10004, 10005; never
        /// 10006, 10007, 10008 or an invalid URL), a request for it that would go to the network is answered with
        /// that failure (same code, status and message) on the callback queue, without a request; cache hits are
        /// still answered. 0 (default) = off: nothing is recorded or looked up. A success removes the entry;
        /// ``DWWebImageOptions/retryFailed`` sends the request anyway (SDWebImage's `retryFailed`).
        public var failedURLTTL: TimeInterval = 0

        /// ``failedURLTTL`` for a 404 or 410 (the origin says the image is gone, which a retry soon will not change):
        /// nil (default) uses ``failedURLTTL``. A server keeps these longer than transient failures.
        public var failedURLTTLForGone: TimeInterval?

        /// How long the failure `ending` is remembered (0: not at all).
        func failureTTL(for ending: Result<Void, DWWebImageError>) -> TimeInterval {
            guard case .failure(let error) = ending, error.httpStatus == 404 || error.httpStatus == 410 else {
                return failedURLTTL
            }
            return failedURLTTLForGone ?? failedURLTTL
        }

        /// Whether failures are remembered at all (else nothing is recorded or looked up).
        var remembersFailures: Bool { failedURLTTL > 0 || (failedURLTTLForGone ?? 0) > 0 }

        /// Token bucket over every request this manager sends (first attempts and retries; http(s) and `s3://`
        /// sources, not loaders): at most this many start per second on average, with ``requestBurst`` tokens when
        /// full. A download waiting for a token holds no download slot (a retry waits in its own). nil (default): no
        /// limit (Nuke's `RateLimiter`).
        public var requestsPerSecond: Double?
        /// The same, per `host:port` (as ``DWWebImageManager/maxConcurrentDownloadsPerHost`` counts hosts). nil
        /// (default): no limit.
        public var requestsPerSecondPerHost: Double?
        /// Tokens a full bucket holds: requests that may start at once after a quiet spell. Default 1.
        public var requestBurst: Int = 1

        /// The rate limits as the limiter takes them (a rate of 0 or less is no limit).
        var rateSettings: RequestRateLimiter.Settings {
            .init(
                overall: requestsPerSecond.flatMap { $0 > 0 ? $0 : nil },
                perHost: requestsPerSecondPerHost.flatMap { $0 > 0 ? $0 : nil }, burst: max(1, requestBurst))
        }

        /// The first of ``loaders`` that takes `url`.
        func loader(for url: String) -> (any DWImageLoader)? {
            loaders.first { $0.canLoad(url) }
        }

        /// The defaults above.
        public init() {}
    }
}
