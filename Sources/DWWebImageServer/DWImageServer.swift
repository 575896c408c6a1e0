// DWImageServer: `dwfetch serve` — imgproxy-style URLs answered through the pipeline, on Hummingbird 2.
import DWWebImage
import DWWebImageProcessing
import Foundation
import Hummingbird
import HTTPTypes
import Logging
import ServiceLifecycle

/// An image proxy over one ``DWWebImageManager``: it checks the URL (format, signature, allowed host), fetches the
/// source through the pipeline (coalescing, cache, resume, retries; every connection checked by
/// ``DWAddressPolicy``), applies the URL's processors and answers with cache headers.
///
/// Requests are handled on Hummingbird's event loops and Swift tasks; the manager delivers results on its own
/// callback queue. `run()` returns after SIGTERM or SIGINT once every request in flight has been answered.
public final class DWImageServer: Sendable {
    /// The settings it was made with.
    public let configuration: DWServeConfiguration
    /// The pipeline every source goes through.
    public let manager: DWWebImageManager
    let metrics = DWServerMetrics()
    /// Response bodies and ETags of the images served, made once per image.
    let served = DWServedBytes()
    let logger: Logger

    /// A server with its own cache (``DWServeConfiguration/cacheDirectory``) and manager.
    public init(configuration: DWServeConfiguration) {
        self.configuration = configuration
        var logger = Logger(label: "dwfetch.serve")
        logger.logLevel = configuration.logLevel
        self.logger = logger

        let cache = DWWebImageCache(rootDirectory: configuration.cacheDirectory, memoryCountLimit: 4096,
                                    memoryCostLimit: configuration.memoryCacheBytes, notificationCenter: NotificationCenter())
        var pipeline = DWWebImageManager.Configuration()
        pipeline.timeout = configuration.timeout
        pipeline.maxBodySize = configuration.maxSize
        pipeline.maxPixelCount = configuration.maxPixels
        // A proxy answers a waiting client: one quick retry, not DW's three 3 s apart.
        pipeline.retryPolicy = DWRetryPolicy(maxRetries: 1, interval: 0.25)
        // The memory cache is for variants (what clients ask again); originals are read back from disk.
        pipeline.memoryCachesVariantSources = false
        let policy = DWAddressPolicy(allowedNetworks: configuration.allowedNetworks)
        pipeline.connectionPolicy = { address, _ in policy.allows(address) }
        manager = DWWebImageManager(cache: cache, configuration: pipeline, notificationCenter: NotificationCenter())
        manager.maxConcurrentDownloads = configuration.jobs
        manager.maxConcurrentDownloadsPerHost = configuration.jobs
        manager.metricsHandler = { [metrics] in metrics.pipeline($0) }
        // The engine checks the same limits from the header before it decodes anything.
        var limits = DWImageProcessing.limits
        limits.maxPixelCount = configuration.maxPixels
        limits.maxFrameCount = configuration.maxFrames
        limits.maxByteCount = Int(clamping: configuration.maxSize)
        DWImageProcessing.limits = limits
        _ = DWImageProcessing.libvipsVersion  // starts libvips now, not in the first request (~0.3 s)
    }

    /// Serves until SIGTERM or SIGINT, then stops accepting, lets the requests in flight finish, and returns.
    /// `onListening` is called with the bound port once the server accepts connections.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        if configuration.tunesMalloc {
            DWMallocTuning.limitArenas(2)
            // Free pages go back to the kernel a few seconds after a burst of transforms, not during it.
            Task.detached(priority: .background) { [metrics] in
                var last = metrics.transformCount
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    let now = metrics.transformCount
                    if now != last { DWMallocTuning.trim() }
                    last = now
                }
            }
        }
        let responder = CallbackResponder<BasicRequestContext> { [self] request, _ in await respond(to: request) }
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    // MARK: - Requests

    /// Answers one request; never throws (every failure is a one-line text response).
    func respond(to request: Request) async -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        let target = request.head.path ?? "/"
        var response: Response
        var note = ""
        if request.method != .get && request.method != .head {
            response = Self.error(405, "only GET and HEAD are served")
        } else if target == "/health" {
            response = Self.text(200, "ok")
        } else if target == "/metrics" {
            response = Self.text(200, metrics.text(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        } else {
            (response, note) = await image(for: request, target: target)
        }
        let bytes = response.headers[.contentLength].flatMap(Int.init) ?? 0
        if request.method == .head { response.body = ResponseBody() }
        if target != "/metrics" && target != "/health" {  // scrapes and probes would swamp the image counts
            metrics.answered(status: Int(response.status.code), bytes: request.method == .head ? 0 : bytes,
                             elapsed: clock.now - start)
        }
        if logger.logLevel <= .info {
            let ms = Double((clock.now - start).components.attoseconds) / 1e15
                + Double((clock.now - start).components.seconds) * 1000
            logger.info("\(request.method) \(target) \(response.status.code) \(bytes) \(String(format: "%.1f", ms))ms\(note)")
        }
        return response
    }

    /// The image answer, and a note for the access log (where the bytes came from, or why it failed).
    private func image(for request: Request, target: String) async -> (Response, String) {
        let url: DWProxyURL
        do {
            // The signature first (as imgproxy does): an unsigned request learns nothing about the rest.
            let (signature, signedPath) = try DWProxyURL.split(target: target)
            if let signer = configuration.signer, !signer.isValid(signature: signature, for: signedPath) {
                return (Self.error(403, "invalid signature"), " bad-signature")
            }
            url = try DWProxyURL(target: target)
        } catch {
            return (Self.error(400, error.description), " bad-url")
        }
        guard hostIsAllowed(url.sourceHost) else {
            return (Self.error(403, "source host is not allowed"), " host-refused")
        }
        let format = DWFormatNegotiation.outputFormat(explicit: url.options.format, accept: request.headers[.accept],
                                                      autoFormat: configuration.autoFormat)
        let varies = configuration.autoFormat && url.options.format == nil
        let chain = DWServedProcessor.wrap(url.options.processors(outputFormat: format),
                                           maxFrames: configuration.maxFrames, metrics: metrics)
        let image: DWImage
        do {
            image = try await variant(of: url.source, chain: chain)
        } catch {
            let (status, message) = Self.status(for: error)
            return (Self.error(status, message), " error \(error.code.rawValue)")
        }
        guard image.frameCount <= configuration.maxFrames else {
            return (Self.error(422, "\(image.frameCount) frames is over the limit of \(configuration.maxFrames)"), " frames")
        }
        guard let contentType = image.format.mimeType else {
            return (Self.error(422, "source is not an image"), " not-image")
        }
        let body = served.body(for: image.data)
        let etag = body.etag
        var headers = HTTPFields()
        headers[.eTag] = etag
        headers[.cacheControl] = "public, max-age=\(configuration.maxAge)"
        if varies { headers[.vary] = "Accept" }
        Self.addSecurityHeaders(&headers)
        let note = " \(image.source)"
        if Self.matches(ifNoneMatch: request.headers[values: .ifNoneMatch], etag: etag) {
            return (Response(status: .notModified, headers: headers), note)
        }
        headers[.contentType] = contentType
        headers[.contentLength] = String(image.data.count)
        return (Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body.buffer)), note)
    }

    /// The source processed by `chain` (the source itself for an empty chain), through the pipeline's variant
    /// cache: concurrent identical requests share one download and one transform, and another chain over a cached
    /// original needs no request to the origin.
    private func variant(of source: String, chain: [any DWImageProcessor]) async throws(DWWebImageError) -> DWImage {
        try await manager.image(withURL: source, options: chain.isEmpty ? [] : .processors(chain))
    }

    /// Exact host, or a "*.suffix" pattern that also allows the suffix's subdomains; any host when none are set.
    func hostIsAllowed(_ host: String) -> Bool {
        let allowed = configuration.allowedHosts
        guard !allowed.isEmpty else { return true }
        return allowed.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst(1)
                return host.hasSuffix(suffix) || host == suffix.dropFirst()
            }
            return host == pattern
        }
    }

    // MARK: - Mapping and headers

    /// The status and one-line message for a pipeline error (SPEC's table).
    static func status(for error: DWWebImageError) -> (Int, String) {
        switch error.code {
        case .emptyURL, .invalidURL:
            return (400, "source URL is not usable: \(error.message)")
        case .notAnImage:
            return (422, "source is not a decodable image")
        case .tooLarge:
            return (422, "source too large: \(error.message)")
        case .transport:
            if let address = error.refusedAddress { return (403, "source address \(address) is not allowed") }
            if error.isTimeout { return (504, "origin timed out") }
            return (502, "origin unreachable: \(error.message)")
        case .httpStatus:
            let status = error.httpStatus ?? 0
            if status == 404 || status == 410 { return (404, "origin answered \(status)") }
            return (502, "origin answered \(status)")
        case .notInCache, .cacheIO, .cancelled:
            return (502, error.message)
        }
    }

    /// RFC 9110 §13.1.2: weak comparison, "*" matches anything.
    static func matches(ifNoneMatch values: [String], etag: String) -> Bool {
        for value in values {
            for candidate in value.split(separator: ",") {
                var tag = candidate.trimmingCharacters(in: .whitespaces)
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if tag == etag { return true }
            }
        }
        return false
    }

    static func addSecurityHeaders(_ headers: inout HTTPFields) {
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Content-Security-Policy")!] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
    }

    static func text(_ status: Int, _ body: String, contentType: String = "text/plain; charset=utf-8") -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.contentLength] = String(body.utf8.count)
        headers[.cacheControl] = "no-store"
        addSecurityHeaders(&headers)
        return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// A one-line text error: "403 Forbidden: invalid signature".
    static func error(_ status: Int, _ message: String) -> Response {
        let line = message.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        return text(status, "\(status) \(reason(status)): \(line)\n")
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 422: "Unprocessable Content"
        case 502: "Bad Gateway"
        case 504: "Gateway Timeout"
        default: "Error"
        }
    }
}
