// DWImageServer: `dwfetch serve` — imgproxy-style URLs answered through the pipeline, on Hummingbird 2.
import DWWebImage
import DWWebImageProcessing
import Foundation
import Logging

/// An image proxy over one ``DWWebImageManager``: it checks the URL (format, signature, allowed host), fetches the
/// source through the pipeline (coalescing, cache, resume, retries; every connection checked by
/// `DWAddressPolicy`), applies the URL's processors and answers with cache headers.
///
/// Two ways to serve: ``run(onListening:)`` runs a whole server (what `dwfetch serve` does), and
/// ``addRoutes(to:at:)`` mounts the same routes in an existing Hummingbird application. Requests are handled on
/// Hummingbird's event loops and Swift tasks; the manager delivers results on its own callback queue and transforms
/// run on the server's worker threads (``DWWorkerPool``), each checking this server's ``limits`` (never the
/// process-wide ones).
///
/// The work is split by job: routes and the access-log middleware in `Routing/`, the image answer in `Respond/`
/// (fetch, transform, headers), statuses and bodies in `HTTP/`, SIGTERM/SIGINT and draining in `Lifecycle/`.
public final class DWImageServer: Sendable {
    /// The settings it was made with.
    public let configuration: DWServeConfiguration
    /// The pipeline every source goes through.
    public let manager: DWWebImageManager
    /// What one transform may cost (pixels, frames, bytes), from the configuration; passed to every transform of this
    /// server, so two servers in one process keep their own limits.
    public let limits: DWProcessingLimits
    let metrics: DWServerMetrics
    /// Response bodies and ETags of the images served, made once per image.
    let served = DWServedBytes()
    /// Recent image targets' parsed jobs (URL, checks, variant plan), so a hot URL is parsed once.
    let plans = DWPlanMemo()
    let logger: Logger
    /// `--workers` / `--queue`: the threads every transform (and `/info`'s work) runs on, and their queue.
    let pool: DWWorkerPool
    /// `/info` answers being made, by cache key: identical concurrent requests share one.
    let infoFlights = DWCoalescer<Data>()
    /// Variants shared with other instances (``DWServeConfiguration/resultStorage``), or nil.
    let resultStorage: DWResultStorage?
    /// The name the pipeline loads the fallback image under (``DWFallbackLoader``); nil without one.
    let fallbackSource: String?
    /// When each source was last known current (`--revalidate-after`).
    let revalidations = DWRevalidations()
    /// The revalidations running, by source: concurrent requests share one conditional GET.
    let revalidationFlights = DWCoalescer<Bool>()
    /// Each client's budget of cold requests (`--cold-rate`), or nil without one.
    let coldBudget: DWColdBudget?
    /// The sources served under each `tag:`, for `POST /purge` with `tags` (``DWTagIndex``).
    let tagIndex = DWTagIndex()
    /// `--encode-budget`: the expected encode costs and the put-off encodes (``DWEncodeBudget``), or nil.
    let encodeBudget: DWEncodeBudget?

    /// A server with its own cache (``DWServeConfiguration/cacheDirectory``) and manager. Starts libvips now (about
    /// 0.3 s) rather than in the first request.
    public init(configuration: DWServeConfiguration) {
        var configuration = configuration
        configuration.imgproxy.sources.originNames.formUnion(configuration.origins.map(\.name))
        self.configuration = configuration
        metrics = DWServerMetrics(imgproxyNamespace: configuration.prometheusNamespace, workers: configuration.workers)
        var logger = Logger(label: "dwfetch.serve", metadataProvider: DWRequestID.metadataProvider)
        logger.logLevel = configuration.logLevel
        self.logger = logger
        for warning in Self.startupWarnings(configuration) { logger.warning("\(warning)") }

        let cache = DWWebImageCache(
            configuration: Self.cacheConfiguration(configuration), notificationCenter: NotificationCenter())
        DWCachePolicyMarker.adopt(cache, fingerprint: DWCachePolicyMarker.fingerprint(of: configuration))
        let pool = DWWorkerPool(workers: configuration.workers, queue: configuration.queue) { [metrics] in
            metrics.imgproxy.queued(in: $0)
        }
        metrics.observeWorkers { pool.load }
        self.pool = pool
        var pipeline = DWWebImageManager.Configuration()
        pipeline.proxy = configuration.proxy ?? ""  // "" = none: http_proxy & co. in the environment are ignored
        pipeline.timeout = configuration.timeout
        pipeline.maxBodySize = configuration.maxSize
        pipeline.maxPixelCount = configuration.maxPixels
        pipeline.maxRedirects = configuration.maxRedirects
        pipeline.failedURLTTL = configuration.failures.negativeTTL
        pipeline.failedURLTTLForGone = configuration.failures.negativeTTLGone
        if let userAgent = configuration.userAgent { pipeline.userAgent = userAgent }
        pipeline.tls.insecure = configuration.ignoresSSLVerification
        // A proxy answers a waiting client: one quick retry, not DW's three 3 s apart.
        pipeline.retryPolicy = DWRetryPolicy(maxRetries: 1, interval: 0.25)
        // The memory cache is for variants (what clients ask again); originals are read back from disk, and while
        // an original's disk write is still queued the pipeline finds it among the pending writes (no second
        // origin fetch: FleetTests). Kept in memory, 650 KB originals put peak RSS above thumbor's (bench/serve/cold).
        pipeline.memoryCachesVariantSources = false
        // A source up to 8 MiB stays in memory while it downloads: spilled to a partial file, each 650 KB original
        // was written to disk twice (the partial, then the cache entry), two more files created and removed a
        // request, for a resume across restarts a proxy hardly needs (a retry still resumes from memory).
        pipeline.partialSpillThreshold = 8 * 1024 * 1024
        if configuration.sourceMinUses > 1 && !(configuration.usesLastModified || configuration.passesCacheControl) {
            pipeline.variantSourceAdmission = DWDiskAdmission(minUses: configuration.sourceMinUses)
        }
        let policy = DWAddressPolicy(allowedNetworks: configuration.allowedNetworks)
        pipeline.connectionPolicy = { address, _ in policy.allows(address) }
        pipeline.redirectHandler = DWRedirectGuard.handler(allowedHosts: configuration.allowedHosts)
        pipeline.s3 = configuration.s3
        // Only the server's own loaders: `local://` under --local-root and the fallback image; never the library's
        // file:// and data: loaders, whatever DWProxyURL lets through in future.
        let fallback = configuration.imgproxy.fallbackImage.map(DWFallbackLoader.init(image:))
        fallbackSource = fallback?.source
        pipeline.loaders = [DWLocalFileLoader(root: configuration.imgproxy.localRoot)] + (fallback.map { [$0] } ?? [])
        if !configuration.origins.isEmpty { pipeline.loaders.append(Self.originLoader(configuration, pipeline, cache)) }
        manager = DWWebImageManager(cache: cache, configuration: pipeline, notificationCenter: NotificationCenter())
        manager.maxConcurrentDownloads = configuration.jobs
        manager.maxConcurrentDownloadsPerHost = configuration.maxPerHost ?? max(1, configuration.jobs / 2)
        manager.metricsHandler = { [metrics] in metrics.pipeline($0) }
        manager.transformExecutor = pool  // transforms on the server's worker threads, admitted there
        // The origin's headers are read back from the original's disk entry: written before the first answer.
        manager.writesCacheInCallbacks = configuration.usesLastModified || configuration.passesCacheControl
        limits = Self.processingLimits(configuration)
        DWImageProcessing.encoderSettings = configuration.imgproxy.encoder  // process-wide: the savers read it
        resultStorage = configuration.resultStorage.map { [metrics, logger] in
            DWResultStorage(
                client: DWS3Client(
                    configuration: configuration.s3, timeout: 5,
                    proxy: configuration.proxy ?? ""),
                prefix: $0, policy: DWCachePolicyMarker.fingerprint(of: configuration),
                metrics: metrics, logger: logger)
        }
        coldBudget = configuration.clientLimits.coldRate.map {
            DWColdBudget(
                rate: $0, burst: configuration.clientLimits.coldBurst,
                maxClients: configuration.clientLimits.maxClients)
        }
        encodeBudget = configuration.encodeBudget.budget.map { [metrics] in
            DWEncodeBudget(budget: $0, settings: configuration.encodeBudget, registry: metrics.registry)
        }
        _ = DWImageProcessing.libvipsVersion  // starts libvips now, not in the first request (~0.3 s)
        if let problem = DWSVGRenderer.helperProblem { logger.warning("SVG sources will be refused (422): \(problem)") }
    }

    /// The limits the engine checks from a source's header before it decodes anything: the same as the pipeline's.
    static func processingLimits(_ configuration: DWServeConfiguration) -> DWProcessingLimits {
        var limits = DWProcessingLimits()
        limits.maxPixelCount = configuration.maxPixels
        limits.maxFrameCount = configuration.maxFrames
        limits.maxAnimationFramePixelCount = configuration.maxAnimationFramePixels
        limits.maxByteCount = Int(clamping: configuration.maxSize)
        // By budget (no --max-animation-frames): every frame, unless the plan's budget takes the first alone.
        limits.maxProcessedFrames = configuration.resultLimits.maxAnimationFrames ?? Int.max
        // an SVG not enlarged renders within the result limit
        limits.maxVectorPixels = configuration.resultLimits.maxPixels
        limits.renderBudget = configuration.renderBudget
        limits.sourceFormats = configuration.sourceFormats ?? DWServeConfiguration.defaultSourceFormats
        return limits
    }

    /// What ``init(configuration:)`` logs at warning level for `configuration`: today, that it checks no signature
    /// (no ``DWServeConfiguration/signers``, as in `DWServeConfiguration()`), whatever address it listens on.
    public static func startupWarnings(_ configuration: DWServeConfiguration) -> [String] {
        guard configuration.signers.isEmpty, !configuration.refusesUnsignedImgproxy else { return [] }
        return [
            "no signature key: any signature is accepted (insecure); whatever can reach "
                + "\(configuration.host):\(configuration.port), a reverse proxy on this host included, can ask for any "
                + "transform of any allowed source: give a key (--key, --key-file, IMGPROXY_KEY) unless only trusted "
                + "clients can connect"
        ]
    }
}
