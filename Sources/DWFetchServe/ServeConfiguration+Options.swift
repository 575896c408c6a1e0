// ServeConfiguration+Options: `dwfetch serve`'s flags (declared in DWFetchCLI/ServeOptions.swift) mapped onto
// DWServeConfiguration, with the checks that need the server's own parsers.
import ArgumentParser
import DWFetchCLI
import DWWebImage
import DWWebImageServer
import Foundation

extension DWServeConfiguration {
    /// The configuration `options` ask for; a bad key, salt or CIDR is a ValidationError (exit 2).
    init(_ options: ServeOptions) throws {
        self.init()
        host = options.host
        port = options.port
        allowedHosts = options.allowHosts
        allowedNetworks = try options.allowNetworks.map { cidr in
            guard let parsed = DWCIDR(cidr) else { throw ValidationError("not a CIDR: \(cidr)") }
            return parsed
        }
        cacheDirectory = options.cacheDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
        maxSize = options.maxSize.bytes
        maxPixels = options.maxPixels
        maxFrames = options.maxFrames
        maxAnimationFramePixels = options.maxAnimationFramePixels
        maxAge = options.maxAge
        autoFormat = options.autoFormat
        jobs = options.jobs
        timeout = options.timeout
        memoryCacheBytes = options.memoryCache * 1024 * 1024
        allowS3 = options.allowS3
        s3 = .fromEnvironment(endpoint: options.s3Endpoint)
        resultStorage = options.resultStorage.flatMap(DWS3Location.init)
        shutdownTimeout = options.shutdownTimeout
        logLevel = options.verbose ? .info : .warning
        guard let format = DWLogFormat(rawValue: options.logFormat) else {
            throw ValidationError("--log-format is pretty, structured or json, not \"\(options.logFormat)\"")
        }
        logFormat = format
        guard options.prometheusNamespace != "dwserve" else {
            throw ValidationError("--prometheus-namespace dwserve is serve's own metrics' prefix: pick another")
        }
        prometheusNamespace = options.prometheusNamespace
        allowOrigin = options.allowOrigin
        guard [429, 503].contains(options.queueFullStatus) else {
            throw ValidationError("--queue-full-status is 503 or 429, not \(options.queueFullStatus)")
        }
        queueFullStatus = options.queueFullStatus
        setsCanonicalHeader = options.setCanonicalHeader
        usesLastModified = options.useLastModified
        usesETag = !options.noETag
        passesCacheControl = options.cacheControlPassthrough
        userAgent = options.userAgent
        guard (0...50).contains(options.maxRedirects) else { throw ValidationError("--max-redirects is 0 to 50") }
        maxRedirects = options.maxRedirects
        ignoresSSLVerification = options.ignoreSSLVerification
        healthCheckPath = options.healthCheckPath
        pathPrefix = options.pathPrefix ?? ""
        tracing = options.openTelemetry || options.openTelemetryEndpoint != nil
        imgproxy = try DWImgproxySettings(options.imgproxy)
        thumbor = try DWThumborSettings(options.thumbor)
        try options.security.apply(to: &self)
        guard diskCache || !(usesLastModified || passesCacheControl) else {  // nothing silently ignored
            throw ValidationError(
                "--use-last-modified and --cache-control-passthrough read the origin's headers "
                    + "from the disk cache: not with --no-disk-cache")
        }
        guard sourceMinUses == 1 || (diskCache && !(usesLastModified || passesCacheControl)) else {
            throw ValidationError(
                "--source-min-uses keeps originals off the disk cache: not with --no-disk-cache, "
                    + "--use-last-modified or --cache-control-passthrough")
        }
        failures = try DWFailurePolicy(options.failures)
        neverLarger = options.failures.neverLarger
        origins = try OriginsFile.origins(options.origins, baseURL: options.imgproxy.baseURL)
        revalidateAfter = options.freshness.revalidateAfter
        try applyEncodeBudget(options.encodeBudget)
        clientLimits = try DWClientLimits(options.limits, hasKeys: !signers.isEmpty)
    }
}
