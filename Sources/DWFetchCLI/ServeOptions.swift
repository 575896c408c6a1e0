// ServeOptions: `dwfetch serve`'s flags — THE one place they are declared. Every dwfetch executable parses them (so
// `dwfetch serve --help` needs no server); dwfetch-serve maps them onto DWServeConfiguration in
// Sources/DWFetchServe/ServeConfiguration+Options.swift (a new flag: declare it here, map it there).
import ArgumentParser
import DWWebImage
import Foundation

/// `dwfetch serve [--host H] [--port N] [--key HEX --salt HEX] ...`, a subcommand of ``DWFetch``. Parsed on the main
/// thread; run by dwfetch-serve.
package struct ServeOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "serve",
        _superCommandName: "dwfetch",  // parsed on its own (see DWFetchMain.parse), its usage reads `dwfetch serve`
        abstract: "Serve images through the pipeline at imgproxy-style URLs.",
        discussion: """
            GET /{signature}/{options}/{base64url source}[.ext]  or  /{signature}/{options}/plain/{source}[@ext]
            options: every processing option of imgproxy's open-source edition (docs/serving.md);
            GET /info/{signature}/{info options}/{source}: the source's facts as JSON (imgproxy Pro's shape)
            GET /health; GET /metrics (Prometheus) only on --metrics-bind. SIGTERM or SIGINT: stop accepting, write
            every accepted response in full (at most --shutdown-timeout seconds), exit 0; a second signal exits at once
            (143 or 130). Security defaults (limits, keys, timeouts): docs/security.md.
            Sources on loopback, private, link-local, CGNAT, ULA, multicast or IPv4-mapped addresses are refused (403)
            unless inside an --allow-network CIDR; the check is on the address actually connected, redirects included.

            imgproxy's environment, read at start (a flag on the command line wins; IMGPROXY_KEY and IMGPROXY_SALT take
            comma lists; a variable serve cannot honour is a start-up error naming it, an unknown one a warning):
            """ + "\n" + ServeEnvironment.helpLines.joined(separator: "\n"))

    /// Every flag at its default.
    package init() {}

    @Option(help: "Address to listen on.") package var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 = any free port; the port is printed on stdout).") package var port = 8080
    @Option(
        name: .customLong("allow-host"),
        help: ArgumentHelp(
            "Only fetch from this host (repeatable; *.example.com for subdomains).", valueName: "HOST"))
    package var allowHosts: [String] = []
    @Option(
        name: .customLong("allow-network"),
        help: ArgumentHelp(
            "Let the SSRF guard connect inside this network (repeatable), e.g. 127.0.0.1/32.", valueName: "CIDR"))
    package var allowNetworks: [String] = []
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Cache root.", valueName: "DIR")) package var cacheDir:
        String?
    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp(
            "Largest source body (bytes, or with a K, M or G suffix as in dwfetch --max-size).", valueName: "BYTES"))
    package var maxSize = ByteCount(bytes: 50 * 1024 * 1024)
    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("Largest source pixel count.", valueName: "N"))
    package var maxPixels = 50_000_000
    @Option(name: .customLong("max-frames"), help: ArgumentHelp("Most frames in a source.", valueName: "N"))
    package var maxFrames = 1000
    @Option(
        name: .customLong("max-animation-frame-pixels"),
        help: ArgumentHelp(
            "Largest frame pixel count of an animated source (default: --max-pixels).", valueName: "N"))
    package var maxAnimationFramePixels: Int?
    @Option(name: .customLong("max-age"), help: ArgumentHelp("Cache-Control max-age of images.", valueName: "SEC"))
    package var maxAge = 31_536_000
    @Flag(
        name: .customLong("auto-format"),
        help:
            "--auto-avif and --auto-webp: AVIF (still results) or WebP when Accept allows and the URL names no format.")
    package var autoFormat = false
    @Option(name: [.short, .customLong("jobs")], help: ArgumentHelp("Concurrent origin downloads.", valueName: "N"))
    package var jobs = 16
    @Option(help: ArgumentHelp("Origin fetch timeout (504 when it runs out).", valueName: "SEC")) package var timeout:
        Double = 15
    @Option(
        name: .customLong("memory-cache"),
        help: ArgumentHelp(
            "Memory cache of originals and variants, MiB (the disk cache holds the rest).", valueName: "MIB"))
    package var memoryCache = 128
    @Flag(
        name: .customLong("allow-s3"),
        help: "Accept s3://bucket/key sources (imgproxy's IMGPROXY_USE_S3); AWS_* credentials.")
    package var allowS3 = false
    @Option(
        name: .customLong("s3-endpoint"),
        help: ArgumentHelp(
            "S3-compatible endpoint, path-style (default: AWS's regional one for AWS_REGION).", valueName: "URL"))
    package var s3Endpoint: String?
    @Option(
        name: .customLong("result-storage"),
        help: ArgumentHelp(
            "Share variants between instances in this bucket and prefix (looked up before, written after each "
                + "transform).",
            valueName: "s3://BUCKET/PREFIX"))
    package var resultStorage: String?
    @Option(
        name: .customLong("shutdown-timeout"),
        help: ArgumentHelp(
            "On SIGTERM/SIGINT, wait this long for responses in flight to be written in full.", valueName: "SEC"))
    package var shutdownTimeout: Double = 30
    @Flag(name: [.short, .long], help: "One access-log line per request on stderr.") package var verbose = false
    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp(
            "pretty (text on stderr), structured (logfmt) or json (one object a line), the last two on stdout.",
            valueName: "FORMAT")) package var logFormat = "pretty"
    @Option(
        name: .customLong("prometheus-namespace"),
        help: ArgumentHelp(
            "Prefix of imgproxy's metric names on /metrics (requests_total, …; none by default).", valueName: "NAME"))
    package var prometheusNamespace: String?
    @Option(
        name: .customLong("allow-origin"),
        help: ArgumentHelp(
            "Access-Control-Allow-Origin of every answer, and a 200 to OPTIONS preflights (CORS).", valueName: "ORIGIN")
    )
    package var allowOrigin: String?
    @Option(
        name: .customLong("queue-full-status"),
        help: ArgumentHelp(
            "Status when every worker is busy and the queue is full: 503, or 429 as imgproxy.", valueName: "CODE"))
    package var queueFullStatus = 503
    @Flag(
        name: .customLong("set-canonical-header"),
        help: "Link: <source>; rel=\"canonical\" on images of http(s) sources.")
    package var setCanonicalHeader = false
    @Flag(name: .customLong("no-etag"), help: "Images without an ETag; If-None-Match is not answered with 304.")
    package var noETag = false
    @Flag(
        name: .customLong("use-last-modified"),
        help: "The source's Last-Modified on images; 304 to an If-Modified-Since not older.")
    package var useLastModified = false
    @Flag(
        name: .customLong("cache-control-passthrough"),
        help: "The origin's Cache-Control on images instead of serve's max-age, when it sent one.")
    package var cacheControlPassthrough = false
    @Option(name: .customLong("user-agent"), help: ArgumentHelp("User-Agent of origin fetches.", valueName: "UA"))
    package var userAgent: String?
    @Option(
        name: .customLong("max-redirects"), help: ArgumentHelp("Redirects an origin fetch follows.", valueName: "N"))
    package var maxRedirects = 10
    @Flag(
        name: .customLong("ignore-ssl-verification"),
        help: "Do not verify origins' TLS certificates (anyone on the path can change the images).")
    package var ignoreSSLVerification = false
    @Option(
        name: .customLong("health-check-path"),
        help: ArgumentHelp(
            "Another path that answers as /health does (e.g. /healthz).", valueName: "PATH"))
    package var healthCheckPath: String?
    @Option(
        name: .customLong("path-prefix"),
        help: ArgumentHelp(
            "Serve every route under this path (e.g. /img: /img/health, /img/{signature}/…); others are 404.",
            valueName: "PATH"))
    package var pathPrefix: String?
    @Flag(
        name: .customLong("open-telemetry"),
        help: ArgumentHelp(
            "Send a trace of each request over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, …; W3C "
                + "traceparent continued)."))
    package var openTelemetry = false
    @Option(
        name: .customLong("open-telemetry-endpoint"),
        help: ArgumentHelp(
            "The OTLP/HTTP collector (implies --open-telemetry; default OTEL_EXPORTER_OTLP_ENDPOINT, else "
                + "http://localhost:4318).", valueName: "URL"))
    package var openTelemetryEndpoint: String?
    @OptionGroup(title: "imgproxy compatibility") package var imgproxy: ServeImgproxyOptions
    /// thumbor's URL dialect beside imgproxy's (docs/thumbor.md).
    @OptionGroup(title: "thumbor dialect") package var thumbor: ServeThumborOptions
    /// Keys, result limits, bounded work, fetch hygiene, connections (docs/security.md).
    @OptionGroup(title: "Security") package var security: ServeSecurityOptions
    @OptionGroup(title: "Failed sources and answer size") package var failures: ServeFailureOptions
    /// `--origins FILE` (docs/serving.md, "Named origins").
    @OptionGroup(title: "Named origins") package var origins: ServeOriginOptions
    @OptionGroup(title: "Freshness") package var freshness: ServeFreshnessOptions
    /// `--encode-budget` (docs/formats.md, "Encode budget").
    @OptionGroup(title: "Encode budget") package var encodeBudget: ServeEncodeBudgetOptions
    /// The cold budget, the Referer guard, the POST /info batch size (docs/serving.md).
    @OptionGroup(title: "Per-client limits") package var limits: ServeLimitsOptions

    /// Checks that need no server types (the CIDRs and the key's hex are checked where they are parsed, in
    /// dwfetch-serve, with the same exit status 2).
    package func validate() throws {
        if let resultStorage, DWS3Location(resultStorage) == nil {
            throw ValidationError("--result-storage must be s3://bucket[/prefix]")
        }
        if let s3Endpoint, !(s3Endpoint.hasPrefix("http://") || s3Endpoint.hasPrefix("https://")) {
            throw ValidationError("--s3-endpoint must be an http(s) URL")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535") }
        guard jobs > 0, maxPixels > 0, maxFrames > 0, maxSize.bytes > 0, maxAge >= 0, timeout > 0, memoryCache >= 0,
            shutdownTimeout >= 0, shutdownTimeout.isFinite
        else {
            throw ValidationError("limits must be positive")
        }
        if let maxAnimationFramePixels, maxAnimationFramePixels <= 0 {
            throw ValidationError("--max-animation-frame-pixels must be positive")
        }
    }
}
