// DWImageServer's bounds: admission and deadline, result checks, connection limits, the metrics listener.
import DWLocking
import DWWebImage
import DWWebImageProcessing
import Foundation
import Hummingbird
import HummingbirdCore
import HTTPTypes

extension DWImageServer {
    // MARK: - Bounded work

    /// The image answer within the server's bounds. The URL is parsed and the memory cache asked first, right here
    /// in the request's task: a hot variant is answered without child tasks, deadline timer or worker. Anything
    /// else goes on under the deadline (504 when `requestTimeout` runs out first; the request's fetch is then
    /// cancelled, and its transform stopped when nobody else waits for it): the download is bounded by the download
    /// slots and `--timeout`, and only the transform takes one of ``pool``'s workers (503 with `Retry-After` at
    /// once when every worker is busy and the queue is full). Runs on the request's task.
    func boundedImageResponse(for request: Request, target: String) async -> Response {
        DWHopTrace.arrive("request task")
        let job: DWImageJob
        switch imagePlan(for: request, target: target) {
        case .answer(let response):
            return response
        case .fetch(let fetch):
            job = fetch
        }
        if let hit = memoryAnswer(job, to: request) { return hit }
        return await withDeadline { await self.answer(job, to: request) }
    }

    /// `work`'s response, or 504 when `requestTimeout` runs out first (a nil from `work` also means the 504). `work`
    /// runs right here, in the request's task, inside a ``DWCancellationScope`` that a timer cancels at the
    /// deadline: every fetch, worker and shared flight `work` waits for then ends its wait at once (10007), and the
    /// answer is the 504. No task is made for the work, so a request that meets its deadline crosses no extra task.
    func withDeadline(_ work: @escaping @Sendable () async -> Response?) async -> Response {
        let scope = DWCancellationScope()
        let timer = DispatchWorkItem { scope.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + configuration.requestTimeout, execute: timer)
        let response = await DWCancellationScope.$current.withValue(scope) { await work() }
        timer.cancel()
        if let response, !scope.isCancelled { return response }
        DWAccessNote.current?.text = " deadline"
        return DWResponses.error(.gatewayTimeout, "request took too long")
    }

    /// ``DWServeConfiguration/queueFullStatus`` (503, or imgproxy's 429) with `Retry-After: 1`: every worker busy and
    /// the queue full (noted for the access log).
    func busy() -> Response {
        DWAccessNote.current?.text = " queue-full"
        let status = HTTPResponse.Status(code: configuration.queueFullStatus)
        var response = DWResponses.error(status, "server busy, retry later")
        response.headers[HTTPField.Name("Retry-After")!] = "1"
        return response
    }

    // MARK: - What a request makes

    /// The result limits for an SVG source: its result size by imgproxy's vector rules
    /// (``DWTransform/vectorResultSize(sourceWidth:sourceHeight:maxPixels:)``; a document without a declared size
    /// is measured by libvips), either orientation, checked as a result of that size.
    static func checkVector(_ image: DWImage, _ options: DWTransform, limits: DWResultLimits, maxPixels: Int)
        throws(DWWebImageError) {
        let (width, height) = try image.reportedSize
        for (w, h) in [(width, height), (height, width)] {
            let size = options.vectorResultSize(sourceWidth: w, sourceHeight: h, maxPixels: maxPixels)
            try limits.check(sourceWidth: size.width, sourceHeight: size.height, sourceFrames: 1, options: DWTransform(),
                             keepsFrames: false)
        }
    }

    /// Whether the source URL carries `user[:password]@` before its host (refused: 400).
    static func hasUserinfo(_ source: String) -> Bool {
        DWURLBytes.hasUserinfo(source)
    }

    // MARK: - Set-up

    /// Serve's own cache space, budget and age (never the CLI's space).
    static func cacheConfiguration(_ configuration: DWServeConfiguration) -> DWWebImageCache.Configuration {
        var cache = DWWebImageCache.Configuration(rootDirectory: configuration.cacheDirectory,
                                                  cacheSpace: configuration.cacheSpace)
        cache.memoryCountLimit = 4096
        cache.memoryCostLimit = configuration.memoryCacheBytes
        cache.diskSizeLimit = configuration.cacheLimit
        cache.expirationTime = configuration.cacheMaxAge
        cache.privateFiles = true
        if !configuration.diskCache { cache.cachePolicy = [.memory] }
        return cache
    }

    /// The public listener: its address, and at most `--max-connections` connections (no more accepted until one
    /// closes).
    var applicationConfiguration: ApplicationConfiguration {
        ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                                 availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections))
    }
}
