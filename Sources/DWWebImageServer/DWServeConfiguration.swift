// DWServeConfiguration: everything `dwfetch serve` is told on its command line, as one value.
import DWWebImage
import Foundation
import Logging

/// How a ``DWImageServer`` listens, checks, fetches and answers.
public struct DWServeConfiguration: Sendable {
    /// Address to listen on (default 127.0.0.1).
    public var host = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (the chosen port is printed at start-up).
    public var port = 8080
    /// Source hosts allowed (exact, case-insensitive; "*.example.com" also allows subdomains); empty = any host.
    public var allowedHosts: [String] = []
    /// Networks the SSRF guard lets through (e.g. 127.0.0.1/32 for a local origin).
    public var allowedNetworks: [DWCIDR] = []
    /// Cache root; nil = the library's default ($XDG_CACHE_HOME/dwwebimage, else ~/.cache/dwwebimage), in which
    /// serve uses its own space (``cacheSpace``).
    public var cacheDirectory: URL?
    /// Largest source body accepted, bytes (default 50 MiB); more is 422.
    public var maxSize: Int64 = 50 * 1024 * 1024
    /// Largest source pixel count (width × height) accepted (default 50 MP); more is 422, found from the header.
    public var maxPixels = 50_000_000
    /// Most animation frames accepted in a source (default 1000); more is 422, counted from the header.
    public var maxFrames = 1000
    /// Largest frame (width × height) of an animated source, when stricter than ``maxPixels``; more is 422, found
    /// from the header (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`). nil (default): ``maxPixels``.
    public var maxAnimationFramePixels: Int?
    /// `Cache-Control: public, max-age=N` of images (default one year).
    public var maxAge = 31_536_000
    /// `--auto-format`: imgproxy's `IMGPROXY_AUTO_AVIF` and `IMGPROXY_AUTO_WEBP` together — AVIF for a still result,
    /// else WebP, when the request's Accept allows and the URL names no format; adds `Vary: Accept` (see
    /// ``DWImgproxySettings/acceptFormats`` for each format on its own, and JPEG XL and ENFORCE).
    public var autoFormat = false
    /// Concurrent origin downloads (default 16).
    public var jobs = 16
    /// Whole-request limit for an origin fetch, seconds (default 15); running out is 504.
    public var timeout: TimeInterval = 15
    /// Bytes the memory cache of originals and variants may hold (default 128 MiB).
    public var memoryCacheBytes = 128 * 1024 * 1024
    /// Presets, per-format qualities, watermark, local files, fallback image.
    public var imgproxy = DWImgproxySettings()
    /// Accept `s3://bucket/key` sources (imgproxy's `IMGPROXY_USE_S3`); off, they are refused with 403.
    public var allowS3 = false
    /// The S3 store of `s3://` sources and result storage (default: the `AWS_*` environment, AWS's endpoint).
    public var s3 = DWS3Configuration.fromEnvironment()
    /// Where variants are shared between instances (`--result-storage s3://bucket/prefix`); nil = not shared.
    public var resultStorage: DWS3Location?
    /// Seconds a shutdown (SIGTERM, SIGINT) waits for accepted responses to be written in full (default 30); what is
    /// still being written then is cut, logged and counted, and the server exits 0 all the same.
    public var shutdownTimeout: Double = 30
    /// Access log: one line per request at `.info`; the default `.warning` logs nothing per request.
    public var logLevel: Logger.Level = .warning
    /// How log lines are written (`--log-format`, imgproxy's `IMGPROXY_LOG_FORMAT`): pretty text on stderr (default),
    /// or logfmt or JSON lines on stdout, as imgproxy writes them. The process's logging system is bootstrapped with
    /// ``DWLogFormat/makeHandler(label:metadataProvider:)`` by `dwfetch serve`; an embedder bootstraps its own.
    public var logFormat: DWLogFormat = .pretty
    /// The prefix of imgproxy's metric names on `/metrics` (`--prometheus-namespace`,
    /// `IMGPROXY_PROMETHEUS_NAMESPACE`); nil: none, as imgproxy's default (`requests_total`, …).
    public var prometheusNamespace: String?
    /// `Access-Control-Allow-Origin` of every answer, with `Access-Control-Allow-Methods: GET, OPTIONS`, and a 200 to
    /// `OPTIONS` preflights (`--allow-origin`, imgproxy's `IMGPROXY_ALLOW_ORIGIN`); nil (default): no CORS headers.
    public var allowOrigin: String?
    /// The status of a request refused because every worker is busy and the queue is full (`--queue-full-status`):
    /// 503 (default) or 429, as imgproxy answers when `IMGPROXY_REQUESTS_QUEUE_SIZE` is set.
    public var queueFullStatus = 503
    /// `Link: <source>; rel="canonical"` on images of http(s) sources (`--set-canonical-header`, imgproxy's
    /// `IMGPROXY_SET_CANONICAL_HEADER`).
    public var setsCanonicalHeader = false
    /// A strong `ETag` on image answers and a 304 to a matching `If-None-Match` (on by default; off with
    /// `--no-etag`, imgproxy's `IMGPROXY_USE_ETAG=false`).
    public var usesETag = true
    /// The source's `Last-Modified` (as the origin sent it, kept with the original in the disk cache) on image
    /// answers, and a 304 to an `If-Modified-Since` not older than it (`--use-last-modified`, imgproxy's
    /// `IMGPROXY_USE_LAST_MODIFIED`).
    public var usesLastModified = false
    /// The origin's `Cache-Control` (kept with the original in the disk cache) on image answers instead of
    /// `public, max-age=…`, when the origin sent one (`--cache-control-passthrough`, imgproxy's
    /// `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`); a fallback image and a thumbor `max_age` keep serve's own.
    public var passesCacheControl = false
    /// The `User-Agent` of origin fetches (`--user-agent`, `IMGPROXY_USER_AGENT`); nil: the library's.
    public var userAgent: String?
    /// Redirects an origin fetch follows (`--max-redirects`, `IMGPROXY_MAX_REDIRECTS`; default 10, as imgproxy).
    public var maxRedirects = 10
    /// Skip verifying origins' TLS certificates (`--ignore-ssl-verification`, `IMGPROXY_IGNORE_SSL_VERIFICATION`).
    /// Anyone on the path can then change the images; it is part of the cache's fetch policy.
    public var ignoresSSLVerification = false
    /// A span for each request (continuing a W3C `traceparent`), with children for the image's fetch and transform
    /// and for writing the response, through swift-distributed-tracing's `InstrumentationSystem` (`--open-telemetry`,
    /// imgproxy's `IMGPROXY_OPEN_TELEMETRY_ENABLE`; `dwfetch serve` bootstraps an OTLP exporter, an embedder its own
    /// tracer). Off (default): no middleware and no span is made.
    public var tracing = false
    /// Another path `/health` answers at (`--health-check-path`, imgproxy's `IMGPROXY_HEALTH_CHECK_PATH`).
    public var healthCheckPath: String?
    /// The path every route is served under (`--path-prefix`, imgproxy's `IMGPROXY_PATH_PREFIX`); "": the root.
    public var pathPrefix = ""
    /// The negative cache and the fallback's rules (``DWFailurePolicy``).
    public var failures = DWFailurePolicy()
    /// Per-client limits: the cold budget, the Referer guard, the `POST /info` batch size (``DWClientLimits``).
    public var clientLimits = DWClientLimits()
    /// Every URL as if it had `nl:1` (``DWTransform/neverLarger``; `--never-larger`).
    public var neverLarger = false
    /// `--origins FILE`: the named origins sources address as `NAME://PATH` (``DWNamedOrigin``); the server puts
    /// their names into ``DWImgproxySettings/sources`` itself.
    public var origins: [DWNamedOrigin] = []
    /// Seconds after which a source's original is checked with its origin (one conditional GET) on the next request
    /// for it or any variant; a changed source drops its variants here and in result storage (`--revalidate-after`).
    /// nil (default): an original is current until `--cache-max-age`.
    public var revalidateAfter: TimeInterval?
    /// `--encode-budget`: a negotiated AVIF or JPEG XL expected to take longer is answered in the next format at once
    /// and made in the background (default: none).
    public var encodeBudget = DWEncodeBudgetSettings()

    /// Cap glibc's malloc arenas at one and give free heap pages back every 5 s while transforms run, so RSS stays
    /// flat (default on; `DWSERVE_MALLOC_TUNING=0` in the environment turns it off, for measuring what it does).
    public var tunesMalloc = DWMallocTuning.enabledByEnvironment

    // MARK: Hardening (docs/security.md)

    /// Result limits checked from the header before any decode (`--max-result-dimension`, `--max-result-pixels`,
    /// `--max-animation-frames`).
    public var resultLimits = DWResultLimits()
    /// CPU seconds one SVG rasterisation may use (`--render-budget`, default 5); then 422
    /// (``DWProcessingLimits/renderBudget``).
    public var renderBudget: TimeInterval = 5
    /// The source formats (sniffed from the bytes) that are processed or measured (`--source-formats`); nil
    /// (default): ``defaultSourceFormats``. Any other is 422 before a decoder sees it.
    public var sourceFormats: Set<DWImageFormat>?
    /// What serve reads when ``sourceFormats`` is nil: every format the engine reads (registered codecs' too) but
    /// PNM, JPEG 2000 and FITS, which libvips reads with loaders it counts as untrusted and imgproxy does not read
    /// at all (name them in `--source-formats` to take them).
    public static var defaultSourceFormats: Set<DWImageFormat> {
        Set(DWImageFormat.allCases).subtracting([.unknown, .pnm, .jp2, .fits])
    }
    /// Transforms (and `/info` measurements) run at once, on as many dedicated threads (`--workers`, default: the
    /// machine's cores); downloads and cache hits take none.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Transforms waiting for a worker at most (`--queue`, default 64); beyond it, 503 with `Retry-After` at once.
    public var queue = 64
    /// Seconds one image request may take, waiting included (`--request-timeout`, default 30); then 504 and the
    /// request's work is cancelled.
    public var requestTimeout: TimeInterval = 30
    /// Concurrent origin downloads per host (`--max-per-host`); nil = half of ``jobs`` (at least 1).
    public var maxPerHost: Int?
    /// Verifies URL signatures: any pair valid (key rotation); empty accepts any signature segment ("insecure"),
    /// unless ``refusesUnsignedImgproxy``.
    public var signers: [DWURLSigner] = []
    /// With no ``signers``, refuse imgproxy's image and `/info` URLs (403) instead of accepting any signature: a
    /// thumbor-only deployment (`--thumbor-key` without `--key`) on a public interface. Off by default.
    public var refusesUnsignedImgproxy = false
    /// Signature segments accepted as they are, without a MAC check, when ``signers`` are set (`--trusted-signature`,
    /// imgproxy's `IMGPROXY_TRUSTED_SIGNATURES`): for URLs signed once by hand and handed out.
    public var trustedSignatures: Set<String> = []
    /// The `Authorization: Bearer` token every image and `/info` request must carry (`--secret-file`, imgproxy's
    /// `IMGPROXY_SECRET`); others get 403. nil (default): no token asked for. `/health` never asks.
    public var secret: DWBearerSecret?
    /// Verifies `/info` signatures (`--info-key`/`--info-salt`): nil (default) = ``signers``, as imgproxy Pro signs
    /// `/info` with the image key; set, `/info` URLs are signed with these only (and image URLs never with them), so
    /// an `/info` URL's signature cannot fetch the image. Empty = any `/info` signature accepted.
    public var infoSigners: [DWURLSigner]?
    /// thumbor's URL dialect beside imgproxy's (`--thumbor-key`, `--thumbor-allow-unsafe`, …; docs/thumbor.md): off
    /// by default.
    public var thumbor = DWThumborSettings()
    /// Serve `/info/…` (default); false (`--no-info`): 404.
    public var infoEnabled = true
    /// The forward proxy for origin fetches (`--proxy`); nil = none, whatever the environment says.
    public var proxy: String?
    /// The cache space under ``cacheDirectory`` (default `serve`: never the CLI's).
    public var cacheSpace = "serve"
    /// Disk cache budget of serve's space in bytes (`--cache-limit`, default 1 GiB).
    public var cacheLimit: Int64 = 1024 * 1024 * 1024
    /// Keep originals and variants in serve's disk cache space (default). False (`--no-disk-cache`): the memory cache
    /// only — nothing is read from or written to disk, and a source not in memory is fetched again for each new
    /// variant (how thumbor and imgproxy run without result storage).
    public var diskCache = true
    /// Fetches of a source from its origin, for variants, before its original is written to the disk cache
    /// (`--source-min-uses`, default 1: every original; nginx's `proxy_cache_min_uses`). 2 writes a source the
    /// second time it is fetched among the last 32,768 to 65,536 sources (``DWDiskAdmission``): a source asked for once
    /// costs no disk write, one asked for again one more origin fetch. The variants are written either way.
    /// Ignored (every original written) with ``usesLastModified`` or ``passesCacheControl``, which read the origin's
    /// headers back from the original's entry (`dwfetch serve` refuses the combination).
    public var sourceMinUses = 1
    /// Age after which cached files are removed, seconds (`--cache-max-age`, default 7 days).
    public var cacheMaxAge: TimeInterval = 7 * 24 * 3600
    /// Seconds a client may take to send a request's head (`--header-timeout`, default 10); then the connection closes.
    public var headerTimeout: TimeInterval = 10
    /// Seconds an idle keep-alive connection is kept between requests (`--idle-timeout`, default 10).
    public var idleTimeout: TimeInterval = 10
    /// Client connections open at once (`--max-connections`, default 1024); more are closed on accept.
    public var maxConnections = 1024
    /// Seconds a connection's pending response writes may go without progress (`--write-timeout`, default 10,
    /// imgproxy's `IMGPROXY_WRITE_RESPONSE_TIMEOUT`); then it is closed: a client that does not read its response.
    public var writeTimeout: TimeInterval = 10
    /// Connections open at once from one client address (`--max-connections-per-client`); more are closed at once.
    /// nil: a quarter of ``maxConnections``, at least 2 (``connectionsPerClient``).
    public var maxConnectionsPerClient: Int?
    /// ``maxConnectionsPerClient``, or its default from ``maxConnections``.
    public var connectionsPerClient: Int { maxConnectionsPerClient ?? max(2, maxConnections / 4) }
    /// Where `/metrics` is served (`--metrics-bind HOST:PORT`); nil = nowhere (the public port answers 404).
    public var metricsBind: (host: String, port: Int)?
    /// Strip EXIF, XMP and IPTC from every output, the no-options case included (re-encoded); imgproxy's default.
    public var stripMetadata = true

    /// The defaults above.
    public init() {}
}
