// The image answer: URL and signature, allowed host, then fetch + transform (or a local file, or the fallback image),
// then headers (ETag, 304, cache, Content-Disposition).
import DWWebImage
import Hummingbird
import HTTPTypes

/// An image request parsed and checked (signature, source, host), with its chain: what is left is the fetch.
struct DWImageJob: Sendable {
    let url: DWProxyURL
    /// A `local:///path` source (read under `--local-root` by ``DWLocalFileLoader``, kept in memory only).
    let isLocal: Bool
    /// The format the URL names (nil: picked per source, or by `Accept`).
    let named: DWImageFormat?
    let chain: [any DWImageProcessor]
}

/// The first part of an image answer: a refusal already, or a job to fetch.
enum DWImagePlan: Sendable {
    case answer(Response)
    case fetch(DWImageJob)
}

extension DWImageServer {
    /// Answers one image request; never throws (every failure is a one-line text response, and a note for the
    /// access log). Runs in the request's task; the fetch and transform run on the pipeline's queues.
    func imageResponse(for request: Request, target: String) async -> Response {
        switch imagePlan(for: request, target: target) {
        case .answer(let response): return response
        case .fetch(let job): return await answer(job, to: request)
        }
    }

    /// Everything before the fetch, on the caller's thread: the signature first (as imgproxy does: an unsigned
    /// request learns nothing about the rest), the URL, the source's scheme and host, then the chain. A target
    /// planned before (with the same `Accept`) comes from ``plans`` (``DWPlanMemo``: never one with `exp:`).
    func imagePlan(for request: Request, target: String) -> DWImagePlan {
        let accept = planKey(for: request)  // Accept, and the client hints when they are on
        if let job = plans.job(target: target, accept: accept) { return .fetch(job) }  // parsed before
        let plan = parsePlan(for: request, target: target)
        if case .fetch(let job) = plan { plans.keep(job, target: target, accept: accept) }
        return plan
    }

    /// ``imagePlan(for:target:)`` made now.
    private func parsePlan(for request: Request, target: String) -> DWImagePlan {
        let url: DWProxyURL
        do {
            let (signature, signedPath) = try DWProxyURL.split(target: target)
            if !configuration.accepts(signature: signature, for: signedPath, signers: configuration.signers) {
                return .answer(refuse(.forbidden, "invalid signature", note: " bad-signature"))
            }
            url = try DWProxyURL(target: target, presets: configuration.imgproxy.presets,
                                 sources: configuration.imgproxy.sources, defaults: startingOptions(for: request))
            DWAccessNote.current?.imageURL = url.source
        } catch {
            return .answer(refuse(.init(code: error.status), error.description, note: " " + error.note))
        }
        guard !Self.hasUserinfo(url.source) else {
            return .answer(refuse(.badRequest, "source URL must not contain credentials", note: " userinfo"))
        }
        let isLocal = url.source.hasPrefix("local://")
        guard isLocal || hostIsAllowed(url.sourceHost) else {
            return .answer(refuse(.forbidden, "source host is not allowed", note: " host-refused"))
        }
        if !configuration.allowS3, DWS3Location(url.source) != nil {
            return .answer(refuse(.forbidden, "s3:// sources are not enabled (--allow-s3)", note: " s3-refused"))
        }
        let bucket = url.options.raw ? DWAcceptBucket() : configuration.acceptFormats.bucket(accept: request.headers[.accept])
        return .fetch(DWImageJob(url: url, isLocal: isLocal, named: url.options.transform.format,
                                 chain: transformChain(for: url, bucket: bucket)))
    }

    /// The answer when the pipeline's memory cache holds the job's result (a hot variant): looked up and answered
    /// on the caller's thread, no fetch started; nil otherwise.
    func memoryAnswer(_ job: DWImageJob, to request: Request) -> Response? {
        guard let image = manager.imageFromMemory(withURL: job.url.source, options: Self.options(for: job.chain))
        else { return nil }
        return respond(job, with: image, status: .ok, maxAge: configuration.maxAge, to: request)
    }

    /// The job fetched (and transformed) through the pipeline, or its fallback image, then answered (503 when the
    /// worker pool refused the transform). Runs in the request's task; the fetch runs on the pipeline's queues, the
    /// transform (and a `local://` read) on ``pool``'s threads.
    func answer(_ job: DWImageJob, to request: Request) async -> Response {
        var image: DWImage
        var status = HTTPResponse.Status.ok, maxAge = configuration.maxAge
        do {
            image = try await variant(of: job.url.source, chain: job.chain)  // local:// too (DWLocalFileLoader)
        } catch {
            if error.isBusy { return busy() }  // every worker busy, the queue full: not the fallback's case
            guard let fallback = await fallbackImage(chain: job.chain) else {
                let (status, message) = DWStatusMapping.status(for: error)
                return refuse(status, message, note: " error \(error.code.rawValue): \(error.message)")
            }
            (image, status) = (fallback, .init(code: configuration.imgproxy.fallbackStatus))
            maxAge = configuration.imgproxy.fallbackMaxAge ?? maxAge
        }
        return respond(job, with: image, status: status, maxAge: maxAge, to: request)
    }

    /// The response for `image`: the frame limit and a known type checked, then the body (made once per image,
    /// ``DWServedBytes``) with its headers, or a 304.
    private func respond(_ job: DWImageJob, with image: DWImage, status: HTTPResponse.Status, maxAge: Int,
                         to request: Request) -> Response {
        guard image.frameCount <= configuration.maxFrames else {
            return refuse(.unprocessableContent, "\(image.frameCount) frames is over the limit of \(configuration.maxFrames)",
                          note: " frames")
        }
        guard let contentType = image.format.mimeType else {
            return refuse(.unprocessableContent, "source is not an image", note: " not-image")
        }
        if logger.logLevel <= .info { DWAccessNote.current?.text = " " + image.source.rawValue }  // the log's only
        var extra = HTTPFields()
        let options = job.url.options
        if options.filename != nil || options.returnAttachment {
            extra[.contentDisposition] = Self.contentDisposition(options, source: job.url.source, format: image.format)
        }
        if configuration.setsCanonicalHeader, DWURLBytes.simpleHTTPAuthority(job.url.source) != nil {
            extra[HTTPField.Name("Link")!] = "<\(job.url.source)>; rel=\"canonical\""  // imgproxy's IMGPROXY_SET_CANONICAL_HEADER
        }
        if configuration.imgproxy.clientHints, !options.raw { extra[.vary] = DWClientHints.vary }
        let varies = !options.raw && configuration.acceptFormats.varies(explicit: job.named)
        return DWResponses.image(served.body(for: image.data), contentType: contentType, maxAge: maxAge, varies: varies,
                                 ifNoneMatch: request.headers[values: .ifNoneMatch], status: status, extra: extra)
    }

    /// The pipeline's options for a chain (none for an empty chain: the source itself).
    static func options(for chain: [any DWImageProcessor]) -> DWWebImageOptions {
        chain.isEmpty ? [] : .processors(chain)
    }

    /// A one-line error answer, its reason noted for the access log.
    func refuse(_ status: HTTPResponse.Status, _ message: String, note: String) -> Response {
        DWAccessNote.current?.text = note
        return DWResponses.error(status, message)
    }
}
